package gemini

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

// TestConvertSchemaRefChain checks that SchemaSubset, which must inline references, refuses a
// schema whose references grow exponentially, and still converts one within the budget; the
// default SchemaJSON sends the chain as written.
func TestConvertSchemaRefChain(t *testing.T) {
	_, err := ConvertSchema(refChain(18))
	if !errors.Is(err, jsonobj.ErrTooLarge) || !strings.Contains(err.Error(), "256 KiB") {
		t.Fatalf("ConvertSchema of an 18-level chain: %v, want the budget's refusal", err)
	}
	s, err := ConvertSchema(refChain(5))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	if n := strings.Count(string(b), `"a leaf"`); n != 32 {
		t.Fatalf("%d leaves inlined, want 32", n)
	}

	deep := []tool.Tool{schemaTool{tool.Definition{Name: "deep", InputSchema: refChain(18)}}}
	subset, err := New(context.Background(), Config{APIKey: "k", SchemaMode: SchemaSubset})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := subset.request(&chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: deep}}); err == nil || !strings.Contains(err.Error(), `tool "deep"`) {
		t.Fatalf("SchemaSubset request with the chain: %v", err)
	}
	whole, err := New(context.Background(), Config{APIKey: "k"})
	if err != nil {
		t.Fatal(err)
	}
	req, err := whole.request(&chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{Tools: deep}})
	if err != nil {
		t.Fatalf("SchemaJSON request with the chain: %v", err)
	}
	if b, _ := json.Marshal(req.config.Tools); len(b) > 4000 || !strings.Contains(string(b), "$defs") {
		t.Fatalf("SchemaJSON sent %d bytes, want the chain's $defs as written", len(b))
	}
}

// schemaTool is a tool with a given definition, which is all a request reads of it.
type schemaTool struct{ def tool.Definition }

func (s schemaTool) Definition() tool.Definition                { return s.def }
func (schemaTool) Metadata() tool.Metadata                      { return tool.Metadata{} }
func (schemaTool) Call(context.Context, string) (string, error) { return "", nil }

// BenchmarkConvertSchemaRefChain measures the conversion of the 18-level chain (refused once
// past the budget) against the baseline of converting a chain of 10 levels, whose 1,024
// inlined leaves stay within it.
func BenchmarkConvertSchemaRefChain(b *testing.B) {
	for _, bc := range []struct {
		name   string
		depth  int
		refuse bool
	}{{"depth-10", 10, false}, {"depth-18", 18, true}} {
		schema := refChain(bc.depth)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := ConvertSchema(schema); (err != nil) != bc.refuse {
					b.Fatal(err)
				}
			}
		})
	}
}
