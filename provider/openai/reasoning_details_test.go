package openai

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/provider"
)

// TestEncryptedDetailsKeepThePlainSummary: an answer whose reasoning_details hold only an
// encrypted entry (no text) keeps the plain reasoning field beside it, the only reasoning a
// reader can see; sent back, each goes in the field it came in (details mode: the summary as a
// reasoning.text entry before the encrypted one, as plain text always is).
func TestEncryptedDetailsKeepThePlainSummary(t *testing.T) {
	url, _ := providertest.Variant(t, "chat-reasoning-encrypted-only.json")
	m, err := New(Config{BaseURL: url, APIKey: "test-key", Model: "google/gemini-3-pro-preview", Transport: provider.Transport{MaxRetries: -1}})
	if err != nil {
		t.Fatal(err)
	}
	got, err := m.Call(context.Background(), &chat.Prompt{Messages: []chat.Message{chat.User("Weather in Oslo?")}})
	if err != nil {
		t.Fatal(err)
	}
	rs := providertest.OneGeneration(t, got).Message.Reasoning
	if len(rs) != 2 {
		t.Fatalf("%d reasoning entries, want the plain summary and the encrypted entry: %+v", len(rs), rs)
	}
	if rs[0].Provider != ReasoningProvider(FieldReasoning) || !strings.HasPrefix(rs[0].Text, "The user asks for the weather") || len(rs[0].Text) < 400 {
		t.Errorf("first entry %+v, want the plain summary", rs[0])
	}
	if rs[1].Provider != ReasoningProvider(FieldReasoningDetails) || rs[1].Text != "" || !strings.Contains(rs[1].Encrypted, "reasoning.encrypted") {
		t.Errorf("second entry %+v, want the encrypted detail as it came", rs[1])
	}
	for _, tc := range []struct {
		field string
		want  []string // the members sent back
		n     int      // details sent back
	}{
		{"", []string{FieldReasoning, FieldReasoningDetails}, 1},
		{FieldReasoningDetails, []string{FieldReasoningDetails}, 2},
		{FieldReasoning, []string{FieldReasoning}, 0},
	} {
		out, err := reasoningFields(rs, tc.field)
		if err != nil {
			t.Fatal(err)
		}
		if len(out) != len(tc.want) {
			t.Errorf("field %q: sent back %v, want %v", tc.field, out, tc.want)
		}
		for _, k := range tc.want {
			if out[k] == nil {
				t.Errorf("field %q: %s not sent back: %v", tc.field, k, out)
			}
		}
		if d, _ := out[FieldReasoningDetails].([]json.RawMessage); len(d) != tc.n {
			t.Errorf("field %q: %d details sent back, want %d", tc.field, len(d), tc.n)
		}
	}
}
