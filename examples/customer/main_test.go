package main

import (
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"

	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestCustomer(t *testing.T) {
	m := scriptedModel()
	out := exampletest.Output(t, func(w io.Writer) error { return run(t.Context(), m, sampleTools(), w) })
	if out != "Customer 42 is Ada Lovelace (ada@acme.example).\n" {
		t.Fatalf("output = %q", out)
	}
	// The tool used the tenant from the tool context: acme's customer 42, not globex's.
	p := m.Prompt(1)
	res := p.Messages[len(p.Messages)-1].ToolResults
	var got Customer
	if len(res) != 1 || json.Unmarshal([]byte(res[0].Content), &got) != nil || got.Name != "Ada Lovelace" || got.Tenant != "acme" {
		t.Fatalf("tool result = %+v", res)
	}
	// The tool context never reached the model (chat.Options has no place for it).
	for i, p := range m.Prompts() {
		b, _ := json.Marshal(p.Messages)
		if strings.Contains(string(b), "tenantId") {
			t.Fatalf("prompt %d mentions the tool context: %s", i, b)
		}
		for _, tl := range p.Options.Tools {
			if strings.Contains(string(tl.Definition().InputSchema), "tenant") {
				t.Fatalf("the tool schema exposes the tenant: %s", tl.Definition().InputSchema)
			}
		}
	}
}

func TestCustomerWithoutTenantEndsTheTurn(t *testing.T) {
	_, err := sampleTools().GetCustomerInfo(context.Background(), CustomerRequest{ID: 42})
	if err == nil || !strings.Contains(err.Error(), "no tenant") {
		t.Fatalf("err = %v", err)
	}
}
