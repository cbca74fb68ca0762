package augment

import (
	"context"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/schema"
	"github.com/wield-ai/wield/tool"
)

// Extra fields are read by the rules their schema states, as tool arguments are: a duration as
// "1h30m", defaults filled in.
type Budget struct {
	TimeBox time.Duration `json:"timeBox" jsonschema:"How long the call may take"`
	Mode    string        `json:"mode,omitempty" default:"careful"`
}

func TestExtraFieldsReadByTheirSchema(t *testing.T) {
	r := &recorder{}
	var got Budget
	w, err := Tool(r.tool(t), func(_ context.Context, e Event[Budget]) error {
		got = e.Args
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	out, err := w.Call(context.Background(), `{"timeBox":"1h30m","city":"Oslo"}`)
	if err != nil || out != "sunny in Oslo" {
		t.Fatalf("Call = %q, %v", out, err)
	}
	if got.TimeBox != 90*time.Minute || got.Mode != "careful" {
		t.Errorf("consumer got %+v", got)
	}
	if _, err := w.Call(context.Background(), `{"timeBox":"a while","city":"Oslo"}`); err == nil {
		t.Error("a malformed duration was accepted")
	}
}

// An augmented tool whose wrapped tool validates its own arguments validates them all, so a
// server need not check them again.
func TestAugmentedValidatesItself(t *testing.T) {
	w, err := Tool((&recorder{}).tool(t), func(context.Context, Event[Budget]) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if v, err := schema.ForServing(w, w.Definition().InputSchema); err != nil || v != nil {
		t.Errorf("ForServing = %v, %v; want no validator", v, err)
	}
	w, err = Tool(bare(tool.Definition{Name: "b"}), func(context.Context, Event[Budget]) error { return nil })
	if err != nil {
		t.Fatal(err)
	}
	if v, err := schema.ForServing(w, w.Definition().InputSchema); err != nil || v == nil {
		t.Errorf("wrapping a tool that does not validate itself: ForServing = %v, %v; want a validator", v, err)
	}
}
