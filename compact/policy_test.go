package compact_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolsearch"
)

// summariser keeps the facts of what it reads, the way the summary prompt asks.
func summariser(fail error, empty bool) *chattest.Model {
	replies := make([]chattest.Reply, 400)
	for i := range replies {
		replies[i] = chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
			if fail != nil {
				return nil, fail
			}
			if empty {
				return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("")}}}, nil
			}
			in := p.Messages[len(p.Messages)-1].Text()
			out := "The user asked to read pages 1 to 200 and then give the vault code. Pages were read in order."
			if f := factRe.FindString(in); f != "" {
				out += " Named fact: " + f + "."
			}
			return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(out)}}}, nil
		})
	}
	return chattest.New(replies...)
}

func TestEachPolicyAlone(t *testing.T) {
	for _, tc := range []struct {
		name  string
		cfg   compact.Config
		check func(t *testing.T, m *longModel, events []*client.Compaction)
	}{
		{"cap", compact.Config{KeepResults: -1, ResultCap: 80}, func(t *testing.T, m *longModel, ev []*client.Compaction) {
			for _, e := range ev {
				if len(e.Cleared) > 0 || e.Summarized > 0 {
					t.Fatalf("cap alone cleared or summarised: %+v", e)
				}
			}
		}},
		{"clear", compact.Config{ResultCap: -1, KeepResults: 1}, func(t *testing.T, m *longModel, ev []*client.Compaction) {
			for _, e := range ev {
				if len(e.Capped) > 0 || e.Summarized > 0 {
					t.Fatalf("clear alone capped or summarised: %+v", e)
				}
			}
			if m.fetches == 0 {
				t.Fatal("the cleared fact was not fetched")
			}
		}},
		{"summarise", compact.Config{ResultCap: -1, KeepResults: -1, Summarizer: summariser(nil, false)}, func(t *testing.T, m *longModel, ev []*client.Compaction) {
			n := 0
			for _, e := range ev {
				if len(e.Capped) > 0 || len(e.Cleared) > 0 {
					t.Fatalf("summarise alone capped or cleared: %+v", e)
				}
				n += e.Summarized
			}
			if n == 0 {
				t.Fatal("nothing summarised")
			}
			if m.fetches != 0 {
				t.Fatal("the fact should have come from the summary")
			}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &longModel{}
			c := compact.New(scripted(tc.cfg))
			m.budget = c.Budget(&chat.Prompt{Options: &chat.Options{Model: "scripted-32k"}})
			resp, events, err := runLong(t, m, c)
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(resp.Text(), "7391-ALPHA") || m.maxSeen > window || m.overBudg > 0 {
				t.Fatalf("answer %q, largest %d, %d over budget", resp.Text(), m.maxSeen, m.overBudg)
			}
			tc.check(t, m, events)
		})
	}
}

// The cap alone cannot hold 200 capped results in 32k: the turn ends with the typed overflow
// before a request the provider would refuse is sent.
func TestCapAloneOverflows(t *testing.T) {
	m := &longModel{}
	c := compact.New(scripted(compact.Config{KeepResults: -1}))
	_, _, err := runLong(t, m, c)
	var oe *compact.OverflowError
	if !errors.As(err, &oe) || oe.Over() <= 0 || !errors.Is(err, chat.ErrContextLength) {
		t.Fatalf("err = %v", err)
	}
	if m.maxSeen > window {
		t.Fatalf("a request of %d tokens was sent", m.maxSeen)
	}
}

func TestSummariserFailsOrReturnsNothing(t *testing.T) {
	for name, s := range map[string]*chattest.Model{
		"fails": summariser(errors.New("summariser down"), false),
		"empty": summariser(nil, true),
	} {
		t.Run(name, func(t *testing.T) {
			m := &longModel{}
			c := compact.New(scripted(compact.Config{ResultCap: -1, KeepResults: -1, Summarizer: s}))
			_, events, err := runLong(t, m, c)
			var oe *compact.OverflowError
			if !errors.As(err, &oe) {
				t.Fatalf("err = %v, want an OverflowError", err)
			}
			if len(events) == 0 || events[len(events)-1].SummaryError == "" {
				t.Fatalf("no event says why the summary failed: %+v", events)
			}
			if m.maxSeen > window {
				t.Fatalf("a request of %d tokens was sent", m.maxSeen)
			}
		})
	}
	// With the other policies on, a failing summariser costs nothing: clearing suffices.
	m := &longModel{}
	c := compact.New(scripted(compact.Config{Summarizer: summariser(errors.New("down"), false)}))
	resp, _, err := runLong(t, m, c)
	if err != nil || !strings.Contains(resp.Text(), "7391-ALPHA") {
		t.Fatalf("err %v, answer %q", err, resp.Text())
	}
}

// The compactor believes the window is 128k; the model refuses at 32k. Each refusal compacts
// and retries, and the tighter budget holds for the rest of the turn.
func TestRetryAfterRefusal(t *testing.T) {
	m := &longModel{}
	c := compact.New(compact.Config{Limits: budget.Table{"scripted-32k": {Context: 128 << 10, Output: 4096}}})
	resp, events, err := runLong(t, m, c)
	if err != nil {
		t.Fatal(err)
	}
	retries := 0
	for _, e := range events {
		if e.Retry {
			retries++
		}
	}
	if retries != 1 || !strings.Contains(resp.Text(), "7391-ALPHA") {
		t.Fatalf("%d retries, answer %q", retries, resp.Text())
	}
}

// A model that refuses every request: one retry, then the typed error with the provider's numbers.
func TestStillTooLarge(t *testing.T) {
	refuse := chattest.Respond(func(context.Context, *chat.Prompt) (*chat.Response, error) {
		return nil, &chat.ProviderError{Provider: "anthropic", StatusCode: 400, Type: "invalid_request_error",
			Message: "prompt is too long: 40000 tokens > 32768 maximum"}
	})
	big := newTextTool("big", strings.Repeat("x", 200<<10))
	cl, err := client.New(chattest.New(chattest.Calls(chat.ToolCall{ID: "b1", Name: "big", Arguments: `{}`}), refuse, refuse),
		client.WithTools(big), client.WithAdvisors(compactLoop(compact.New(compact.Config{Budget: 1 << 20, ResultCap: -1, KeepResults: 0}))...))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.Prompt("go").Call(context.Background()).Response()
	var oe *compact.OverflowError
	if !errors.As(err, &oe) || oe.Requested != 40000 || oe.Limit != 32768 || oe.Over() != 7232 {
		t.Fatalf("err = %v", err)
	}
	if !strings.Contains(err.Error(), "7232 over") {
		t.Fatalf("the error does not say by how much: %v", err)
	}
}

func compactLoop(c *compact.Compactor) []client.Advisor {
	return []client.Advisor{c, client.NewToolLoop(client.ToolLoopConfig{Hooks: c.Hooks()})}
}

func newTextTool(name, text string) tool.Tool {
	t, err := tool.New(tool.Definition{Name: name, Description: "returns text"}, func(context.Context, map[string]any) (any, error) { return text, nil })
	if err != nil {
		panic(err)
	}
	return t
}

// hugeTurn runs one tool round whose result is text, then fetches the result's start by id.
func hugeTurn(t *testing.T, text string) {
	t.Helper()
	var seen []string
	var fetched string
	capture := func(reply func(p *chat.Prompt) *chat.Response) chattest.Reply {
		return chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
			last := p.Messages[len(p.Messages)-1]
			for _, r := range last.ToolResults {
				seen = append(seen, r.Content)
			}
			return reply(p), nil
		})
	}
	m := chattest.New(
		chattest.Calls(chat.ToolCall{ID: "h1", Name: "huge", Arguments: `{}`}),
		capture(func(p *chat.Prompt) *chat.Response {
			return resp(chat.ToolCall{ID: "f1", Name: compact.FetchToolName, Arguments: `{"id":"h1","offset":0}`})
		}),
		capture(func(p *chat.Prompt) *chat.Response {
			fetched = seen[len(seen)-1]
			return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("done")}}}
		}),
	)
	c := compact.New(compact.Config{Budget: 30000})
	cl, err := client.New(m, client.WithTools(newTextTool("huge", text)), client.WithAdvisors(compactLoop(c)...))
	if err != nil {
		t.Fatal(err)
	}
	r, err := cl.Prompt("go").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || len(seen[0]) > 16<<10 || !strings.HasPrefix(seen[0], "[excerpt:") || !utf8.ValidString(seen[0]) {
		t.Fatalf("the model saw %d results, the first of %d bytes: %.120q", len(seen), len(seen[0]), seen[0])
	}
	if !strings.Contains(fetched, fmt.Sprintf("of %d;", len(text))) || !utf8.ValidString(fetched) {
		t.Fatalf("fetch: %.200q", fetched)
	}
	// Nothing lost: the turn's messages hold the whole result.
	if got := r.Messages[1].ToolResults[0].Content; got != text {
		t.Fatalf("the turn's messages hold %d bytes of %d", len(got), len(text))
	}
}

func TestHostile64MiBResult(t *testing.T) {
	hugeTurn(t, strings.Repeat("0123456789abcdef\n", 64<<20/17))
}

func TestHostileOneLine20MB(t *testing.T) {
	hugeTurn(t, strings.Repeat("é€x", 20_000_000/6)) // multi-byte runes: excerpts must cut between them
}

// 20,000 tool definitions do not fit a 32k window: the turn ends with the typed overflow saying
// by how much, before anything is sent.
func TestHostileTwentyThousandTools(t *testing.T) {
	tools := make([]any, 20000)
	for i := range tools {
		tools[i] = newTextTool(fmt.Sprintf("tool_%d", i), "")
	}
	m := chattest.New(chattest.Text("never"))
	c := compact.New(compact.Config{Budget: 28000})
	cl, err := client.New(m, client.WithTools(tools...), client.WithAdvisors(compactLoop(c)...))
	if err != nil {
		t.Fatal(err)
	}
	_, err = cl.Prompt("go").Call(context.Background()).Response()
	var oe *compact.OverflowError
	if !errors.As(err, &oe) || oe.Limit != 28000 || oe.Over() <= 0 {
		t.Fatalf("err = %v", err)
	}
	if m.Requests() != 0 {
		t.Fatal("the request was sent")
	}
}

// Above 100 tool definitions the turn runs through tool search: 20,000 tools, and every request
// fits a 28k budget; the tool found is called.
func TestManyToolsThroughSearch(t *testing.T) {
	tools := make([]any, 20000)
	for i := range tools {
		tools[i] = newTextTool(fmt.Sprintf("tool_%d", i), fmt.Sprintf("result of tool %d", i))
	}
	var sizes []int
	probe := func(reply func(p *chat.Prompt) *chat.Response) chattest.Reply {
		return chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
			sizes = append(sizes, len(p.Options.Tools))
			return reply(p), nil
		})
	}
	m := chattest.New(
		probe(func(*chat.Prompt) *chat.Response {
			return resp(chat.ToolCall{ID: "s1", Name: toolsearch.SearchToolName, Arguments: `{"queries":["tool_12345"]}`})
		}),
		probe(func(*chat.Prompt) *chat.Response {
			return resp(chat.ToolCall{ID: "t1", Name: "tool_12345", Arguments: `{}`})
		}),
		probe(func(p *chat.Prompt) *chat.Response {
			last := p.Messages[len(p.Messages)-1].ToolResults[0].Content
			return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("got: " + last)}}}
		}),
	)
	c := compact.New(compact.Config{Budget: 28000})
	cl, err := client.New(m, client.WithTools(tools...), client.WithAdvisors(c, c.Loop(client.ToolLoopConfig{}, 100, toolsearch.Config{})))
	if err != nil {
		t.Fatal(err)
	}
	r, err := cl.Prompt("use tool 12345").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if r.Text() != "got: result of tool 12345" {
		t.Fatalf("answer %q; tools sent per request %v", r.Text(), sizes)
	}
	for _, n := range sizes {
		if n > 10 {
			t.Fatalf("tools sent per request: %v", sizes)
		}
	}
}
