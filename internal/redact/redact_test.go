package redact

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/tool"
)

const secret = "hunter2"

// argumentError is the error a tool gives for arguments that break its schema.
func argumentError(t *testing.T) error {
	t.Helper()
	tl := tool.Must(tool.New(tool.Definition{Name: "t", InputSchema: json.RawMessage(`{"type":"object","properties":{"n":{"type":"integer"}}}`)},
		func(context.Context, map[string]any) (any, error) { return "ok", nil }))
	_, err := tl.Call(context.Background(), `{"n":"`+secret+`"}`)
	if err == nil || !strings.Contains(err.Error(), secret) {
		t.Fatalf("the tool's error %v does not quote the value", err)
	}
	return err
}

func TestCause(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want string
	}{
		{argumentError(t), "invalid arguments: /n: type"},
		{fmt.Errorf("wrapped %s: %w", secret, argumentError(t)), "invalid arguments: /n: type"},
		{&tool.PanicError{Value: secret}, "the tool panicked"},
		{fmt.Errorf("%s: %w", secret, tool.ErrTimeout), "the tool timed out"},
		{fmt.Errorf("%s: %w", secret, context.DeadlineExceeded), "the tool timed out"},
		{fmt.Errorf("%s: %w", secret, context.Canceled), "the tool call was cancelled"},
		{tool.Fatal(errors.New(secret)), "the tool failed and ended the turn"},
		{errors.New(secret), "the tool failed"},
		{nil, ""},
	} {
		if got := Cause(tc.err); got != tc.want {
			t.Errorf("Cause(%v) = %q, want %q", tc.err, got, tc.want)
		}
	}
}

func TestError(t *testing.T) {
	ee := &tool.ExecutionError{Tool: "lookup", CallID: "c1", Err: errors.New("no city " + secret)}
	for _, tc := range []struct {
		err  error
		want string
	}{
		{ee, `tool "lookup" (call c1): the tool failed`},
		{fmt.Errorf("client: tool loop: %w", ee), `client: tool loop: tool "lookup" (call c1): the tool failed`},
		{&tool.ExecutionError{Tool: "lookup", Err: argumentError(t)}, `tool "lookup": invalid arguments: /n: type`},
		{fmt.Errorf("edited arguments of %s: %w", "lookup", argumentError(t)), "edited arguments of lookup: invalid arguments: /n: type"},
		{opaque{ee}, `tool "lookup": the tool failed`},
		{errors.New("connection refused"), "connection refused"},
		{nil, ""},
	} {
		got := Error(tc.err)
		if got != tc.want {
			t.Errorf("Error(%v) = %q, want %q", tc.err, got, tc.want)
		}
		if strings.Contains(got, secret) {
			t.Errorf("Error(%v) = %q quotes the secret", tc.err, got)
		}
	}
}

// opaque wraps an error without quoting its text.
type opaque struct{ err error }

func (o opaque) Error() string { return "something went wrong: " + strings.ToUpper(o.err.Error()) }
func (o opaque) Unwrap() error { return o.err }
