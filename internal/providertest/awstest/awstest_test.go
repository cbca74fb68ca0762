package awstest

import (
	"os"
	"testing"
)

// recorder is a testing.TB that records whether a check failed.
type recorder struct {
	testing.TB
	failed bool
}

func (r *recorder) Helper()               {}
func (r *recorder) Errorf(string, ...any) { r.failed = true }

func TestCheckSigned(t *testing.T) {
	const auth = "AWS4-HMAC-SHA256 Credential=AKIDX/20250101/eu-west-3/bedrock/aws4_request, SignedHeaders=host, Signature=00"
	for _, tc := range []struct {
		auth, key, region string
		fails             bool
	}{
		{auth, "AKIDX", "eu-west-3", false},
		{auth, "AKIDY", "eu-west-3", true},
		{auth, "AKIDX", "us-east-1", true},
		{"Bearer k", "AKIDX", "eu-west-3", true},
	} {
		r := &recorder{TB: t}
		CheckSigned(r, tc.auth, tc.key, tc.region)
		if r.failed != tc.fails {
			t.Errorf("CheckSigned(%q, %s, %s) failed = %v, want %v", tc.auth, tc.key, tc.region, r.failed, tc.fails)
		}
	}
}

func TestIsolate(t *testing.T) {
	t.Setenv("AWS_ACCESS_KEY_ID", "AKIDMACHINE")
	t.Setenv("AWS_PROFILE", "machine")
	Isolate(t)
	if os.Getenv("AWS_ACCESS_KEY_ID") != "" || os.Getenv("AWS_PROFILE") != "" || os.Getenv("AWS_EC2_METADATA_DISABLED") != "true" {
		t.Error("the machine's AWS settings are still in the environment")
	}
	Environment(t, "AKIDENV", "eu-west-3")
	if os.Getenv("AWS_ACCESS_KEY_ID") != "AKIDENV" || os.Getenv("AWS_REGION") != "eu-west-3" {
		t.Error("Environment did not set the key and region")
	}
	Profile(t, "team", "AKIDPROFILE", "ap-south-1")
	for _, k := range []string{"AWS_SHARED_CREDENTIALS_FILE", "AWS_CONFIG_FILE"} {
		if b, err := os.ReadFile(os.Getenv(k)); err != nil || len(b) == 0 {
			t.Errorf("%s: %v", k, err)
		}
	}
}
