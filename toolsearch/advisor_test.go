package toolsearch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/schema"
	"github.com/wield-ai/wield/tool"
)

type cityIn struct {
	City string `json:"city" jsonschema:"Name of the city"`
}

type tickerIn struct {
	Ticker string `json:"ticker" jsonschema:"Stock ticker symbol"`
}

// calls counts the calls of the catalog's tools by name.
type calls struct {
	mu sync.Mutex
	n  map[string]int
}

func (c *calls) add(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.n == nil {
		c.n = map[string]int{}
	}
	c.n[name]++
}

func (c *calls) get(name string) int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.n[name]
}

// testCatalog returns real tools: a weather forecast, a stock price, an email sender and
// fillers, recording their calls in c.
func testCatalog(t testing.TB, c *calls) []tool.Tool {
	t.Helper()
	must := func(tl tool.Tool, err error) tool.Tool {
		if err != nil {
			t.Fatal(err)
		}
		return tl
	}
	tools := []tool.Tool{
		must(tool.Func("getWeatherForecast", "Returns the weather forecast for a city.",
			func(_ context.Context, in cityIn) (string, error) {
				c.add("getWeatherForecast")
				return "sunny in " + in.City, nil
			})),
		must(tool.Func("get_stock_price", "Current price of a stock on an exchange.",
			func(_ context.Context, in tickerIn) (string, error) {
				c.add("get_stock_price")
				return in.Ticker + " is at 42", nil
			})),
		must(tool.Func("send-email", "Sends an email message to a recipient.",
			func(_ context.Context, in struct {
				To string `json:"to"`
			}) (string, error) {
				c.add("send-email")
				return "sent", nil
			})),
	}
	for i := range 20 {
		tools = append(tools, must(tool.Func(fmt.Sprintf("filler%02d", i), fmt.Sprintf("Does unrelated thing number %d.", i),
			func(context.Context, struct{}) (string, error) { return "", nil })))
	}
	return tools
}

func toolNamesOf(p *chat.Prompt) []string {
	var out []string
	for _, t := range p.Options.Tools {
		out = append(out, t.Definition().Name)
	}
	return out
}

func lastToolResult(p *chat.Prompt) (chat.ToolResult, bool) {
	for i := len(p.Messages) - 1; i >= 0; i-- {
		if m := p.Messages[i]; m.Role == chat.RoleTool && len(m.ToolResults) > 0 {
			return m.ToolResults[len(m.ToolResults)-1], true
		}
	}
	return chat.ToolResult{}, false
}

func reply(msg chat.Message) *chat.Response {
	fr := chat.FinishStop
	if len(msg.ToolCalls) > 0 {
		fr = chat.FinishToolCalls
	}
	return &chat.Response{Generations: []chat.Generation{{Message: msg, FinishReason: fr}}}
}

// agent is a scripted model that behaves like a model using tool search: it searches with the
// query, calls the first tool it was given whose name contains want, and answers with that
// tool's result. It decides from the prompt alone, so it serves concurrent conversations.
func agent(query, want, args string) chattest.Reply {
	return chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		last := p.Messages[len(p.Messages)-1]
		if last.Role == chat.RoleUser {
			return reply(chat.Assistant("", chattest.Call(SearchToolName, fmt.Sprintf(`{"query":%q}`, query)))), nil
		}
		res, _ := lastToolResult(p)
		if res.Name == SearchToolName {
			for _, n := range toolNamesOf(p) {
				if strings.Contains(n, want) {
					return reply(chat.Assistant("", chattest.Call(n, args))), nil
				}
			}
			return reply(chat.Assistant("no tool found: " + res.Content)), nil
		}
		return reply(chat.Assistant("answer: " + res.Content)), nil
	})
}

func TestEndToEnd(t *testing.T) {
	var c calls
	model := chattest.New(agent("weather forecast", "Weather", `{"city":"Paris"}`)).Repeat()
	adv := New(Config{})
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	got, err := cl.Prompt("What's the weather in Paris?").System("You are helpful.").Tools(toTools(testCatalog(t, &c))...).
		Param(client.ParamConversationID, "conv-1").Call(context.Background()).Content()
	if err != nil {
		t.Fatal(err)
	}
	if got != "answer: sunny in Paris" {
		t.Errorf("answer %q", got)
	}
	if c.get("getWeatherForecast") != 1 {
		t.Errorf("weather tool called %d times", c.get("getWeatherForecast"))
	}
	ps := model.Prompts()
	if len(ps) != 3 {
		t.Fatalf("%d model calls, want 3 (search, call, answer)", len(ps))
	}
	// First request: the search tool only, and the system prompt says how to use it.
	if names := toolNamesOf(ps[0]); !slices.Equal(names, []string{SearchToolName}) {
		t.Errorf("first request's tools %v", names)
	}
	if sys := ps[0].Messages[0]; sys.Role != chat.RoleSystem || !strings.HasPrefix(sys.Content, "You are helpful.") ||
		!strings.Contains(sys.Content, DefaultSystemPrompt) {
		t.Errorf("system message %+v", sys)
	}
	// Second request: the search's results were added, and the model saw their names.
	names := toolNamesOf(ps[1])
	if names[0] != SearchToolName || !slices.Contains(names, "getWeatherForecast") || len(names) > 1+DefaultMaxResults {
		t.Errorf("second request's tools %v", names)
	}
	if res, _ := lastToolResult(ps[1]); !strings.Contains(res.Content, "getWeatherForecast") || res.IsError {
		t.Errorf("search result %+v", res)
	}
	// Third request: the system prompt suffix is still there once.
	if n := strings.Count(ps[2].Messages[0].Content, DefaultSystemPrompt); n != 1 {
		t.Errorf("system prompt suffix appears %d times", n)
	}
	if adv.sessions.len() != 1 {
		t.Errorf("%d sessions", adv.sessions.len())
	}
}

func toTools(ts []tool.Tool) []any {
	out := make([]any, len(ts))
	for i, t := range ts {
		out[i] = t
	}
	return out
}

func TestEndToEndStream(t *testing.T) {
	var c calls
	model := chattest.New(agent("stock price", "stock", `{"ticker":"ACME"}`)).Repeat().WithChunkSize(3)
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{})))
	s := cl.Prompt("How much is ACME?").Tools(toTools(testCatalog(t, &c))...).Stream(context.Background())
	var text strings.Builder
	for piece, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
		text.WriteString(piece)
	}
	if text.String() != "answer: ACME is at 42" || c.get("get_stock_price") != 1 {
		t.Errorf("streamed %q, stock tool called %d times", text.String(), c.get("get_stock_price"))
	}
	if names := toolNamesOf(model.Prompt(0)); !slices.Equal(names, []string{SearchToolName}) {
		t.Errorf("first streamed request's tools %v", names)
	}
}

func TestDiscoveredAccumulateOverTheTurn(t *testing.T) {
	var c calls
	model := chattest.New(
		chattest.Calls(chattest.Call(SearchToolName, `{"query":"weather forecast","maxResults":1}`)),
		chattest.Calls(chattest.Call(SearchToolName, `{"query":"stock price","maxResults":1}`)),
		chattest.Calls(chattest.Call("getWeatherForecast", `{"city":"Rome"}`), chattest.Call("get_stock_price", `{"ticker":"X"}`)),
		chattest.Text("done"),
		// The next turn starts from the search tool again.
		chattest.Text("second turn"),
	)
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{})))
	tools := toTools(testCatalog(t, &c))
	if _, err := cl.Prompt("weather and stocks").Tools(tools...).Param(client.ParamConversationID, "c").Call(context.Background()).Content(); err != nil {
		t.Fatal(err)
	}
	want := [][]string{
		{SearchToolName},
		{SearchToolName, "getWeatherForecast"},
		{SearchToolName, "getWeatherForecast", "get_stock_price"},
		{SearchToolName, "getWeatherForecast", "get_stock_price"},
	}
	for i, w := range want {
		if got := toolNamesOf(model.Prompt(i)); !slices.Equal(got, w) {
			t.Errorf("request %d: tools %v, want %v", i, got, w)
		}
	}
	if c.get("getWeatherForecast") != 1 || c.get("get_stock_price") != 1 {
		t.Errorf("calls %v", c.n)
	}
	if _, err := cl.Prompt("again").Tools(tools...).Param(client.ParamConversationID, "c").Call(context.Background()).Content(); err != nil {
		t.Fatal(err)
	}
	if got := toolNamesOf(model.Prompt(4)); !slices.Equal(got, []string{SearchToolName}) {
		t.Errorf("next turn starts with %v", got)
	}
}

func TestPinned(t *testing.T) {
	var c calls
	model := chattest.New(chattest.Text("a"), chattest.Text("b"), chattest.Text("c"))
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{Pinned: []string{"send-email"}})))
	tools := toTools(testCatalog(t, &c))
	ctx := context.Background()
	if _, err := cl.Prompt("x").Tools(tools...).Call(ctx).Content(); err != nil {
		t.Fatal(err)
	}
	if got := toolNamesOf(model.Prompt(0)); !slices.Equal(got, []string{"send-email", SearchToolName}) {
		t.Errorf("config pin: %v", got)
	}
	if _, err := cl.Prompt("x").Tools(tools...).Param(ParamPinnedTools, []string{"filler03"}).Call(ctx).Content(); err != nil {
		t.Fatal(err)
	}
	if got := toolNamesOf(model.Prompt(1)); !slices.Equal(got, []string{"send-email", "filler03", SearchToolName}) {
		t.Errorf("param pin: %v", got)
	}
	if _, err := cl.Prompt("x").Tools(tools...).Options(&chat.Options{ToolChoice: "get_stock_price"}).Call(ctx).Content(); err != nil {
		t.Fatal(err)
	}
	if got := toolNamesOf(model.Prompt(2)); !slices.Contains(got, "get_stock_price") {
		t.Errorf("ToolChoice tool not sent: %v", got)
	}
	if _, err := cl.Prompt("x").Tools(tools...).Param(ParamPinnedTools, 3).Call(ctx).Content(); err == nil || !strings.Contains(err.Error(), ParamPinnedTools) {
		t.Errorf("bad pin parameter: %v", err)
	}
}

// countingIndex counts what the advisor asks of its index.
type countingIndex struct {
	Index
	indexed, cleared atomic.Int64
	fail             atomic.Bool
}

func (c *countingIndex) IndexTools(ctx context.Context, session string, defs []tool.Definition) error {
	if c.fail.Load() {
		return errors.New("index unavailable")
	}
	c.indexed.Add(1)
	return c.Index.IndexTools(ctx, session, defs)
}

func (c *countingIndex) Clear(ctx context.Context, session string) error {
	c.cleared.Add(1)
	return c.Index.Clear(ctx, session)
}

func TestReindexOnlyWhenToolsChange(t *testing.T) {
	var c calls
	ix := &countingIndex{Index: NewKeywordIndex(nil)}
	model := chattest.New(chattest.Text("ok")).Repeat()
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{Index: ix})))
	base := testCatalog(t, &c)
	turn := func(tools []tool.Tool) {
		t.Helper()
		if _, err := cl.Prompt("x").Tools(toTools(tools)...).Param(client.ParamConversationID, "s").Call(context.Background()).Content(); err != nil {
			t.Fatal(err)
		}
	}
	turn(base)
	turn(base)
	reordered := slices.Clone(base)
	slices.Reverse(reordered)
	turn(reordered)
	if n := ix.indexed.Load(); n != 1 {
		t.Fatalf("indexed %d times for one tool set, want 1", n)
	}
	// A new schema with the same name and description: the index reads parameter docs.
	schemaChanged := slices.Clone(base)
	schemaChanged[0] = tool.Must(tool.Func("getWeatherForecast", "Returns the weather forecast for a city.",
		func(context.Context, tickerIn) (string, error) { return "", nil }))
	turn(schemaChanged)
	descChanged := slices.Clone(base)
	descChanged[0] = tool.Must(tool.Func("getWeatherForecast", "Returns tomorrow's weather.",
		func(context.Context, cityIn) (string, error) { return "", nil }))
	turn(descChanged)
	turn(base[1:])
	// Each change leaves the set before unused: it is cleared.
	if n, cl := ix.indexed.Load(), ix.cleared.Load(); n != 4 || cl != 3 {
		t.Errorf("indexed %d times, cleared %d; want 4 (a schema and a description changed, a tool removed) and 3", n, cl)
	}
}

// setIDs returns the index sessions of the advisor's tool sets.
func setIDs(a *Advisor) []string {
	a.sets.mu.Lock()
	defer a.sets.mu.Unlock()
	var out []string
	for id := range a.sets.byID {
		out = append(out, id)
	}
	slices.Sort(out)
	return out
}

func TestSessionsShareIdenticalToolSets(t *testing.T) {
	var c calls
	ctx := context.Background()
	ix := &countingIndex{Index: NewKeywordIndex(nil)}
	adv := New(Config{Index: ix, Eviction: LRU(2)})
	model := chattest.New(chattest.Text("ok")).Repeat()
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	tools := toTools(testCatalog(t, &c))
	call := func(conv string, tools []any) {
		t.Helper()
		if _, err := cl.Prompt("x").Tools(tools...).Param(client.ParamConversationID, conv).Call(ctx).Content(); err != nil {
			t.Fatal(err)
		}
	}
	for _, conv := range []string{"a", "b", "c"} {
		call(conv, tools)
	}
	if adv.sessions.len() != 2 || ix.indexed.Load() != 1 || ix.cleared.Load() != 0 {
		t.Errorf("%d sessions held, indexed %d, cleared %d; want 2 (LRU 2), 1 and 0 (b and c hold the set)",
			adv.sessions.len(), ix.indexed.Load(), ix.cleared.Load())
	}
	for _, id := range []string{"b", "c"} {
		if err := adv.EvictSession(ctx, id); err != nil {
			t.Fatal(err)
		}
	}
	if adv.sessions.len() != 0 || ix.cleared.Load() != 1 || len(setIDs(adv)) != 0 {
		t.Errorf("after evicting every session: %d sessions, cleared %d, sets %v", adv.sessions.len(), ix.cleared.Load(), setIDs(adv))
	}
	call("c", tools)
	if ix.indexed.Load() != 2 {
		t.Error("a set cleared was not indexed again")
	}
	if err := adv.EvictSession(ctx, "nobody"); err != nil {
		t.Errorf("evicting an unknown session: %v", err)
	}

	// Requests without a conversation id share a session per tool set.
	anon := New(Config{Index: NewKeywordIndex(nil)})
	cl = clienttest.New(t, model, client.WithAdvisors(anon))
	for range 3 {
		if _, err := cl.Prompt("x").Tools(tools...).Call(ctx).Content(); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := cl.Prompt("x").Tools(tools[:5]...).Call(ctx).Content(); err != nil {
		t.Fatal(err)
	}
	if anon.sessions.len() != 2 || len(setIDs(anon)) != 2 {
		t.Errorf("anonymous sessions: %d, sets %d; want one of each per tool set", anon.sessions.len(), len(setIDs(anon)))
	}
}

func TestSessionsAreIsolated(t *testing.T) {
	var c calls
	ctx := context.Background()
	adv := New(Config{})
	searchWeather := func(conv string, tools []tool.Tool) string {
		t.Helper()
		model := chattest.New(chattest.Calls(chattest.Call(SearchToolName, `{"query":"weather forecast"}`)), chattest.Text("ok"))
		cl := clienttest.New(t, model, client.WithAdvisors(adv))
		if _, err := cl.Prompt("x").Tools(toTools(tools)...).Param(client.ParamConversationID, conv).Call(ctx).Content(); err != nil {
			t.Fatal(err)
		}
		res, _ := lastToolResult(model.Prompt(1))
		return res.Content
	}
	all := testCatalog(t, &c)
	if got := searchWeather("with", all); !strings.Contains(got, "getWeatherForecast") {
		t.Fatalf("search in the full catalog: %q", got)
	}
	if got := searchWeather("without", all[1:]); strings.Contains(got, "getWeatherForecast") {
		t.Errorf("a conversation without the weather tool found it: %q", got)
	}
	if got := setIDs(adv); len(got) != 2 {
		t.Errorf("sets %v, want one per tool set", got)
	}
}

func TestAlwaysAndTTLEviction(t *testing.T) {
	var c calls
	model := chattest.New(chattest.Text("ok")).Repeat()
	tools := toTools(testCatalog(t, &c))
	ix := &countingIndex{Index: NewKeywordIndex(nil)}
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{Index: ix, Eviction: Always()})))
	for range 3 {
		if _, err := cl.Prompt("x").Tools(tools...).Param(client.ParamConversationID, "s").Call(context.Background()).Content(); err != nil {
			t.Fatal(err)
		}
	}
	if ix.indexed.Load() != 3 || ix.cleared.Load() != 3 {
		t.Errorf("Always: indexed %d, cleared %d; want 3 and 3", ix.indexed.Load(), ix.cleared.Load())
	}

	clk := &clock{t: time.Unix(0, 0)}
	ix = &countingIndex{Index: NewKeywordIndex(nil)}
	adv := New(Config{Index: ix, Eviction: TTL(time.Minute), now: clk.now})
	cl = clienttest.New(t, model, client.WithAdvisors(adv))
	call := func(conv string) {
		if _, err := cl.Prompt("x").Tools(tools...).Param(client.ParamConversationID, conv).Call(context.Background()).Content(); err != nil {
			t.Fatal(err)
		}
	}
	call("old")
	clk.advance(2 * time.Minute)
	tools = tools[1:] // the new conversation's tools differ: the old set is no one's
	call("new")
	if adv.sessions.len() != 1 || ix.cleared.Load() != 1 {
		t.Errorf("TTL: %d sessions, %d cleared", adv.sessions.len(), ix.cleared.Load())
	}
}

func TestSearchErrorsGoToTheModel(t *testing.T) {
	var c calls
	model := chattest.New(
		chattest.Calls(chattest.Call(SearchToolName, `{"query":""}`)),
		chattest.Calls(chattest.Call(SearchToolName, `{"q":"weather"}`)),
		chattest.Calls(chattest.Call(SearchToolName, `{"query":"zebra unicorn"}`)),
		chattest.Calls(chattest.Call("get_stock_price", `{"ticker":"X"}`)), // not found yet
		chattest.Text("gave up"),
	)
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{})))
	got, err := cl.Prompt("x").Tools(toTools(testCatalog(t, &c))...).Call(context.Background()).Content()
	if err != nil || got != "gave up" {
		t.Fatalf("%q, %v", got, err)
	}
	checks := []struct {
		i       int
		isError bool
		want    string
	}{
		{1, true, "no query"},
		{2, true, "invalid arguments"},
		{3, false, "No tool found"},
		{4, true, "get_stock_price"},
	}
	for _, ch := range checks {
		res, _ := lastToolResult(model.Prompt(ch.i))
		if res.IsError != ch.isError || !strings.Contains(res.Content, ch.want) {
			t.Errorf("request %d: tool result %+v, want error %v with %q", ch.i, res, ch.isError, ch.want)
		}
	}
	if c.get("get_stock_price") != 0 {
		t.Error("a tool that was never found ran")
	}
}

func TestRegexIndexAdvisor(t *testing.T) {
	var c calls
	model := chattest.New(agent("^get_stock", "stock", `{"ticker":"Z"}`)).Repeat()
	adv := New(Config{Index: NewRegexIndex()})
	if adv.SearchTool().Description != RegexSearchToolDescription {
		t.Errorf("regex index with the keyword description")
	}
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	got, err := cl.Prompt("x").Tools(toTools(testCatalog(t, &c))...).Call(context.Background()).Content()
	if err != nil || got != "answer: Z is at 42" {
		t.Errorf("%q, %v", got, err)
	}
}

func TestIndexFailureFailsTheTurn(t *testing.T) {
	var c calls
	ix := &countingIndex{Index: NewKeywordIndex(nil)}
	ix.fail.Store(true)
	adv := New(Config{Index: ix})
	cl := clienttest.New(t, chattest.New(chattest.Text("x")), client.WithAdvisors(adv))
	_, err := cl.Prompt("x").Tools(toTools(testCatalog(t, &c))...).Call(context.Background()).Content()
	if err == nil || !strings.Contains(err.Error(), "index unavailable") {
		t.Errorf("err = %v", err)
	}
	if adv.sessions.len() != 1 {
		t.Errorf("session not kept after a failed turn: %d", adv.sessions.len())
	}
	adv.sessions.mu.Lock()
	for _, e := range adv.sessions.byID {
		if e.Value.(*session).inUse != 0 {
			t.Error("a failed turn still holds its session")
		}
	}
	adv.sessions.mu.Unlock()
}

// searchAfter runs a turn whose first model call does what during does to the advisor and its
// index, then searches for weather; it fails t unless the search found the weather tool.
func searchAfter(t *testing.T, during func(ctx context.Context, adv *Advisor, ix *countingIndex) error) (*Advisor, *countingIndex) {
	t.Helper()
	var c calls
	ix := &countingIndex{Index: NewKeywordIndex(nil)}
	var adv *Advisor
	model := chattest.New(
		chattest.Respond(func(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
			if err := during(ctx, adv, ix); err != nil {
				return nil, err
			}
			return reply(chat.Assistant("", chattest.Call(SearchToolName, `{"query":"weather"}`))), nil
		}),
		chattest.Text("done"),
	)
	adv = New(Config{Index: ix})
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	if _, err := cl.Prompt("x").Tools(toTools(testCatalog(t, &c))...).Param(client.ParamConversationID, "s").Call(context.Background()).Content(); err != nil {
		t.Fatal(err)
	}
	if res, _ := lastToolResult(model.Prompt(1)); !strings.Contains(res.Content, "getWeatherForecast") {
		t.Errorf("search: %+v", res)
	}
	return adv, ix
}

func TestEvictedDuringTurn(t *testing.T) {
	// Another part of the program evicts the session while the turn runs.
	adv, ix := searchAfter(t, func(ctx context.Context, adv *Advisor, _ *countingIndex) error {
		return adv.EvictSession(ctx, "s")
	})
	// The turn held the set: it searched it as it was, and let go of it at its end.
	if ix.indexed.Load() != 1 || ix.cleared.Load() != 1 || adv.sessions.len() != 0 {
		t.Errorf("indexed %d times, cleared %d, %d sessions; want 1, 1 and 0", ix.indexed.Load(), ix.cleared.Load(), adv.sessions.len())
	}
}

func TestIndexLosingTheSetReindexes(t *testing.T) {
	// The index forgets the set while the turn runs (a restarted server, say).
	_, ix := searchAfter(t, func(ctx context.Context, adv *Advisor, ix *countingIndex) error {
		for _, id := range setIDs(adv) {
			if err := ix.Index.Clear(ctx, id); err != nil {
				return err
			}
		}
		return nil
	})
	if ix.indexed.Load() != 2 {
		t.Errorf("indexed %d times, want 2", ix.indexed.Load())
	}
}

func TestNoToolsIsAPlainLoop(t *testing.T) {
	model := chattest.New(chattest.Text("hi"))
	adv := New(Config{})
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	if got, err := cl.Prompt("x").Call(context.Background()).Content(); err != nil || got != "hi" {
		t.Fatalf("%q %v", got, err)
	}
	if len(model.Prompt(0).Options.Tools) != 0 || model.Prompt(0).Messages[0].Role == chat.RoleSystem {
		t.Errorf("a request without tools was changed: %+v", model.Prompt(0))
	}
	if adv.sessions.len() != 0 {
		t.Error("a session was made for a request without tools")
	}
}

func TestSystemPromptOptions(t *testing.T) {
	var c calls
	tools := toTools(testCatalog(t, &c))
	for _, tt := range []struct {
		cfg  Config
		want string // "" for no system message
	}{
		{Config{SystemPrompt: "Search first."}, "Search first."},
		{Config{DisableSystemPrompt: true}, ""},
	} {
		model := chattest.New(chattest.Text("ok"))
		cl := clienttest.New(t, model, client.WithAdvisors(New(tt.cfg)))
		if _, err := cl.Prompt("x").Tools(tools...).Call(context.Background()).Content(); err != nil {
			t.Fatal(err)
		}
		first := model.Prompt(0).Messages[0]
		if tt.want == "" && first.Role == chat.RoleSystem || tt.want != "" && first.Content != tt.want {
			t.Errorf("%+v: first message %+v", tt.cfg, first)
		}
	}
}

func TestUserHooksRunAfterTheAdvisors(t *testing.T) {
	var c calls
	var seen []string
	var mu sync.Mutex
	adv := New(Config{Loop: client.ToolLoopConfig{Hooks: client.ToolLoopHooks{
		BeforeCall: func(_ context.Context, r *client.Request) (*client.Request, error) {
			mu.Lock()
			defer mu.Unlock()
			for _, t := range r.Prompt.Options.Tools {
				seen = append(seen, t.Definition().Name)
			}
			return r, nil
		},
	}}})
	cl := clienttest.New(t, chattest.New(chattest.Text("ok"), chattest.Text("ok")), client.WithAdvisors(adv))
	if _, err := cl.Prompt("x").Tools(toTools(testCatalog(t, &c))...).Call(context.Background()).Content(); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(seen, []string{SearchToolName}) {
		t.Errorf("user BeforeCall saw %v", seen)
	}
	seen = nil
	s := cl.Prompt("x").Tools(toTools(testCatalog(t, &c))...).Stream(context.Background())
	for _, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
	}
	if !slices.Equal(seen, []string{SearchToolName}) {
		t.Errorf("user BeforeCall in a stream saw %v", seen)
	}
}

func TestConflictingToolName(t *testing.T) {
	fake := tool.Must(tool.Func(SearchToolName, "mine", func(context.Context, struct{}) (string, error) { return "", nil }))
	cl := clienttest.New(t, chattest.New(chattest.Text("x")), client.WithAdvisors(New(Config{})))
	if _, err := cl.Prompt("x").Tools(fake).Call(context.Background()).Content(); err == nil || !strings.Contains(err.Error(), SearchToolName) {
		t.Errorf("err = %v", err)
	}
}

// TestConcurrentConversations runs many conversations at once through one advisor, each with
// its own tool set; run with -race.
func TestConcurrentConversations(t *testing.T) {
	var c calls
	base := testCatalog(t, &c)
	model := chattest.New(agent("weather forecast", "eather", `{"city":"Oslo"}`)).Repeat().DiscardPrompts()
	adv := New(Config{Eviction: LRU(4)})
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	var wg sync.WaitGroup
	for w := range 8 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			own := tool.Must(tool.Func(fmt.Sprintf("weatherForecastW%d", w), "Own weather forecast tool for a city.",
				func(_ context.Context, in cityIn) (string, error) { return fmt.Sprintf("w%d:%s", w, in.City), nil }))
			tools := append([]tool.Tool{own}, base[1:]...) // each worker has its own weather tool
			for i := range 5 {
				got, err := cl.Prompt("weather?").Tools(toTools(tools)...).
					Param(client.ParamConversationID, fmt.Sprintf("w%d-%d", w, i%3)).Call(context.Background()).Content()
				if err != nil {
					t.Error(err)
					return
				}
				if want := fmt.Sprintf("answer: w%d:Oslo", w); got != want {
					t.Errorf("worker %d got %q, want %q", w, got, want)
					return
				}
			}
		}()
	}
	wg.Wait()
	if n := adv.sessions.len(); n > 4 {
		t.Errorf("%d sessions held, LRU(4)", n)
	}
}

func TestSearchToolArgs(t *testing.T) {
	var s struct {
		Required   []string
		Properties map[string]json.RawMessage
	}
	if err := json.Unmarshal(SearchToolDefinition("").InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if len(s.Required) != 0 || len(s.Properties) != 3 || s.Properties["queries"] == nil || s.Properties["query"] == nil {
		t.Errorf("schema: required %v, properties %d: want queries, query and maxResults, none required", s.Required, len(s.Properties))
	}
	if _, err := schema.Compile(SearchToolDefinition("").InputSchema); err != nil {
		t.Errorf("search tool schema does not compile: %v", err)
	}
}

// inUse returns the turns holding each session the advisor keeps.
func inUse(a *Advisor) map[string]int {
	a.sessions.mu.Lock()
	defer a.sessions.mu.Unlock()
	out := map[string]int{}
	for id, e := range a.sessions.byID {
		out[id] = e.Value.(*session).inUse
	}
	return out
}

// TestSessionHeldForTheWholeTurn checks that a turn holds its session, which eviction therefore
// spares, until the turn ends, and lets go of it however the turn ends.
func TestSessionHeldForTheWholeTurn(t *testing.T) {
	var c calls
	tools := toTools(testCatalog(t, &c))
	boom := errors.New("boom")
	type crash struct{}
	tests := []struct {
		name    string
		stream  bool
		fail    error // the model's second reply fails with it
		stop    bool  // the stream's consumer stops at the first tool event
		cancel  bool  // the context is cancelled during the model's first call
		panics  bool  // the user's AfterCall hook panics
		wantErr error
	}{
		{name: "call"},
		{name: "stream", stream: true},
		{name: "model error", fail: boom, wantErr: boom},
		{name: "model error in a stream", stream: true, fail: boom, wantErr: boom},
		{name: "cancelled", cancel: true, wantErr: context.Canceled},
		{name: "consumer stops", stream: true, stop: true},
		{name: "panic", panics: true},
		{name: "panic in a stream", stream: true, panics: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			ix := &countingIndex{Index: NewKeywordIndex(nil)}
			var adv *Advisor
			var during map[string]int
			userEnded := 0
			second := chattest.Text("done")
			if tt.fail != nil {
				second = chattest.Fail(tt.fail)
			}
			model := chattest.New(
				chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) {
					during = inUse(adv)
					if tt.cancel {
						cancel()
					}
					return reply(chat.Assistant("", chattest.Call(SearchToolName, `{"query":"weather"}`))), nil
				}),
				second,
			)
			hooks := client.ToolLoopHooks{
				EndLoop: func(context.Context, *client.Request, *client.Response, error) {
					if inUse(adv)["s"] != 1 {
						t.Error("the session was let go before the user's EndLoop")
					}
					userEnded++
				},
			}
			if tt.panics {
				hooks.AfterCall = func(context.Context, *client.Request, *client.Response) (*client.Response, error) { panic(crash{}) }
			}
			// Always would evict every session not in a turn.
			adv = New(Config{Index: ix, Eviction: Always(), Loop: client.ToolLoopConfig{Hooks: hooks}})
			spec := clienttest.New(t, model, client.WithAdvisors(adv)).Prompt("x").Tools(tools...).Param(client.ParamConversationID, "s")
			var err error
			recovered := func() (v any) {
				defer func() { v = recover() }()
				if !tt.stream {
					err = spec.Call(ctx).Err()
					return nil
				}
				for ev, e := range spec.Stream(ctx).Events() {
					if e != nil {
						err = e
					}
					if tt.stop && ev != nil && ev.Tool != nil {
						break
					}
				}
				return nil
			}()
			if tt.panics != (recovered == crash{}) {
				t.Fatalf("recovered %v", recovered)
			}
			if !errors.Is(err, tt.wantErr) {
				t.Fatalf("err = %v, want %v", err, tt.wantErr)
			}
			if during["s"] != 1 {
				t.Errorf("during the turn: %v, want session s held once", during)
			}
			if held := inUse(adv); len(held) != 0 || ix.cleared.Load() != 1 {
				t.Errorf("after the turn: held %v, cleared %d; want none held and s evicted", held, ix.cleared.Load())
			}
			if userEnded != 1 {
				t.Errorf("the user's EndLoop ran %d times", userEnded)
			}
		})
	}
}

// A multimodal prompt searches and calls tools like a text one, and its image stays with the
// user's message on every request of the turn.
func TestMultimodalPrompt(t *testing.T) {
	var c calls
	photo := content.Image([]byte("\x89PNG\r\n\x1a\nphoto"), "image/png")
	model := chattest.New(agent("weather forecast", "Weather", `{"city":"Paris"}`)).Repeat()
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{})))
	got, err := cl.Prompt().User("What's the weather where this photo was taken (Paris)?", photo).
		Tools(toTools(testCatalog(t, &c))...).Call(context.Background()).Content()
	if err != nil || got != "answer: sunny in Paris" {
		t.Fatalf("answer %q, %v", got, err)
	}
	for i, p := range model.Prompts() {
		var user *chat.Message
		for j := range p.Messages {
			if p.Messages[j].Role == chat.RoleUser {
				user = &p.Messages[j]
			}
		}
		if user == nil || !reflect.DeepEqual(user.Parts, []content.Part{photo}) {
			t.Fatalf("request %d: user message %v", i, user)
		}
	}
}

// describedIndex is an index of one's own that asks for queries of its own kind.
type describedIndex struct{ Index }

func (describedIndex) SearchToolDescription() string { return "Search by tag: one tag per query." }

func TestQueryDescriberSetsSearchToolDescription(t *testing.T) {
	if got := New(Config{Index: describedIndex{NewKeywordIndex(nil)}}).SearchTool().Description; got != "Search by tag: one tag per query." {
		t.Errorf("an index's own description was not used: %q", got)
	}
	if got := New(Config{Index: describedIndex{NewKeywordIndex(nil)}, SearchToolDescription: "mine"}).SearchTool().Description; got != "mine" {
		t.Errorf("Config.SearchToolDescription did not win over the index's: %q", got)
	}
	if got := New(Config{Index: NewKeywordIndex(nil)}).SearchTool().Description; got != DefaultSearchToolDescription {
		t.Errorf("keyword index: %q", got)
	}
}
