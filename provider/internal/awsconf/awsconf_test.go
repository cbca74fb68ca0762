package awsconf

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/wield-ai/wield/internal/providertest/awstest"
)

// TestLoad: where Load finds the region and the credentials, and what it refuses. Each case
// runs in an environment cut off from the machine's AWS configuration, with env set on it.
func TestLoad(t *testing.T) {
	dir := t.TempDir()
	for name, content := range map[string]string{
		"credentials": "[team]\naws_access_key_id = AKIDPROFILE\naws_secret_access_key = secret\n",
		"config":      "[profile team]\nregion = ap-southeast-2\n",
	} {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	profile := map[string]string{"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"), "AWS_CONFIG_FILE": filepath.Join(dir, "config")}
	noCreds, given := &aws.Config{Region: "us-east-1"}, awstest.Config()
	for _, tc := range []struct {
		name       string
		env        map[string]string
		s          Settings
		region, id string // wanted: the region, the access key id ("" for none)
		err        string // wanted: the error's start
	}{
		{name: "given configuration, region over it", s: Settings{AWS: given, Region: "eu-west-3"}, region: "eu-west-3", id: "AKIDTEST"},
		{name: "environment", env: map[string]string{"AWS_ACCESS_KEY_ID": "AKIDENV", "AWS_SECRET_ACCESS_KEY": "secret", "AWS_REGION": "ap-south-1"},
			region: "ap-south-1", id: "AKIDENV"},
		{name: "shared profile", env: profile, s: Settings{Profile: "team"}, region: "ap-southeast-2", id: "AKIDPROFILE"},
		{name: "API key without credentials", s: Settings{AWS: noCreds, APIKey: "k"}, region: "us-east-1"},
		{name: "environment's token without credentials", env: map[string]string{BearerEnv: "env-key"}, s: Settings{AWS: noCreds}, region: "us-east-1"},
		{name: "no region", err: "p: no AWS region: set Config.Region or $AWS_REGION"},
		{name: "no credentials", s: Settings{AWS: noCreds}, err: "p: the AWS configuration has no credentials"},
		{name: "unknown profile", s: Settings{Region: "us-east-1", Profile: "nobody"}, err: "p: loading the AWS configuration: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.Isolate(t)
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			c, err := Load(context.Background(), tc.s, "p", "Config.Region")
			if tc.err != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tc.err) {
					t.Fatalf("error %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var id string
			if c.Credentials != nil {
				creds, err := c.Credentials.Retrieve(context.Background())
				if err != nil {
					t.Fatal(err)
				}
				id = creds.AccessKeyID
			}
			if c.Region != tc.region || id != tc.id {
				t.Errorf("region %q, access key %q, want %q, %q", c.Region, id, tc.region, tc.id)
			}
		})
	}
	if given.Region != "us-east-1" {
		t.Errorf("Load changed the given configuration: region %q", given.Region)
	}
}
