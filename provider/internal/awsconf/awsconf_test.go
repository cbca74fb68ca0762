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
		name string
		env  func(t *testing.T)
		s    Settings
		want string // the region and access key id found, or the start of the error
	}{
		{name: "given configuration, region over it", s: Settings{AWS: given, Region: "eu-west-3"}, want: "eu-west-3 AKIDTEST"},
		{name: "environment", env: func(t *testing.T) { awstest.Environment(t, "AKIDENV", "ap-south-1") }, want: "ap-south-1 AKIDENV"},
		{name: "shared profile", env: func(t *testing.T) { awstest.Profile(t, "team", "AKIDPROFILE", "ap-southeast-2") },
			s: Settings{Profile: "team"}, want: "ap-southeast-2 AKIDPROFILE"},
		{name: "API key without credentials", s: Settings{AWS: noCreds, APIKey: "k"}, want: "us-east-1 none"},
		{name: "environment's token without credentials", env: func(t *testing.T) { t.Setenv(BearerEnv, "env-key") },
			s: Settings{AWS: noCreds}, want: "us-east-1 none"},
		{name: "no region", want: "p: no AWS region: set Config.Region or $AWS_REGION"},
		{name: "no credentials", s: Settings{AWS: noCreds}, want: "p: the AWS configuration has no credentials"},
		{name: "unknown profile", s: Settings{Region: "us-east-1", Profile: "nobody"}, want: "p: loading the AWS configuration: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			awstest.Isolate(t)
			if tc.env != nil {
				tc.env(t)
			}
			if got := found(t, tc.s); !strings.HasPrefix(got, tc.want) {
				t.Errorf("found %q, want %q", got, tc.want)
			}
		})
	}
	if given.Region != "us-east-1" {
		t.Errorf("Load changed the given configuration: region %q", given.Region)
	}
}

// found loads the configuration of s and says what it found: its region and access key id
// ("none" without credentials), or the error.
func found(t *testing.T, s Settings) string {
	c, err := Load(context.Background(), s, "p", "Config.Region")
	if err != nil {
		return err.Error()
	}
	id := "none"
	if c.Credentials != nil {
		creds, err := c.Credentials.Retrieve(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		id = creds.AccessKeyID
	}
	return c.Region + " " + id
}
