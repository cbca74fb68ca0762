package agui

import (
	"encoding/json"
	"testing"

	wmcp "github.com/wield-ai/wield/mcp"
)

// TestElicitationDataIsMCPs: the handler reads and writes the JSON of mcp's elicitation types
// without importing mcp; the two must agree field for field.
func TestElicitationDataIsMCPs(t *testing.T) {
	e := wmcp.Elicitation{Server: "s", Mode: "form", Message: "m", RequestedSchema: json.RawMessage(`{"type":"object"}`), URL: "u"}
	a := wmcp.ElicitationAnswer{Action: "accept", Content: map[string]any{"k": "v"}}
	for _, tc := range []struct{ theirs, ours any }{{&e, &elicitationData{}}, {&a, &elicitationAnswerData{}}} {
		raw, _ := json.Marshal(tc.theirs)
		if err := json.Unmarshal(raw, tc.ours); err != nil {
			t.Fatal(err)
		}
		back, _ := json.Marshal(tc.ours)
		if string(back) != string(raw) {
			t.Fatalf("ours %s, mcp's %s", back, raw)
		}
	}
	if maxElicitationSchemaBytes != wmcp.MaxElicitationSchemaBytes {
		t.Fatal("the schema bound differs from mcp's")
	}
}
