package ollama

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/jsonobj"
	"github.com/wield-ai/wield/tool"
)

// refChain returns a schema whose $defs form a chain of depth levels, each referring twice to
// the next: small as written, 2^depth leaves once every reference is inlined.
func refChain(depth int) json.RawMessage {
	var defs []string
	for i := range depth {
		defs = append(defs, fmt.Sprintf(`"L%d":{"type":"object","description":"level %d","properties":{"a":{"$ref":"#/$defs/L%d"},"b":{"$ref":"#/$defs/L%d"}}}`, i, i, i+1, i+1))
	}
	defs = append(defs, fmt.Sprintf(`"L%d":{"type":"string","description":"a leaf"}`, depth))
	return json.RawMessage(`{"type":"object","properties":{"root":{"$ref":"#/$defs/L0"}},"required":["root"],"$defs":{` + strings.Join(defs, ",") + `}}`)
}

// TestRefChainRefused checks that a schema whose references grow exponentially when inlined is
// refused with a clear error once past the budget, instead of becoming a request of megabytes.
func TestRefChainRefused(t *testing.T) {
	schema := refChain(18)
	if len(schema) > 2500 {
		t.Fatalf("the chain is %d bytes, want a small schema", len(schema))
	}
	_, err := toolParameters(schema)
	if !errors.Is(err, jsonobj.ErrTooLarge) {
		t.Fatalf("toolParameters of an 18-level chain: %v, want ErrTooLarge", err)
	}
	for _, want := range []string{"once its references are inlined", "256 KiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Through the request: the tool is named.
	_, err = toolDefinitions(&chat.Options{Tools: []tool.Tool{schemaTool{tool.Definition{Name: "deep", InputSchema: schema}}}})
	if err == nil || !strings.Contains(err.Error(), `ollama: tool "deep": schema too large`) {
		t.Fatalf("request with the chain: %v", err)
	}
}

// schemaTool is a tool with a given definition, which is all a request reads of it.
type schemaTool struct{ def tool.Definition }

func (s schemaTool) Definition() tool.Definition                { return s.def }
func (schemaTool) Metadata() tool.Metadata                      { return tool.Metadata{} }
func (schemaTool) Call(context.Context, string) (string, error) { return "", nil }

// TestRefChainWithinBudget checks that a chain small enough is still inlined whole.
func TestRefChainWithinBudget(t *testing.T) {
	p, err := toolParameters(refChain(5))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(p)
	if n := strings.Count(string(b), `"a leaf"`); n != 32 {
		t.Fatalf("%d leaves inlined, want 32: %s", n, b)
	}
	if strings.Contains(string(b), "$ref") || strings.Contains(string(b), "$defs") {
		t.Fatalf("references left: %s", b)
	}
}

// BenchmarkRefChain measures the conversion of the 18-level chain (refused once past the
// budget) against the baseline of converting a chain of 10 levels, whose 1,024 inlined leaves
// stay within it: the refusal costs about as much as a legitimate schema of the budget's size,
// not the 15 MB the full inlining would build.
func BenchmarkRefChain(b *testing.B) {
	for _, bc := range []struct {
		name   string
		depth  int
		refuse bool
	}{{"depth-10", 10, false}, {"depth-18", 18, true}} {
		schema := refChain(bc.depth)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := toolParameters(schema); (err != nil) != bc.refuse {
					b.Fatal(err)
				}
			}
		})
	}
}
