package toolsearch

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
)

// nativeModel is a scripted model with native tool search, in the way the providers map it: with
// the provider's own search it searches on the server (server tools in its answer, counted in the
// usage) and calls a deferred tool it found; with the client's it calls the search tool, reads the
// tools the search loaded and calls one. It checks what a provider checks: the search asked for,
// and that the tools it calls are deferred ones of the request.
func nativeModel(t *testing.T, want string, args string) chattest.Reply {
	return chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		s := p.Options.ToolSearch
		if s == nil {
			return nil, errors.New("nativeModel: no tool search in the request")
		}
		if err := s.Check(p.Options.Tools); err != nil {
			return nil, err
		}
		deferred := func(name string) bool {
			return slices.Contains(toolNamesOf(p), name) && s.Deferred(name, p.Options.ToolChoice)
		}
		last := p.Messages[len(p.Messages)-1]
		res, _ := lastToolResult(p)
		switch {
		case last.Role == chat.RoleUser && s.Kind == chat.ToolSearchClient:
			return reply(chat.Assistant("", chat.ToolCall{ID: "call_search", Name: s.Tool, Arguments: `{"queries":["weather forecast"]}`})), nil
		case last.Role == chat.RoleUser:
			if !deferred(want) {
				return nil, errors.New("nativeModel: " + want + " is not deferred")
			}
			msg := chat.Assistant("Found a tool.", chat.ToolCall{ID: "call_1", Name: want, Arguments: args})
			msg.ServerTools = []chat.ServerTool{
				{Provider: "test", ID: "srv_1", Name: "tool_search_tool_regex", Arguments: `{"pattern":"weather"}`},
				{Provider: "test", ID: "srv_1", Result: true, Tools: []string{want}},
			}
			r := reply(msg)
			r.Usage.ServerToolCalls = 1
			return r, nil
		case res.Name == s.Tool && s.Tool != "":
			names, err := chat.ParseToolSearchResult(res.Content)
			if err != nil {
				return nil, err
			}
			for _, n := range names {
				if strings.Contains(n, "Weather") && deferred(n) {
					return reply(chat.Assistant("", chat.ToolCall{ID: "call_1", Name: n, Arguments: args})), nil
				}
			}
			return reply(chat.Assistant("nothing loaded")), nil
		}
		return reply(chat.Assistant("answer: " + res.Content)), nil
	})
}

// With the provider's own search, every searchable tool goes deferred beside the pinned ones,
// nothing is indexed, the advisor adds no search tool nor system prompt, and the server's steps
// stay in the conversation.
func TestNativeServerSearch(t *testing.T) {
	for _, stream := range []bool{false, true} {
		var c calls
		ix := &countingIndex{Index: NewKeywordIndex(nil)}
		model := chattest.New(nativeModel(t, "getWeatherForecast", `{"city":"Oslo"}`)).Repeat()
		adv := New(Config{Index: ix, Native: chat.ToolSearchRegex, Pinned: []string{"send-email"}})
		cl := clienttest.New(t, model, client.WithAdvisors(adv))
		catalog := testCatalog(t, &c)
		spec := cl.Prompt("Weather in Oslo?").System("You are helpful.").Tools(toTools(catalog)...)
		var resp *client.Response
		if stream {
			s := spec.Stream(context.Background())
			for _, err := range s.Text() {
				if err != nil {
					t.Fatal(err)
				}
			}
			resp = s.Response()
		} else {
			var err error
			if resp, err = spec.Call(context.Background()).Response(); err != nil {
				t.Fatal(err)
			}
		}
		if resp.Text() != "answer: sunny in Oslo" || c.get("getWeatherForecast") != 1 {
			t.Fatalf("stream %v: answer %q", stream, resp.Text())
		}
		if ix.indexed.Load() != 0 {
			t.Errorf("the provider's search indexed %d tool sets", ix.indexed.Load())
		}
		ps := model.Prompts()
		for i, p := range ps {
			names := toolNamesOf(p)
			if len(names) != len(catalog) || names[0] != "send-email" || slices.Contains(names, SearchToolName) {
				t.Errorf("request %d: tools %v", i+1, names)
			}
			if s := p.Options.ToolSearch; s == nil || s.Kind != chat.ToolSearchRegex || !slices.Equal(s.Loaded, []string{"send-email"}) || s.Tool != "" {
				t.Errorf("request %d: tool search %+v", i+1, s)
			}
			if sys := p.Messages[0]; sys.Content != "You are helpful." {
				t.Errorf("request %d: system prompt %q", i+1, sys.Content)
			}
		}
		if steps := ps[1].Messages[2].ServerTools; len(steps) != 2 || !slices.Equal(steps[1].Tools, []string{"getWeatherForecast"}) {
			t.Errorf("the next request lost the server's steps: %+v", ps[1].Messages[2])
		}
		if resp.Usage.ServerToolCalls != 1 {
			t.Errorf("usage %+v", resp.Usage)
		}
	}
}

// With the client's search, the advisor's search tool and index do the searching, the provider
// loads what it finds: the search tool's result names the tools found, every other tool goes
// deferred, and the tools sent are the same on every request of the turn.
func TestNativeClientSearch(t *testing.T) {
	var c calls
	ix := &countingIndex{Index: NewKeywordIndex(nil)}
	model := chattest.New(nativeModel(t, "", `{"city":"Paris"}`)).Repeat()
	adv := New(Config{Index: ix, Native: chat.ToolSearchClient})
	cl := clienttest.New(t, model, client.WithAdvisors(adv))
	catalog := testCatalog(t, &c)
	got, err := cl.Prompt("Weather in Paris?").Tools(toTools(catalog)...).Call(context.Background()).Content()
	if err != nil {
		t.Fatal(err)
	}
	if got != "answer: sunny in Paris" || c.get("getWeatherForecast") != 1 || ix.indexed.Load() != 1 {
		t.Fatalf("answer %q, weather called %d times, %d sets indexed", got, c.get("getWeatherForecast"), ix.indexed.Load())
	}
	ps := model.Prompts()
	if len(ps) != 3 {
		t.Fatalf("%d requests", len(ps))
	}
	first := toolNamesOf(ps[0])
	if first[0] != SearchToolName || len(first) != len(catalog)+1 {
		t.Errorf("tools %v", first)
	}
	for i, p := range ps {
		if !slices.Equal(toolNamesOf(p), first) {
			t.Errorf("request %d: the tools changed: %v", i+1, toolNamesOf(p))
		}
		if s := p.Options.ToolSearch; s == nil || s.Kind != chat.ToolSearchClient || s.Tool != SearchToolName || len(s.Loaded) != 0 {
			t.Errorf("request %d: tool search %+v", i+1, s)
		}
		if !strings.Contains(p.Messages[0].Content, DefaultSystemPrompt) {
			t.Errorf("request %d: system prompt %q", i+1, p.Messages[0].Content)
		}
	}
	res, _ := lastToolResult(ps[1])
	names, err := chat.ParseToolSearchResult(res.Content)
	if err != nil || !slices.Contains(names, "getWeatherForecast") || len(names) > DefaultMaxResults {
		t.Errorf("search result %q: %v", res.Content, err)
	}
}

// refusing is a model without native tool search: it refuses a request asking for one, as
// providers do, and otherwise plays the agent.
func refusing(inner chattest.Reply) chattest.Reply {
	return chattest.Respond(func(ctx context.Context, p *chat.Prompt) (*chat.Response, error) {
		if err := chat.RefuseToolSearch("plain", p.Options); err != nil {
			return nil, err
		}
		return inner.Func(ctx, p)
	})
}

// A provider without native tool search fails the turn with chat.ErrToolSearchUnsupported,
// unless NativeFallback is set: the turn then goes on with the advisor's own search, which
// indexes the tools at that point, and so do the turn's later requests.
func TestNativeFallback(t *testing.T) {
	for _, kind := range []chat.ToolSearchKind{chat.ToolSearchServer, chat.ToolSearchClient} {
		for _, stream := range []bool{false, true} {
			var c calls
			model := chattest.New(refusing(agent("weather forecast", "Weather", `{"city":"Rome"}`))).Repeat()
			cl := clienttest.New(t, model, client.WithAdvisors(New(Config{Native: kind})))
			spec := cl.Prompt("Weather in Rome?").Tools(toTools(testCatalog(t, &c))...)
			var err error
			if stream {
				s := spec.Stream(context.Background())
				for _, e := range s.Text() {
					if e != nil {
						err = e
					}
				}
			} else {
				_, err = spec.Call(context.Background()).Content()
			}
			if !errors.Is(err, chat.ErrToolSearchUnsupported) || c.get("getWeatherForecast") != 0 {
				t.Errorf("%s, stream %v, no fallback: err = %v", kind, stream, err)
			}

			ix := &countingIndex{Index: NewKeywordIndex(nil)}
			model = chattest.New(refusing(agent("weather forecast", "Weather", `{"city":"Rome"}`))).Repeat()
			cl = clienttest.New(t, model, client.WithAdvisors(New(Config{Native: kind, NativeFallback: true, Index: ix})))
			spec = cl.Prompt("Weather in Rome?").Tools(toTools(testCatalog(t, &c))...)
			var got string
			if stream {
				s := spec.Stream(context.Background())
				var b strings.Builder
				for piece, e := range s.Text() {
					if e != nil {
						t.Fatal(e)
					}
					b.WriteString(piece)
				}
				got = b.String()
			} else if got, err = spec.Call(context.Background()).Content(); err != nil {
				t.Fatal(err)
			}
			if got != "answer: sunny in Rome" || c.get("getWeatherForecast") != 1 || ix.indexed.Load() != 1 {
				t.Fatalf("%s, stream %v: answer %q, weather called %d times, %d sets indexed", kind, stream, got, c.get("getWeatherForecast"), ix.indexed.Load())
			}
			ps := model.Prompts()
			// The refused request, then the same step with the advisor's search, then the rest.
			if len(ps) != 4 || ps[0].Options.ToolSearch == nil {
				t.Fatalf("%s: %d requests", kind, len(ps))
			}
			// The refused request held the search tool, deferred beside a provider's search, so
			// that the loop could run the retried request's search.
			if s := ps[0].Options.ToolSearch; !slices.Contains(toolNamesOf(ps[0]), SearchToolName) ||
				s.Deferred(SearchToolName, "") != (kind != chat.ToolSearchClient) {
				t.Errorf("%s: refused request: tools %v, search %+v", kind, toolNamesOf(ps[0]), s)
			}
			for i, p := range ps[1:] {
				if p.Options.ToolSearch != nil || toolNamesOf(p)[0] != SearchToolName {
					t.Errorf("%s: request %d after the fallback: search %+v, tools %v", kind, i+2, p.Options.ToolSearch, toolNamesOf(p))
				}
			}
			if res, _ := lastToolResult(ps[2]); !strings.HasPrefix(res.Content, "Found") {
				t.Errorf("%s: after the fallback the search tells the model, not the provider: %q", kind, res.Content)
			}
		}
	}
}

// A Native that is no chat kind fails the turn with a clear error.
func TestNativeUnknownKind(t *testing.T) {
	var c calls
	cl := clienttest.New(t, chattest.New(chattest.Text("never")), client.WithAdvisors(New(Config{Native: "vector"})))
	_, err := cl.Prompt("hi").Tools(toTools(testCatalog(t, &c))...).Call(context.Background()).Content()
	if err == nil || !strings.Contains(err.Error(), `Native "vector" is none of the chat.ToolSearch kinds`) {
		t.Errorf("err = %v", err)
	}
}

// A catalog under native search: the request's own tools and the pinned ones are loaded, the
// catalog's tools are deferred, each once.
func TestNativeCatalog(t *testing.T) {
	var c calls
	catalog := testCatalog(t, &c)
	cat, err := NewCatalog(catalog[1:]...)
	if err != nil {
		t.Fatal(err)
	}
	model := chattest.New(chattest.Text("ok"))
	cl := clienttest.New(t, model, client.WithAdvisors(New(Config{Catalog: cat, Native: chat.ToolSearchBM25, Pinned: []string{"send-email"}})))
	if _, err := cl.Prompt("hi").Tools(catalog[0]).Call(context.Background()).Content(); err != nil {
		t.Fatal(err)
	}
	p := model.Prompt(0)
	names := toolNamesOf(p)
	if len(names) != len(catalog) || names[0] != "getWeatherForecast" || names[1] != "send-email" {
		t.Errorf("tools %v", names)
	}
	if s := p.Options.ToolSearch; !slices.Equal(s.Loaded, []string{"getWeatherForecast", "send-email"}) {
		t.Errorf("loaded %v", s.Loaded)
	}
	b, _ := json.Marshal(p.Options.ToolSearch)
	if !strings.Contains(string(b), `"Kind":"bm25"`) {
		t.Errorf("search %s", b)
	}
}
