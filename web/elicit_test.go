package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/chromedp/chromedp"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

const seatsSchema = `{"type":"object","properties":{
	"seats":{"type":"integer","title":"Seats","description":"How many people","minimum":1,"maximum":9},
	"class":{"type":"string","title":"Class","oneOf":[{"const":"eco","title":"Economy"},{"const":"biz","title":"Business"}]},
	"email":{"type":"string","title":"Email","format":"email"},
	"meals":{"type":"array","title":"Meals","items":{"type":"string","enum":["veg","fish","none"]},"maxItems":2},
	"window":{"type":"boolean","title":"Window seat","default":true}},
	"required":["seats","email"]}`

// bookingTool is the tool "book" of an MCP server that asks for its booking (an elicitation) and
// says what it was answered; runs counts its calls.
func bookingTool(t *testing.T, runs *atomic.Int32) tool.Tool {
	t.Helper()
	s := mcptest.AskingServer("booking", "book", &sdk.ElicitParams{Message: "Which seats?", RequestedSchema: json.RawMessage(seatsSchema)}, runs)
	cfg := mcptest.InMemory("booking", s)
	cfg.InterruptOnElicitation = true
	tools, err := mcptest.Connect(t, cfg).Tools(context.Background())
	if err != nil || len(tools) != 1 {
		t.Fatalf("tools %v %v", tools, err)
	}
	return tools[0]
}

// bookingAsks opens a page of width×height on a turn whose model calls bookingTool's book, and
// then says final; the page approves the call, after which the server asks its question. runs
// counts the tool's calls.
func bookingAsks(t *testing.T, final string, width, height int) (*fixture, context.Context, *atomic.Int32) {
	t.Helper()
	runs := new(atomic.Int32)
	f := newFixture(t, []tool.Tool{bookingTool(t, runs)},
		chattest.Calls(chat.ToolCall{ID: "b1", Name: "book", Arguments: `{}`}), chattest.Text(final))
	c := browser(t, width, height)
	// The server's tool is destructive, as MCP's defaults make it: approved first, it asks.
	must(t, c, chromedp.Navigate(f.url()), ask("Book me seats"), waitText(".approval", "Run book?"),
		chromedp.Click(".approval .approve", chromedp.ByQuery))
	return f, c, runs
}

// An MCP server's question during a tool call shows as a form made from the schema it requested;
// values the schema refuses are refused in the page, and the answer resumes the turn: the server
// gets it when the call is made again.
func TestPageElicitation(t *testing.T) {
	f, c, runs := bookingAsks(t, "Booked.", 1280, 800)
	must(t, c, waitText(".approval", "booking asks (during book): Which seats?"),
		waitText(`.call[data-tool="book"] .state`, "asks a question"),
		waitText(".approval .schema-form", "Seats *"), waitText(".approval .schema-form", "How many people"))
	var focused bool
	must(t, c, chromedp.Evaluate(`document.activeElement === document.querySelector(".approval .schema-form").querySelector("input, select")`, &focused))
	if !focused {
		t.Error("focus is not on the form's first field")
	}
	var window bool
	must(t, c, chromedp.Evaluate(`document.querySelector('.schema-form [name="window"]').checked`, &window))
	if !window {
		t.Error("the default of the window field is not taken")
	}
	must(t, c, setValue(`.schema-form [name="seats"]`, "12"), setValue(`.schema-form [name="email"]`, "not an address"),
		chromedp.Evaluate(`for (const o of document.querySelector('.schema-form [name="meals"]').options) o.selected = true`, nil),
		chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery),
		waitText(".schema-form", "At most 9."), waitText(".schema-form", "Not an email address."), waitText(".schema-form", "Choose at most 2."))
	screenshot(t, c, "elicitation-refused")
	if runs.Load() != 1 || f.script.Requests() != 1 {
		t.Fatalf("refused values went on: the tool ran %d times, the model %d", runs.Load(), f.script.Requests())
	}
	must(t, c, setValue(`.schema-form [name="seats"]`, "3"), setValue(`.schema-form [name="email"]`, "ann@example.com"),
		chromedp.Evaluate(`{ const m = document.querySelector('.schema-form [name="meals"]'); for (const o of m.options) o.selected = o.value === '"veg"'; }`, nil),
		chromedp.SetValue(`.schema-form [name="class"]`, `"biz"`, chromedp.ByQuery),
		chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery),
		waitText(".msg.assistant", "Booked."), waitText(`.call[data-tool="book"] .result`, "accept"))
	var result string
	must(t, c, chromedp.Text(`.call[data-tool="book"] .result`, &result, chromedp.ByQuery))
	var got map[string]any
	if !strings.HasPrefix(result, "accept ") || json.Unmarshal([]byte(strings.TrimPrefix(result, "accept ")), &got) != nil ||
		got["seats"] != float64(3) || got["email"] != "ann@example.com" || got["class"] != "biz" || got["window"] != true || fmt.Sprint(got["meals"]) != "[veg]" {
		t.Fatalf("the server got %q", result)
	}
}

// Declining answers the server so; the turn goes on.
func TestPageElicitationDecline(t *testing.T) {
	f, c, _ := bookingAsks(t, "Not booked.", 390, 844)
	must(t, c, chromedp.WaitVisible(".approval .decline", chromedp.ByQuery), chromedp.Click(".approval .decline", chromedp.ByQuery),
		waitText(".msg.assistant", "Not booked."), waitText(`.call[data-tool="book"] .result`, "decline"))
	if res := f.script.ToolResults(t, 1); len(res) != 1 || res[0].Content != "decline null" {
		t.Fatalf("the model read %v", res)
	}
}

// A hostile requested schema: field names that are JavaScript's own (__proto__, constructor),
// markup in titles and descriptions, a pattern that would take forever, non-object property
// schemas. The form shows the text as text, sends the fields by their names, and the page stays
// responsive; a schema wield refuses (nested fields) gets no form, only decline and cancel.
func TestPageElicitationHostileSchema(t *testing.T) {
	hostile := `{"type":"object","properties":{
		"__proto__":{"type":"string","title":"<img src=x onerror=window.pwned=1>","description":"<b>bold</b>"},
		"constructor":{"type":"string","pattern":"^(a+)+$"},
		"odd":{"type":"string","enum":["<i>x</i>","y"]}},"required":["__proto__"]}`
	nested := `{"type":"object","properties":{"a":{"type":"object","properties":{"b":{"type":"string"}}}}}`
	asked := 0
	var answers []string
	ask2 := chattest.NewTool("ask_user", func(ctx context.Context, _ string) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			answers = append(answers, string(r.Data))
			return "answered", nil
		}
		asked++
		schema := hostile
		if asked > 1 {
			schema = nested
		}
		data, _ := json.Marshal(map[string]any{"server": "evil", "message": "Tell me", "requestedSchema": json.RawMessage(schema)})
		return "", &toolcall.InterruptError{Message: "Tell me", Data: data}
	}).WithMetadata(tool.Metadata{ReadOnly: true})
	f := newFixture(t, []tool.Tool{ask2},
		chattest.Calls(chat.ToolCall{ID: "a1", Name: "ask_user", Arguments: `{}`}), chattest.Text("First answered."),
		chattest.Calls(chat.ToolCall{ID: "a2", Name: "ask_user", Arguments: `{}`}), chattest.Text("Second declined."))
	c := browser(t, 1280, 800)
	must(t, c, chromedp.Navigate(f.url()), ask("Ask me"),
		waitText(".approval .schema-form", "<img src=x onerror=window.pwned=1>"), waitText(".approval .schema-form", "<b>bold</b>"))
	var marked bool
	must(t, c, chromedp.Evaluate(`!!document.querySelector(".approval img, .approval b, .approval i") || !!window.pwned`, &marked))
	if marked {
		t.Fatal("the schema's markup became elements")
	}
	must(t, c, setValue(`.schema-form [name="__proto__"]`, "p"), setValue(`.schema-form [name="constructor"]`, strings.Repeat("a", 40)+"!"),
		chromedp.SetValue(`.schema-form [name="odd"]`, `"<i>x</i>"`, chromedp.ByQuery),
		chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery),
		// The page leaves patterns to the server (whose expressions run in linear time): it
		// refuses, and the question is asked again with nothing lost.
		waitText("#status", "does not match"), waitText(".approval", "evil asks"),
		setValue(`.schema-form [name="__proto__"]`, "p"), setValue(`.schema-form [name="constructor"]`, strings.Repeat("a", 40)),
		chromedp.SetValue(`.schema-form [name="odd"]`, `"<i>x</i>"`, chromedp.ByQuery),
		chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery), waitText(".msg.assistant", "First answered."))
	if len(answers) != 1 {
		t.Fatalf("answers %q", answers)
	}
	var a struct {
		Action  string
		Content map[string]any
	}
	if json.Unmarshal([]byte(answers[0]), &a) != nil || a.Action != "accept" || a.Content["__proto__"] != "p" ||
		a.Content["constructor"] != strings.Repeat("a", 40) || a.Content["odd"] != "<i>x</i>" || len(a.Content) != 3 {
		t.Fatalf("the answer %s", answers[0])
	}
	must(t, c, ask("Ask again"), waitText(".approval", "cannot be shown"))
	var forms int
	must(t, c, chromedp.Evaluate(`document.querySelectorAll(".approval form").length`, &forms))
	if forms != 0 {
		t.Fatal("a refused schema got a form")
	}
	screenshot(t, c, "elicitation-refused-schema")
	must(t, c, chromedp.Click(".approval .decline", chromedp.ByQuery), waitText("#log", "Second declined."))
	if len(answers) != 2 || answers[1] != `{"action":"decline"}` {
		t.Fatalf("answers %q", answers)
	}
}

// An answer over the page server's limit is refused whole: the page says so and asks again, and
// a smaller answer then goes through.
func TestPageElicitationOversizedAnswer(t *testing.T) {
	var answers []string
	noteTool := chattest.NewTool("ask_user", func(ctx context.Context, _ string) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			answers = append(answers, string(r.Data))
			return "answered", nil
		}
		data, _ := json.Marshal(map[string]any{"server": "notes", "message": "Your note?", "requestedSchema": json.RawMessage(`{"type":"object","properties":{"note":{"type":"string"}},"required":["note"]}`)})
		return "", &toolcall.InterruptError{Message: "Your note?", Data: data}
	}).WithMetadata(tool.Metadata{ReadOnly: true})
	f := newFixture(t, []tool.Tool{noteTool}, chattest.Calls(chat.ToolCall{ID: "n1", Name: "ask_user", Arguments: `{}`}), chattest.Text("Noted."))
	c := browser(t, 1280, 800)
	must(t, c, chromedp.Navigate(f.url()), ask("Take a note"), chromedp.WaitVisible(`.schema-form [name="note"]`, chromedp.ByQuery),
		chromedp.Evaluate(`document.querySelector('.schema-form [name="note"]').value = "n".repeat(70 * 1024)`, nil),
		chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery),
		waitText("#status", "413"), chromedp.WaitVisible(`.schema-form [name="note"]`, chromedp.ByQuery))
	if len(answers) != 0 || f.script.Requests() != 1 {
		t.Fatalf("an oversized answer went on: %d answers, %d model requests", len(answers), f.script.Requests())
	}
	must(t, c, setValue(`.schema-form [name="note"]`, "short"), chromedp.Click(`.schema-form button[type="submit"]`, chromedp.ByQuery),
		waitText("#log", "Noted."))
	if len(answers) != 1 || answers[0] != `{"action":"accept","content":{"note":"short"}}` {
		t.Fatalf("answers %q", answers)
	}
}
