package compact_test

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

const (
	window    = 32 << 10 // the scripted model's context window, in its own tokens
	fact      = "the vault code is 7391-ALPHA"
	factRound = 3
)

// page is round i's 20 KB result; round 3's holds the fact in its middle, where an excerpt cuts it.
func page(i int) string {
	var b strings.Builder
	for b.Len() < 20<<10 {
		if i == factRound && b.Len() >= 10<<10 && !strings.Contains(b.String(), fact) {
			b.WriteString(fact + ". ")
		}
		fmt.Fprintf(&b, "page %d line %d: lorem ipsum dolor sit amet consectetur. ", i, b.Len())
	}
	return b.String()
}

// providerTokens is the scripted provider's own count: a token per four bytes, rounded up,
// as a provider would count plain English, plus the tool definitions.
func providerTokens(p *chat.Prompt) int {
	n := 0
	for _, m := range p.Messages {
		n += 4 + (len(m.Text())+3)/4
		for _, c := range m.ToolCalls {
			n += 8 + (len(c.Name)+len(c.Arguments)+3)/4
		}
		for _, r := range m.ToolResults {
			n += 8 + (len(r.Content)+3)/4
		}
	}
	for _, t := range p.Options.Tools {
		d := t.Definition()
		n += 8 + (len(d.Name)+len(d.Description)+len(d.InputSchema)+3)/4
	}
	return n
}

// longModel plays the long-horizon turn: rounds read calls, then answers the question from the
// conversation, fetching round 3's cut result when it must. It refuses a request over its window
// with OpenAI's recorded context_length_exceeded shape.
type longModel struct {
	mu       sync.Mutex
	rounds   int
	calls    int
	maxSeen  int
	sent     int // tokens sent in all
	fetches  int
	budget   int // the compactor's budget, checked against the estimate of every request
	overBudg int
	noWindow bool // accept any size: the without-compaction baseline of the token benchmark
}

var nextOffset = regexp.MustCompile(`call again with offset (\d+)`)
var factRe = regexp.MustCompile(`vault code is ([0-9]+-[A-Z]+)`)

func (m *longModel) respond(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.calls++
	n := providerTokens(p)
	m.sent += n
	m.maxSeen = max(m.maxSeen, n)
	if m.budget > 0 && budget.For(budget.FamilyGeneric).Prompt(p) > m.budget {
		m.overBudg++
	}
	if n > window && !m.noWindow {
		return nil, &chat.ProviderError{Provider: "openai", StatusCode: 400, Type: "invalid_request_error", Code: "context_length_exceeded",
			Message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, n)}
	}
	if m.rounds < 200 {
		m.rounds++
		return resp(chat.ToolCall{ID: fmt.Sprintf("call-%d", m.rounds), Name: "read", Arguments: fmt.Sprintf(`{"page":%d}`, m.rounds)}), nil
	}
	// The last message may be a fetch's chunk; the fact may be anywhere in the request.
	for _, msg := range p.Messages {
		text := msg.Text()
		for _, r := range msg.ToolResults {
			text += "\n" + r.Content
		}
		if f := factRe.FindStringSubmatch(text); f != nil {
			return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("The code is " + f[1] + ".")}}}, nil
		}
	}
	offset := 0
	last := p.Messages[len(p.Messages)-1]
	for _, r := range last.ToolResults {
		if r.Name == compact.FetchToolName {
			mm := nextOffset.FindStringSubmatch(r.Content)
			if mm == nil {
				return nil, fmt.Errorf("the fetched result ended without the fact: %.200s", r.Content)
			}
			offset, _ = strconv.Atoi(mm[1])
		}
	}
	m.fetches++
	return resp(chat.ToolCall{ID: fmt.Sprintf("fetch-%d", m.fetches), Name: compact.FetchToolName,
		Arguments: fmt.Sprintf(`{"id":"call-%d","offset":%d}`, factRound, offset)}), nil
}

func resp(c ...chat.ToolCall) *chat.Response {
	return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("", c...)}}}
}

func (m *longModel) model() *chattest.Model {
	replies := make([]chattest.Reply, 400)
	for i := range replies {
		replies[i] = chattest.Respond(m.respond)
	}
	return chattest.New(replies...)
}

var readTool = func() tool.Tool {
	t, err := tool.Func("read", "reads a page", func(_ context.Context, in struct {
		Page int `json:"page"`
	}) (string, error) {
		return page(in.Page), nil
	})
	if err != nil {
		panic(err)
	}
	return t
}()

// longClient is the long scenario's client on m, its turns compacted by c (nil: none).
func longClient(t testing.TB, m *longModel, c *compact.Compactor) *client.Client {
	t.Helper()
	loop := client.ToolLoopConfig{MaxIterations: 300}
	advisors := []client.Advisor{}
	if c != nil {
		loop.Hooks = c.Hooks()
		advisors = append(advisors, c)
	}
	advisors = append(advisors, client.NewToolLoop(loop))
	cl, err := client.New(m.model(), client.WithTools(readTool), client.WithAdvisors(advisors...),
		client.WithManager(toolcall.New(toolcall.Config{Limits: toolcall.Limits{PerTool: 500, Total: 500}})),
		client.WithOptions(&chat.Options{Model: "scripted-32k"}))
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// runLong runs the scenario with the compactor c (nil: none) and returns the answer.
func runLong(t testing.TB, m *longModel, c *compact.Compactor) (*client.Response, []*client.Compaction, error) {
	t.Helper()
	cl := longClient(t, m, c)
	var events []*client.Compaction
	var final *client.Response
	for ev, err := range cl.Prompt("Read pages 1 to 200, then tell me the vault code.").Stream(context.Background()).Events() {
		if err != nil {
			return nil, events, err
		}
		if ev.Compaction != nil {
			events = append(events, ev.Compaction)
		}
		if ev.Done != nil {
			final = ev.Done
		}
	}
	return final, events, nil
}

func scripted(cfg compact.Config) compact.Config {
	cfg.Limits = budget.Table{"scripted-32k": {Context: window, Output: 4096}}
	return cfg
}

func TestLongHorizon(t *testing.T) {
	m := &longModel{}
	c := compact.New(scripted(compact.Config{}))
	m.budget = c.Budget(&chat.Prompt{Options: &chat.Options{Model: "scripted-32k"}})
	resp, events, err := runLong(t, m, c)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(resp.Text(), "7391-ALPHA") {
		t.Fatalf("answer %q lacks the fact", resp.Text())
	}
	if m.maxSeen > window || m.overBudg > 0 {
		t.Fatalf("largest request %d provider tokens (window %d); %d requests over the budget %d", m.maxSeen, window, m.overBudg, m.budget)
	}
	if m.fetches == 0 || len(events) == 0 {
		t.Fatalf("fetches %d, compaction events %d", m.fetches, len(events))
	}
	// The turn's messages keep the originals: every page whole.
	whole := 0
	for _, msg := range resp.Messages {
		for _, r := range msg.ToolResults {
			if r.Name == "read" && len(r.Content) >= 20<<10 {
				whole++
			}
		}
	}
	if whole != 200 {
		t.Fatalf("%d of 200 results whole in the turn's messages", whole)
	}
	t.Logf("%d model calls, largest %d tokens, %d sent in all, %d fetches, %d compaction events", m.calls, m.maxSeen, m.sent, m.fetches, len(events))
}

func TestLongHorizonWithoutCompaction(t *testing.T) {
	m := &longModel{}
	_, _, err := runLong(t, m, nil)
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.Code != "context_length_exceeded" || !errors.Is(err, chat.ErrContextLength) {
		t.Fatalf("err = %v, want the provider's context-length error", err)
	}
}
