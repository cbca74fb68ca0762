package chattest_test

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/tool"
)

var _ tool.Tool = (*chattest.Tool)(nil)

func TestNewTool(t *testing.T) {
	boom := errors.New("boom")
	tl := chattest.NewTool("echo", func(_ context.Context, args string) (string, error) {
		if args == "fail" {
			return "", boom
		}
		return "echo:" + args, nil
	})
	def := tl.Definition()
	if def.Name != "echo" || def.Description != "the echo tool" || !json.Valid(def.InputSchema) || string(def.InputSchema) != `{"type":"object"}` {
		t.Fatalf("definition = %+v (schema %s)", def, def.InputSchema)
	}
	if got, err := tl.Call(context.Background(), `{"a":1}`); got != `echo:{"a":1}` || err != nil {
		t.Fatalf("Call = %q, %v", got, err)
	}
	if _, err := tl.Call(context.Background(), "fail"); !errors.Is(err, boom) {
		t.Fatalf("Call error = %v, want boom", err)
	}
	if (tl.Metadata() != tool.Metadata{}) {
		t.Fatalf("metadata = %+v, want zero", tl.Metadata())
	}
	meta := tool.Metadata{ReturnDirect: true, Timeout: time.Second}
	if got := tl.WithMetadata(meta); got != tl || got.Metadata() != meta {
		t.Fatalf("WithMetadata returned %p with %+v", got, got.Metadata())
	}
}

func TestToolFieldsAreWhatItReports(t *testing.T) {
	tl := &chattest.Tool{Def: tool.Definition{Name: "bare"}}
	if got, err := tl.Call(context.Background(), "{}"); got != "" || err != nil {
		t.Fatalf("Call without Func = %q, %v", got, err)
	}
	tl.Def.InputSchema = nil
	tl.Meta.Sequential = true
	if tl.Definition().InputSchema != nil || !tl.Metadata().Sequential {
		t.Fatalf("changes to the fields are not reported: %+v %+v", tl.Definition(), tl.Metadata())
	}
}
