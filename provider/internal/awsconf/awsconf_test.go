package awsconf

import (
	"context"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"

	"github.com/wield-ai/wield/internal/providertest/awstest"
)

// TestLoad: where Load finds the region and the credentials, and what it refuses. Each case
// runs in an environment cut off from the machine's AWS configuration, then changed by env.
func TestLoad(t *testing.T) {
	noCreds, given := &aws.Config{Region: "us-east-1"}, awstest.Config()
	for _, tc := range []struct {
		name       string
		env        func(t *testing.T)
		s          Settings
		region, id string // wanted: the region, the access key id ("" for none)
		err        string // wanted: the error's start
	}{
		{name: "given configuration, region over it", s: Settings{AWS: given, Region: "eu-west-3"}, region: "eu-west-3", id: "AKIDTEST"},
		{name: "environment", env: func(t *testing.T) { awstest.Environment(t, "AKIDENV", "ap-south-1") },
			region: "ap-south-1", id: "AKIDENV"},
		{name: "shared profile", env: func(t *testing.T) { awstest.Profile(t, "team", "AKIDPROFILE", "ap-southeast-2") },
			s: Settings{Profile: "team"}, region: "ap-southeast-2", id: "AKIDPROFILE"},
		{name: "API key without credentials", s: Settings{AWS: noCreds, APIKey: "k"}, region: "us-east-1"},
		{name: "environment's token without credentials", env: func(t *testing.T) { t.Setenv(BearerEnv, "env-key") },
			s: Settings{AWS: noCreds}, region: "us-east-1"},
		{name: "no region", err: "p: no AWS region: set Config.Region or $AWS_REGION"},
		{name: "no credentials", s: Settings{AWS: noCreds}, err: "p: the AWS configuration has no credentials"},
		{name: "unknown profile", s: Settings{Region: "us-east-1", Profile: "nobody"}, err: "p: loading the AWS configuration: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.Isolate(t)
			if tc.env != nil {
				tc.env(t)
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
