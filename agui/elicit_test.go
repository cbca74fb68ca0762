package agui_test

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/agui"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

const seatsSchema = `{"type":"object","properties":{"seats":{"type":"integer","minimum":1,"maximum":9},"name":{"type":"string","maxLength":40}},"required":["seats"]}`

// bookingServer is an MCP server whose tool "book" asks for seats and says what it was answered.
func bookingServer(runs *atomic.Int32) *sdk.Server {
	return mcptest.AskingServer("booking", "book", &sdk.ElicitParams{Message: "How many seats?", RequestedSchema: json.RawMessage(seatsSchema)}, runs)
}

// elicitFixture is a handler whose client has the booking server's tool and a scripted model
// that calls it once, then answers with the tool's result.
func elicitFixture(t *testing.T, cfg agui.Config, tools ...tool.Tool) (*fixture, *atomic.Int32) {
	t.Helper()
	runs := &atomic.Int32{}
	mc := mcptest.InMemory("booking", bookingServer(runs))
	mc.InterruptOnElicitation = true
	list, err := mcptest.Connect(t, mc).Tools(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	m := chattest.New(chattest.Calls(chat.ToolCall{ID: "b1", Name: "book", Arguments: `{}`}), chattest.Text("Booked.")).WithChunkSize(5)
	repo := memory.NewInMemory()
	c := clienttest.New(t, m, client.WithTools(append(list, tools...)),
		client.WithAdvisors(memory.NewAdvisor(memory.NewWindow(repo, 100), memory.AdvisorConfig{})))
	f := (&fixture{model: m, repo: repo}).serve(t, cfg, c)
	return f, runs
}

func resumeInput(thread, run, id, status string, payload any) map[string]any {
	in := input(thread, run, "")
	e := map[string]any{"interruptId": id, "status": status}
	if payload != nil {
		e["payload"] = payload
	}
	in["resume"] = []any{e}
	return in
}

// refused posts a run that must be refused with status, saying want.
func refused(t *testing.T, f *fixture, in any, status int, want string) {
	t.Helper()
	resp := post(t, f.srv.URL, in)
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	if resp.StatusCode != status || !strings.Contains(string(b), want) {
		t.Fatalf("status %d %q, want %d %q", resp.StatusCode, b, status, want)
	}
}

// An MCP server's question during a tool call ends the run with an interrupt carrying the
// server's message and requested schema; an answer off the schema, or of an unknown action, is
// refused before anything runs; an accepted answer goes to the server when the call is made
// again, and the turn goes on.
func TestElicitation(t *testing.T) {
	f, runs := elicitFixture(t, agui.Config{})
	evs := run(t, f, input("t-el", "r1", "book me seats"))
	in := interrupts(t, evs)
	if len(in) != 1 || in[0]["reason"] != agui.ReasonElicitation || in[0]["message"] != "How many seats?" || in[0]["id"] != "b1" || in[0]["toolCallId"] != "b1" {
		t.Fatalf("interrupts %v", in)
	}
	md := in[0]["metadata"].(map[string]any)
	rs, _ := json.Marshal(md["requestedSchema"])
	if md["server"] != "booking" || md["tool"] != "book" || !strings.Contains(string(rs), `"seats"`) {
		t.Fatalf("metadata %v", md)
	}
	resp, _ := json.Marshal(in[0]["responseSchema"])
	if !strings.Contains(string(resp), `"enum":["accept","decline","cancel"]`) || !strings.Contains(string(resp), `"maximum":9`) {
		t.Fatalf("responseSchema %s", resp)
	}
	// The state's pending call says the same.
	snap := evs[len(evs)-2]
	if snap.kind() != "STATE_DELTA" || !strings.Contains(fmt.Sprint(snap["delta"]), agui.ReasonElicitation) {
		t.Fatalf("state %v", snap)
	}
	before := runs.Load()
	refused(t, f, resumeInput("t-el", "r2", "b1", "resolved", map[string]any{"action": "accept", "content": map[string]any{"seats": 0}}), http.StatusBadRequest, "requested schema")
	refused(t, f, resumeInput("t-el", "r2", "b1", "resolved", map[string]any{"action": "accept", "content": map[string]any{"seats": 2, "name": strings.Repeat("n", 41)}}), http.StatusBadRequest, "requested schema")
	refused(t, f, resumeInput("t-el", "r2", "b1", "resolved", map[string]any{"action": "maybe"}), http.StatusBadRequest, "accept, decline or cancel")
	refused(t, f, resumeInput("t-el", "r2", "b1", "resolved", map[string]any{"action": "accept", "content": "3 seats"}), http.StatusBadRequest, "not a JSON object")
	if runs.Load() != before || f.model.Requests() != 1 {
		t.Fatalf("refused answers ran the tool %d times, the model %d", runs.Load()-before, f.model.Requests()-1)
	}
	evs = run(t, f, resumeInput("t-el", "r2", "b1", "resolved", map[string]any{"action": "accept", "content": map[string]any{"seats": 3}}))
	var result string
	for _, e := range evs {
		if e.kind() == "TOOL_CALL_RESULT" {
			result = e["content"].(string)
		}
	}
	if last := evs[len(evs)-1]; result != `accept {"seats":3}` || last["result"] != "Booked." {
		t.Fatalf("result %q, last %v", result, last)
	}
	if res := f.model.ToolResults(t, 1); len(res) != 1 || res[0].Content != `accept {"seats":3}` {
		t.Fatalf("the model read %v", res)
	}
}

// Declining answers the server "decline"; a cancelled resume entry answers "cancel".
func TestElicitationDeclineAndCancel(t *testing.T) {
	for _, c := range []struct {
		status  string
		payload any
		want    string
	}{
		{"resolved", map[string]any{"action": "decline", "content": map[string]any{"seats": 3}}, "decline null"},
		{"cancelled", nil, "cancel null"},
		{"resolved", map[string]any{"action": "cancel"}, "cancel null"},
	} {
		f, _ := elicitFixture(t, agui.Config{})
		interrupts(t, run(t, f, input("t-d", "r1", "book")))
		run(t, f, resumeInput("t-d", "r2", "b1", c.status, c.payload))
		if res := f.model.ToolResults(t, 1); len(res) != 1 || res[0].Content != c.want {
			t.Errorf("%s %v: the model read %v, want %q", c.status, c.payload, res, c.want)
		}
	}
}

// An answer over the handler's input limit is refused whole, and the question still waits.
func TestElicitationOversizedAnswer(t *testing.T) {
	f, runs := elicitFixture(t, agui.Config{MaxRequestBytes: 8 << 10})
	interrupts(t, run(t, f, input("t-big", "r1", "book")))
	refused(t, f, resumeInput("t-big", "r2", "b1", "resolved", map[string]any{"action": "accept", "content": map[string]any{"seats": 2, "name": strings.Repeat("n", 9<<10)}}),
		http.StatusRequestEntityTooLarge, "over")
	if runs.Load() != 1 {
		t.Fatalf("the tool ran %d times", runs.Load())
	}
	evs := run(t, f, resumeInput("t-big", "r3", "b1", "resolved", map[string]any{"action": "accept", "content": map[string]any{"seats": 2}}))
	if last := evs[len(evs)-1]; last["result"] != "Booked." {
		t.Fatalf("last %v", last)
	}
}

// A question whose schema is hostile (nested, references, too many fields, another type, too
// large) is shown without a form: it can be declined or cancelled, never accepted.
func TestElicitationHostileSchema(t *testing.T) {
	many := map[string]any{}
	for i := range 100 {
		many[fmt.Sprintf("f%d", i)] = map[string]any{"type": "string"}
	}
	manyJSON, _ := json.Marshal(map[string]any{"type": "object", "properties": many})
	for name, schema := range map[string]string{
		"nested":     `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`,
		"reference":  `{"type":"object","properties":{"a":{"$ref":"#/$defs/x"}},"$defs":{"x":{"type":"string"}}}`,
		"many":       string(manyJSON),
		"not object": `{"type":"string"}`,
		"large":      `{"type":"object","properties":{"a":{"type":"string","description":"` + strings.Repeat("d", 70<<10) + `"}}}`,
		"not json":   `{"type":`,
	} {
		t.Run(name, func(t *testing.T) {
			data, _ := json.Marshal(map[string]any{"server": "evil", "message": "Tell me", "requestedSchema": json.RawMessage(schema)})
			if !json.Valid([]byte(schema)) {
				data = []byte(`{"server":"evil","message":"Tell me","requestedSchema":"` + strings.ReplaceAll(schema, `"`, `\"`) + `"}`)
			}
			var runs atomic.Int32
			evil := chattest.NewTool("evil", func(ctx context.Context, _ string) (string, error) {
				runs.Add(1)
				if r, ok := toolcall.Resumed(ctx); ok {
					return "answered " + string(r.Data), nil
				}
				return "", &toolcall.InterruptError{Message: "Tell me", Data: data}
			})
			m := chattest.New(chattest.Calls(chat.ToolCall{ID: "e1", Name: "evil", Arguments: `{}`}), chattest.Text("Done."))
			c := clienttest.New(t, m, client.WithTools(evil))
			f := (&fixture{model: m}).serve(t, agui.Config{}, c)
			in := interrupts(t, run(t, f, input("t-h", "r1", "go")))
			if len(in) != 1 {
				t.Fatalf("interrupts %v", in)
			}
			md := in[0]["metadata"].(map[string]any)
			if in[0]["reason"] == agui.ReasonElicitation {
				if md["requestedSchema"] != nil || md["schemaError"] == "" || md["schemaError"] == nil {
					t.Fatalf("a hostile schema offered as a form: %v", md)
				}
				refused(t, f, resumeInput("t-h", "r2", "e1", "resolved", map[string]any{"action": "accept", "content": map[string]any{}}), http.StatusBadRequest, "cannot accept")
				run(t, f, resumeInput("t-h", "r2", "e1", "resolved", map[string]any{"action": "decline"}))
				if res := m.ToolResults(t, 1); len(res) != 1 || res[0].Content != `answered {"action":"decline"}` {
					t.Fatalf("the model read %v", res)
				}
			} else if name != "not json" { // data that is not an elicitation is a plain interrupt
				t.Fatalf("reason %v", in[0]["reason"])
			}
		})
	}
}
