package mcp

import (
	"context"
	"encoding/json"
	"strings"
	"sync"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
)

// TestElicitationHostile: schemas that are huge, recursive or not a form are declined, as is a
// question with no call to stop; a storm of questions during one call stops it once and answers
// every request at once.
func TestElicitationHostile(t *testing.T) {
	c, err := Connect(t.Context(), ServerConfig{Name: "s", URL: "http://127.0.0.1:1/mcp", InterruptOnElicitation: true}, Deferred())
	if err != nil {
		t.Fatal(err)
	}
	ask := func(ctx context.Context, schema any) string {
		res, err := c.elicit(ctx, &sdk.ElicitRequest{Params: &sdk.ElicitParams{Message: "?", RequestedSchema: schema}})
		if err != nil {
			t.Fatal(err)
		}
		return res.Action
	}
	flat := json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}}}`)
	if a := ask(context.Background(), flat); a != "decline" {
		t.Errorf("no call in flight: %s", a)
	}
	huge := `{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("x", MaxElicitationSchemaBytes) + `"}}}`
	hostile := map[string]any{
		"huge":       json.RawMessage(huge),
		"recursive":  json.RawMessage(`{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"n":{"$ref":"#/$defs/n"}}}`),
		"nested":     json.RawMessage(`{"type":"object","properties":{"o":{"type":"object","properties":{"x":{"type":"string"}}}}}`),
		"not object": json.RawMessage(`{"type":"string"}`),
		"invalid":    json.RawMessage(`{"type":"object","properties":{"x":{"type":7}}}`),
		"not json":   json.RawMessage(`[1,2]`),
	}
	for name, schema := range hostile {
		ctx, cancel := context.WithCancelCause(context.Background())
		ctx, call, end, err := c.startElicitable(ctx, cancel)
		if err != nil {
			t.Fatal(err)
		}
		if a := ask(ctx, schema); a != "decline" || call.interrupted() != nil {
			t.Errorf("%s schema: %s, interrupt %v", name, a, call.interrupted())
		}
		end()
	}

	ctx, cancel := context.WithCancelCause(context.Background())
	ctx, call, end, err := c.startElicitable(ctx, cancel)
	if err != nil {
		t.Fatal(err)
	}
	defer end()
	var wg sync.WaitGroup
	actions := make([]string, 1000)
	for i := range actions {
		wg.Go(func() { actions[i] = ask(ctx, flat) })
	}
	wg.Wait()
	if call.interrupted() == nil || context.Cause(ctx) != errElicited {
		t.Fatalf("the storm did not stop the call: %v", context.Cause(ctx))
	}
	for i, a := range actions {
		if a != "cancel" {
			t.Fatalf("request %d answered %s", i, a)
		}
	}
}
