package tool

import (
	"context"
	"testing"
)

// noFields is an input struct with nothing the model can fill in: its schema is the empty
// object.
type noFields struct {
	secret string
}

type opaqueTools struct{}

func (opaqueTools) Status(_ context.Context, in noFields) (string, error) {
	return "ok" + in.secret, nil
}

// A method tool and a Func tool read their arguments through the same codec, so an input struct
// without exported fields works for both.
func TestMethodAndFuncReadAlike(t *testing.T) {
	ctx := context.Background()
	tools, err := Methods(opaqueTools{}, Only("Status"))
	if err != nil || len(tools) != 1 {
		t.Fatalf("Methods = %v, %v", tools, err)
	}
	fn := Must(Func("status", "", opaqueTools{}.Status))
	for _, tl := range []Tool{tools[0], fn} {
		if got, err := tl.Call(ctx, `{}`); err != nil || got != "ok" {
			t.Errorf("%s: Call = %q, %v", tl.Definition().Name, got, err)
		}
		if _, err := tl.Call(ctx, `{"secret":"x"}`); err == nil {
			t.Errorf("%s: an undeclared argument was accepted", tl.Definition().Name)
		}
		if got, want := string(tl.Definition().InputSchema), `{"type":"object","properties":{},"additionalProperties":false}`; got != want {
			t.Errorf("%s: schema %s, want %s", tl.Definition().Name, got, want)
		}
	}
}

// A struct without exported fields inside an input the codec decodes as a whole (a string
// option keeps it off the single-pass plan) reads as it does on its own: as nothing.
type nestedNoFields struct {
	Opaque noFields `json:"opaque,omitzero"`
	N      int      `json:"n,string,omitempty"`
}

func TestNestedStructWithoutFields(t *testing.T) {
	fn := Must(Func("nested", "", func(_ context.Context, in nestedNoFields) (int, error) { return in.N, nil }))
	if got, err := fn.Call(context.Background(), `{"opaque":{},"n":"4"}`); err != nil || got != "4" {
		t.Errorf("Call = %q, %v", got, err)
	}
}

// An input type the JSON codec cannot read (here a format tag option, which it does not
// support) is refused when the tool is built, with an inferred schema or a given one, instead
// of failing every call.
type hexInput struct {
	Data []byte `json:"data,format:hex"`
}

func TestFuncRefusesUnreadableInput(t *testing.T) {
	fn := func(context.Context, hexInput) (string, error) { return "", nil }
	if _, err := Func("hex", "", fn); err == nil {
		t.Error("Func accepted an input type the codec cannot read")
	}
	schema := WithInputSchema([]byte(`{"type":"object","properties":{"data":{"type":"string"}}}`))
	if _, err := Func("hex", "", fn, schema); err == nil {
		t.Error("Func with an input schema accepted an input type the codec cannot read")
	}
}
