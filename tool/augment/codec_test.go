package augment

import (
	"context"
	"testing"
	"time"
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
