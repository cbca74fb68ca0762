// Package awstest is the test scaffolding of the providers that reach Amazon Bedrock: an AWS
// configuration that signs requests offline, an environment cut off from the machine's AWS
// configuration, and the framing of AWS event streams.
//
// Only tests import it.
package awstest

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/protocol/eventstream"
	"github.com/aws/aws-sdk-go-v2/credentials"
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
