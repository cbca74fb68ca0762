// Package awstest is the test scaffolding of the providers that reach Amazon Bedrock: an AWS
// configuration that signs requests offline, an environment cut off from the machine's AWS
// configuration, and the framing of AWS event streams.
//
// Only tests import it.
package awstest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/wield-ai/wield/internal/replay"
)

// Config returns an AWS configuration in us-east-1 with fixed credentials, so requests are
// signed offline.
func Config() *aws.Config {
	return &aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")}
}

// Isolate keeps the AWS configuration chain of a test away from the machine's: no shared files,
// no instance metadata, no region, profile, keys or tokens from the environment, and no retry
// settings. It sets environment variables, so t must not be parallel.
func Isolate(t *testing.T) {
	t.Helper()
	dir := t.TempDir()
	for k, v := range map[string]string{
		"AWS_CONFIG_FILE":             filepath.Join(dir, "config"),
		"AWS_SHARED_CREDENTIALS_FILE": filepath.Join(dir, "credentials"),
		"AWS_EC2_METADATA_DISABLED":   "true",
		"AWS_BEARER_TOKEN_BEDROCK":    "",
		"AWS_ACCESS_KEY_ID":           "",
		"AWS_SECRET_ACCESS_KEY":       "",
		"AWS_SESSION_TOKEN":           "",
		"AWS_PROFILE":                 "",
		"AWS_REGION":                  "",
		"AWS_DEFAULT_REGION":          "",
		"AWS_MAX_ATTEMPTS":            "",
		"AWS_RETRY_MODE":              "",
	} {
		t.Setenv(k, v)
	}
}

// Environment puts the access key keyID (its secret "secret") and region in the environment, for
// the configuration chain to find. Call Isolate first.
func Environment(t *testing.T, keyID, region string) {
	t.Setenv("AWS_ACCESS_KEY_ID", keyID)
	t.Setenv("AWS_SECRET_ACCESS_KEY", "secret")
	t.Setenv("AWS_REGION", region)
}

// Profile writes shared credentials and configuration files holding the profile name, with the
// access key keyID and, unless it is empty, region, and points the environment at them. Call
// Isolate first.
func Profile(t *testing.T, name, keyID, region string) {
	t.Helper()
	dir := t.TempDir()
	files := map[string]string{"credentials": fmt.Sprintf("[%s]\naws_access_key_id = %s\naws_secret_access_key = secret\n", name, keyID)}
	if region != "" {
		files["config"] = fmt.Sprintf("[profile %s]\nregion = %s\n", name, region)
	}
	for file, content := range files {
		path := filepath.Join(dir, file)
		if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		t.Setenv(map[string]string{"credentials": "AWS_SHARED_CREDENTIALS_FILE", "config": "AWS_CONFIG_FILE"}[file], path)
	}
}

// CheckSigned fails t unless auth, the Authorization header of a request to Bedrock, is an AWS
// SigV4 signature with the access key keyID in region.
func CheckSigned(t testing.TB, auth, keyID, region string) {
	t.Helper()
	if !strings.HasPrefix(auth, "AWS4-HMAC-SHA256 Credential="+keyID+"/") || !strings.Contains(auth, "/"+region+"/bedrock/") {
		t.Errorf("authorization = %q, want a signature by %s in %s", auth, keyID, region)
	}
}

// CheckChain runs, as subtests of t, the ways the AWS configuration chain gives a provider its
// credentials and region: keys and region from the environment, a shared profile with its own
// region, a shared profile with the region given in the provider's configuration, and nothing
// at all. call builds the provider, without retries, on the server at url with profile and region
// (empty for none) and makes one call. Where credentials are found, the server answers with ok
// and the request must be signed by the key found in the region found; where none are, the call
// must fail without sending anything.
func CheckChain(t *testing.T, ok replay.Exchange, call func(t *testing.T, url, profile, region string) error) {
	signed := func(t *testing.T, profile, region, wantKey, wantRegion string) {
		t.Helper()
		srv := replay.NewServer(t, ok)
		if err := call(t, srv.URL, profile, region); err != nil {
			t.Fatal(err)
		}
		CheckSigned(t, srv.Requests()[0].Header.Get("Authorization"), wantKey, wantRegion)
	}
	t.Run("environment credentials and region", func(t *testing.T) {
		Isolate(t)
		Environment(t, "AKIDENV", "eu-west-3")
		signed(t, "", "", "AKIDENV", "eu-west-3")
	})
	t.Run("shared profile", func(t *testing.T) {
		Isolate(t)
		Profile(t, "team", "AKIDPROFILE", "ap-southeast-2")
		signed(t, "team", "", "AKIDPROFILE", "ap-southeast-2")
	})
	t.Run("shared profile, region given", func(t *testing.T) {
		Isolate(t)
		Profile(t, "team", "AKIDPROFILE", "")
		signed(t, "team", "ap-northeast-1", "AKIDPROFILE", "ap-northeast-1")
	})
	t.Run("no credentials anywhere", func(t *testing.T) {
		Isolate(t)
		srv := replay.NewServer(t)
		if err := call(t, srv.URL, "", "us-east-1"); err == nil {
			t.Fatal("a call without credentials succeeded")
		}
		if srv.Served() != 0 {
			t.Error("an unsigned request went out")
		}
	})
}

// FrameEnds returns the offsets at which the frames of an event-stream body end, each frame's
// CRCs checked by the AWS decoder.
func FrameEnds(t testing.TB, body []byte) []int {
	t.Helper()
	var ends []int
	dec := eventstream.NewDecoder()
	r := bytes.NewReader(body)
	for r.Len() > 0 {
		if _, err := dec.Decode(r, nil); err != nil {
			t.Fatal(err)
		}
		ends = append(ends, len(body)-r.Len())
	}
	return ends
}

// ExceptionFrame is an exception event of the given kind inside an event stream, as Bedrock
// sends a failure in the middle of an answer.
func ExceptionFrame(t testing.TB, kind, message string) []byte {
	t.Helper()
	var buf bytes.Buffer
	payload, err := json.Marshal(map[string]string{"message": message})
	if err != nil {
		t.Fatal(err)
	}
	msg := eventstream.Message{Payload: payload}
	msg.Headers.Set(":message-type", eventstream.StringValue("exception"))
	msg.Headers.Set(":exception-type", eventstream.StringValue(kind))
	msg.Headers.Set(":content-type", eventstream.StringValue("application/json"))
	if err := eventstream.NewEncoder().Encode(&buf, msg); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}
