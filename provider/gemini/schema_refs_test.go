package gemini

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/orderedjson"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/tool"
)

// TestConvertSchemaRefChain checks that SchemaSubset, which must inline references, refuses a
// schema whose references grow exponentially, and still converts one within the budget; the
// default SchemaJSON sends the chain as written.
func TestConvertSchemaRefChain(t *testing.T) {
	_, err := ConvertSchema(providertest.RefChain(18))
	if !errors.Is(err, orderedjson.ErrTooLarge) || !strings.Contains(err.Error(), "256 KiB") {
		t.Fatalf("ConvertSchema of an 18-level chain: %v, want the budget's refusal", err)
	}
	s, err := ConvertSchema(providertest.RefChain(5))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := json.Marshal(s)
	if n := strings.Count(string(b), `"a leaf"`); n != 32 {
		t.Fatalf("%d leaves inlined, want 32", n)
	}

	deep := []tool.Tool{providertest.RawTool{Name: "deep", InputSchema: providertest.RefChain(18)}}
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

// BenchmarkConvertSchemaRefChain measures the conversion of the 18-level chain (refused once
// past the budget) against the baseline of a chain of 10 levels; see providertest.BenchRefChain.
func BenchmarkConvertSchemaRefChain(b *testing.B) {
	providertest.BenchRefChain(b, func(s json.RawMessage) error {
		_, err := ConvertSchema(s)
		return err
	})
}
