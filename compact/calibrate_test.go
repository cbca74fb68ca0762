package compact_test

import (
	"context"
	"fmt"
	"strings"
	"sync"
	"testing"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/toolcall"
)

// denseTokens is a provider whose tokenizer yields far more tokens than the generic heuristic
// guesses: a token per 2.2 bytes (dense code or non-English text) against its 3.5.
func denseTokens(p *chat.Prompt) int {
	n := 0
	count := func(s string) int { return (len(s)*10 + 21) / 22 }
	for _, m := range p.Messages {
		n += 4 + count(m.Text())
		for _, c := range m.ToolCalls {
			n += 8 + count(c.Name+c.Arguments)
		}
		for _, r := range m.ToolResults {
			n += 8 + count(r.Content)
		}
	}
	for _, t := range p.Options.Tools {
		d := t.Definition()
		n += 8 + count(d.Name+d.Description+string(d.InputSchema))
	}
	return n
}

// denseModel reads pages for rounds rounds and then answers; it reports its own count as usage
// and refuses a request over its window as OpenAI does.
type denseModel struct {
	mu              sync.Mutex
	rounds, refused int
	ratios          []float64 // its count over the heuristic's, per request
}

func (m *denseModel) respond(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	n := denseTokens(p)
	m.ratios = append(m.ratios, float64(n)/float64(budget.For(budget.FamilyGeneric).Prompt(p)))
	if n > window {
		m.refused++
		return nil, &chat.ProviderError{Provider: "openai", StatusCode: 400, Type: "invalid_request_error", Code: "context_length_exceeded",
			Message: fmt.Sprintf("This model's maximum context length is %d tokens. However, your messages resulted in %d tokens. Please reduce the length of the messages.", window, n)}
	}
	u := chat.Usage{InputTokens: n, OutputTokens: 10}
	if m.rounds < 60 {
		m.rounds++
		r := resp(chat.ToolCall{ID: fmt.Sprintf("call-%d", m.rounds), Name: "read", Arguments: fmt.Sprintf(`{"page":%d}`, m.rounds)})
		r.Usage = u
		return r, nil
	}
	return &chat.Response{Usage: u, Generations: []chat.Generation{{Message: chat.Assistant("Done.")}}}, nil
}

func runDense(t *testing.T, cfg compact.Config) (*denseModel, *compact.Compactor, *compact.State) {
	t.Helper()
	m := &denseModel{}
	c := compact.New(scripted(cfg))
	var st *compact.State
	hooks := c.Hooks()
	hooks.EndLoop = func(_ context.Context, req *client.Request, _ *client.Response, _ error) { st = c.State(req.Turn) }
	replies := make([]chattest.Reply, 200)
	for i := range replies {
		replies[i] = chattest.Respond(m.respond)
	}
	cl, err := client.New(chattest.New(replies...), client.WithTools(readTool),
		client.WithAdvisors(c, client.NewToolLoop(client.ToolLoopConfig{Hooks: hooks, MaxIterations: 100})),
		client.WithManager(toolcall.New(toolcall.Config{Limits: toolcall.Limits{PerTool: 100, Total: 100}})),
		client.WithOptions(&chat.Options{Model: "scripted-32k"}))
	if err != nil {
		t.Fatal(err)
	}
	if text, err := cl.Prompt("Read pages 1 to 60.").Call(context.Background()).Content(); err != nil || !strings.Contains(text, "Done") {
		t.Fatalf("turn: %q, %v", text, err)
	}
	return m, c, st
}

// The estimate is corrected by the usage each response reports: on a provider that counts 1.6
// times what the heuristic guesses, the turn's correction converges on that ratio, and no request
// is refused. Without calibration the same turn runs into the provider's refusals, and only the
// retry after each keeps it going.
func TestCalibrationConverges(t *testing.T) {
	m, c, st := runDense(t, compact.Config{})
	if st == nil || st.Scale == 0 {
		t.Fatalf("no calibration in the turn's state: %+v", st)
	}
	truth := m.ratios[len(m.ratios)-1]
	if got := float64(st.Scale) / 1000; got < truth*0.97 || got > truth*1.03 {
		t.Fatalf("calibration %.3f, the provider's ratio %.3f", got, truth)
	}
	if m.refused > 0 {
		t.Fatalf("%d requests refused with calibration", m.refused)
	}
	if got := c.Calibration("scripted-32k"); got != st.Scale {
		t.Fatalf("the compactor learned %d, the turn %d", got, st.Scale)
	}
	t.Logf("ratio %.3f, calibration %d, %d requests", truth, st.Scale, len(m.ratios))

	off, _, _ := runDense(t, compact.Config{DisableCalibration: true})
	if off.refused == 0 {
		t.Fatal("without calibration no request was refused: the scenario does not test calibration")
	}
	t.Logf("without calibration: %d of %d requests refused", off.refused, len(off.ratios))
}
