package ollama

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/orderedjson"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/tool"
)

// TestRefChainRefused checks that a schema whose references grow exponentially when inlined is
// refused with a clear error once past the budget, instead of becoming a request of megabytes.
func TestRefChainRefused(t *testing.T) {
	schema := providertest.RefChain(18)
	if len(schema) > 2500 {
		t.Fatalf("the chain is %d bytes, want a small schema", len(schema))
	}
	_, err := toolParameters(schema)
	if !errors.Is(err, orderedjson.ErrTooLarge) {
		t.Fatalf("toolParameters of an 18-level chain: %v, want ErrTooLarge", err)
	}
	for _, want := range []string{"once its references are inlined", "256 KiB"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	// Through the request: the tool is named.
	_, err = toolDefinitions(&chat.Options{Tools: []tool.Tool{providertest.RawTool{Name: "deep", InputSchema: schema}}})
	if err == nil || !strings.Contains(err.Error(), `ollama: tool "deep": schema too large`) {
		t.Fatalf("request with the chain: %v", err)
	}
}

// TestRefChainWithinBudget checks that a chain small enough is still inlined whole.
func TestRefChainWithinBudget(t *testing.T) {
	p, err := toolParameters(providertest.RefChain(5))
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
// budget) against the baseline of a chain of 10 levels; see providertest.BenchRefChain.
func BenchmarkRefChain(b *testing.B) {
	providertest.BenchRefChain(b, func(s json.RawMessage) error {
		_, err := toolParameters(s)
		return err
	})
}
