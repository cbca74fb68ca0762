// Package modeltest checks that a [chat.Model] keeps the interface's contract, in the way
// testing/slogtest checks a slog.Handler: a model of one's own (a provider wield does not ship, a
// gateway, a local runtime) passes [Run] before a client relies on it, and every provider of this
// module runs it against its recorded traffic.
//
// The contract, called and streamed alike: a text answer is one generation of text with
// FinishStop and no calls; a tool call names a tool the prompt offered, carries an id and a JSON
// object of arguments, and ends with FinishToolCalls; parallel calls have distinct ids; usage is
// reported; an error answer is an error, and a stream yields it as its last element; a
// cancelled context is an error wrapping context.Canceled, and a stream the caller leaves early
// or cancels ends at once; a part the model cannot take is a [*content.Unsupported] error. A
// stream's chunks join (with [chat.Aggregate]) to an answer that passes the same checks, and the
// first fragment of each tool call names its id and tool, as a client's ToolCallDelta events
// need.
//
// Each check is also a function returning an error ([Check], [CheckCancel],
// [CheckCancelMidStream], [CheckStopEarly], [CheckRefused]), for a test that drives a model its
// own way.
package modeltest

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/tool"
)

// Case is an answer [Run] asks a model for.
type Case string

// The cases, each sent called and streamed.
const (
	// Text: the model answers in text.
	Text Case = "text"
	// ToolCall: the model calls one of the prompt's tools.
	ToolCall Case = "tool call"
	// ParallelCalls: the model calls tools twice or more in one answer.
	ParallelCalls Case = "parallel calls"
	// Failure: the API answers with an error (a provider's tests serve a 4xx answer).
	Failure Case = "error"
	// Refusal: a prompt holding a part the model cannot take; the model must refuse it before
	// sending anything, so the model Config.New gives for it may fail the test on any request.
	Refusal Case = "media refusal"
)

// Cases are the cases Run asks for answers, in order.
var Cases = []Case{Text, ToolCall, ParallelCalls, Failure}

// Config is what [Run] needs to know of the model under test.
type Config struct {
	// New returns the model to send c to, called or streamed (a provider's tests return one
	// talking to a server that replays its recorded answer for c and stream), or nil to skip c
	// in that mode, for an answer the model cannot give or that has no recording. Run calls it
	// once per subtest. The cancellation checks ask for a Text model, else a ToolCall one.
	New func(t *testing.T, c Case, stream bool) chat.Model
	// Prompt returns the prompt of c, the one a recorded answer answered; nil, or a nil result,
	// means [DefaultPrompt]. A prompt of ToolCall or ParallelCalls must offer the tools the
	// answer calls.
	Prompt func(c Case) *chat.Prompt
	// Refused are parts the model cannot take (a video for a model that reads no video); each is
	// sent in a user message and must be refused. None skips the Refusal case.
	Refused []content.Part
	// NoUsage says the model reports no token usage, which Run then does not ask for.
	NoUsage bool
}

// patience bounds how long a check waits for a model that should answer at once.
var patience = 30 * time.Second

// Run checks the model of cfg: each case of [Cases] called and streamed, cancellation before
// the call and in the middle of a stream, a stream left early, and the refusal of cfg.Refused,
// each as a subtest.
func Run(t *testing.T, cfg Config) {
	for _, c := range Cases {
		for _, stream := range []bool{false, true} {
			t.Run(string(c)+"/"+mode(stream), func(t *testing.T) {
				m := cfg.New(t, c, stream)
				if m == nil {
					t.Skipf("no model for %s %s", mode(stream), c)
				}
				if err := Check(context.Background(), m, cfg.prompt(c), c, stream, !cfg.NoUsage); err != nil {
					t.Error(err)
				}
			})
		}
	}
	for _, stream := range []bool{false, true} {
		t.Run("cancelled/"+mode(stream), func(t *testing.T) {
			m, p := cfg.anyModel(t, stream)
			if err := CheckCancel(m, p, stream); err != nil {
				t.Error(err)
			}
		})
	}
	t.Run("stop early", func(t *testing.T) {
		m, p := cfg.anyModel(t, true)
		if err := CheckStopEarly(m, p); err != nil {
			t.Error(err)
		}
	})
	t.Run("cancelled mid-stream", func(t *testing.T) {
		m, p := cfg.anyModel(t, true)
		if err := CheckCancelMidStream(m, p); err != nil {
			t.Error(err)
		}
	})
	for i, part := range cfg.Refused {
		for _, stream := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s %d %s/%s", Refusal, i, part.Kind, mode(stream)), func(t *testing.T) {
				m := cfg.New(t, Refusal, stream)
				if m == nil {
					t.Skip("no model for refusals")
				}
				if err := CheckRefused(m, cfg.prompt(Text), part, stream); err != nil {
					t.Error(err)
				}
			})
		}
	}
}

func mode(stream bool) string {
	if stream {
		return "stream"
	}
	return "call"
}

// anyModel returns the model and prompt of the first of Text and ToolCall that has a model,
// for the checks that need an answer of any kind; it skips the test when neither has one.
func (cfg Config) anyModel(t *testing.T, stream bool) (chat.Model, *chat.Prompt) {
	for _, c := range []Case{Text, ToolCall} {
		if m := cfg.New(t, c, stream); m != nil {
			return m, cfg.prompt(c)
		}
	}
	t.Skipf("no model for %s text or tool calls", mode(stream))
	return nil, nil
}

func (cfg Config) prompt(c Case) *chat.Prompt {
	if cfg.Prompt != nil {
		if p := cfg.Prompt(c); p != nil {
			return p
		}
	}
	return DefaultPrompt(c)
}

// DefaultPrompt is the prompt Run sends for c when Config.Prompt gives none: a question, with a
// weather tool for the tool cases.
func DefaultPrompt(c Case) *chat.Prompt {
	switch c {
	case ToolCall:
		return &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in Paris?")}, Options: &chat.Options{Tools: []tool.Tool{weatherTool}}}
	case ParallelCalls:
		return &chat.Prompt{Messages: []chat.Message{chat.User("What is the weather in Paris and in Rome?")}, Options: &chat.Options{Tools: []tool.Tool{weatherTool}}}
	}
	return &chat.Prompt{Messages: []chat.Message{chat.User("Say hello.")}}
}

// weatherTool is the tool of the default prompts; models only see its definition.
var weatherTool = tool.Must(tool.New(tool.Definition{
	Name:        "weather",
	Description: "Returns the current weather in a city.",
	InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
}, func(context.Context, map[string]any) (any, error) {
	return nil, errors.New("modeltest: the weather tool only has a definition")
}))

// Check sends p to m, called or streamed, and returns an error saying how the answer breaks the
// contract for c, or nil. usage asks for token usage to be reported.
func Check(ctx context.Context, m chat.Model, p *chat.Prompt, c Case, stream, usage bool) error {
	var resp *chat.Response
	var err error
	if stream {
		var broken error
		resp, err, broken = collect(ctx, m, p)
		if broken != nil {
			return broken
		}
		if c == Failure {
			return checkFailure(err, resp)
		}
		if err != nil {
			return fmt.Errorf("Stream: %w", err)
		}
	} else {
		resp, err = m.Call(ctx, p)
		if c == Failure {
			return checkFailure(err, nil)
		}
		if err != nil {
			return fmt.Errorf("Call: %w", err)
		}
	}
	return checkAnswer(resp, p, c, usage)
}

// collect reads m.Stream(p) and joins its chunks into resp; err is the stream's own error.
// broken says how the stream broke the contract: a nil chunk, an element after the error, a
// tool call whose first fragment does not name its id and tool, no element at all.
func collect(ctx context.Context, m chat.Model, p *chat.Prompt) (resp *chat.Response, err, broken error) {
	var agg chat.Aggregator
	named := map[[2]int]bool{} // generation and call index of the calls whose first fragment came
	i := 0
	for chunk, e := range m.Stream(ctx, p) {
		i++
		if err != nil {
			return nil, err, fmt.Errorf("Stream: element %d came after the error %q, which must be the last", i, err)
		}
		if e != nil {
			err = e
			continue
		}
		if chunk == nil {
			return nil, nil, fmt.Errorf("Stream: element %d is a nil chunk without an error", i)
		}
		for _, g := range chunk.Generations {
			for _, call := range g.Message.ToolCalls {
				k := [2]int{g.Index, call.Index}
				if !named[k] && (call.ID == "" || call.Name == "") {
					return nil, nil, fmt.Errorf("Stream: the first fragment of tool call %d has id %q and name %q; it must name both", call.Index, call.ID, call.Name)
				}
				named[k] = true
			}
		}
		agg.Add(chunk)
	}
	if i == 0 {
		return nil, nil, errors.New("Stream: ended without a chunk or an error")
	}
	return agg.Response(), err, nil
}

// checkFailure checks the outcome of an error answer: an error, never an answer.
func checkFailure(err error, partial *chat.Response) error {
	if err == nil {
		return errors.New("an error answer came back as a success")
	}
	if err.Error() == "" {
		return errors.New("an error answer came back as an error without text")
	}
	if partial != nil && (partial.Text() != "" || partial.HasToolCalls()) {
		return fmt.Errorf("an error answer was streamed as an answer before the error: %q", partial.Text())
	}
	var pe *chat.ProviderError
	if errors.As(err, &pe) && pe.StatusCode < 400 {
		return fmt.Errorf("a ProviderError with status %d: an error answer has a 4xx or 5xx status", pe.StatusCode)
	}
	return nil
}

// checkAnswer checks a whole answer to p for c.
func checkAnswer(resp *chat.Response, p *chat.Prompt, c Case, usage bool) error {
	if resp == nil || len(resp.Generations) == 0 {
		return errors.New("an answer without a generation")
	}
	g := resp.Generations[0]
	calls := g.Message.ToolCalls
	if usage && (resp.Usage.InputTokens <= 0 || resp.Usage.OutputTokens <= 0) {
		return fmt.Errorf("usage %+v: input and output tokens not reported", resp.Usage)
	}
	if t := resp.Usage.TotalTokens; t != 0 && t < resp.Usage.InputTokens+resp.Usage.OutputTokens-resp.Usage.ReasoningTokens {
		return fmt.Errorf("usage %+v: fewer tokens in total than in and out", resp.Usage)
	}
	switch c {
	case Text:
		if len(calls) > 0 {
			return fmt.Errorf("a text answer holds tool calls: %+v", calls)
		}
		if strings.TrimSpace(g.Message.Text()) == "" {
			return errors.New("a text answer without text")
		}
		if g.FinishReason != chat.FinishStop {
			return fmt.Errorf("a text answer finished with %q, want %q", g.FinishReason, chat.FinishStop)
		}
		return nil
	case ParallelCalls:
		if len(calls) < 2 {
			return fmt.Errorf("%d tool calls, want two or more", len(calls))
		}
	}
	if len(calls) == 0 {
		return errors.New("no tool call")
	}
	if g.FinishReason != chat.FinishToolCalls {
		return fmt.Errorf("an answer with tool calls finished with %q, want %q", g.FinishReason, chat.FinishToolCalls)
	}
	var offered []string
	if p.Options != nil {
		for _, tl := range p.Options.Tools {
			offered = append(offered, tl.Definition().Name)
		}
	}
	ids := map[string]bool{}
	for i, call := range calls {
		if !slices.Contains(offered, call.Name) {
			return fmt.Errorf("call %d names tool %q, which the prompt did not offer (%s)", i, call.Name, strings.Join(offered, ", "))
		}
		if call.ID == "" {
			return fmt.Errorf("call %d (%s) has no id, which its result must carry", i, call.Name)
		}
		if ids[call.ID] {
			return fmt.Errorf("call %d (%s) has the id %q of an earlier call", i, call.Name, call.ID)
		}
		ids[call.ID] = true
		var args map[string]any
		if err := json.Unmarshal([]byte(call.Arguments), &args); err != nil || args == nil {
			return fmt.Errorf("call %d (%s): arguments %q are not a JSON object", i, call.Name, call.Arguments)
		}
	}
	return nil
}

// CheckCancel checks that m, called or streamed with a context cancelled already, returns an
// error wrapping context.Canceled at once, and that a stream yields it alone.
func CheckCancel(m chat.Model, p *chat.Prompt, stream bool) error {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	return within("a cancelled "+mode(stream), func() error {
		if !stream {
			if _, err := m.Call(ctx, p); !errors.Is(err, context.Canceled) {
				return fmt.Errorf("Call with a cancelled context: %v, want an error wrapping context.Canceled", err)
			}
			return nil
		}
		var errs []error
		n := 0
		for chunk, err := range m.Stream(ctx, p) {
			n++
			if err != nil {
				errs = append(errs, err)
			} else if chunk != nil && (chunk.Text() != "" || chunk.HasToolCalls()) {
				return errors.New("Stream with a cancelled context yielded an answer")
			}
		}
		if len(errs) != 1 || !errors.Is(errs[0], context.Canceled) {
			return fmt.Errorf("Stream with a cancelled context yielded the errors %v, want one wrapping context.Canceled", errs)
		}
		return nil
	})
}

// CheckStopEarly checks that a caller may leave m.Stream(p) after its first chunk: the stream
// must not yield again (Go panics when a loop's iterator does), and must return at once.
func CheckStopEarly(m chat.Model, p *chat.Prompt) error {
	return within("a stream left early", func() (err error) {
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("Stream went on after the caller left the loop: %v", r)
			}
		}()
		for _, err := range m.Stream(context.Background(), p) {
			if err != nil {
				return fmt.Errorf("Stream: %w", err)
			}
			break
		}
		return nil
	})
}

// CheckCancelMidStream checks that cancelling the context after a stream's first chunk ends it
// at once; if it ends with an error, the error wraps context.Canceled (a stream whose answer had
// all arrived may end without one).
func CheckCancelMidStream(m chat.Model, p *chat.Prompt) error {
	return within("a stream cancelled midway", func() error {
		ctx, cancel := context.WithCancel(context.Background())
		defer cancel()
		first := true
		for _, err := range m.Stream(ctx, p) {
			switch {
			case err != nil && first:
				return fmt.Errorf("Stream: %w", err)
			case err != nil && !errors.Is(err, context.Canceled):
				return fmt.Errorf("Stream cancelled midway ended with %v, want an error wrapping context.Canceled", err)
			case err != nil:
				return nil
			case first:
				first = false
				cancel()
			}
		}
		return nil
	})
}

// CheckRefused checks that m refuses p with part added to a user message of its own, called or
// streamed, with an error that is a [*content.Unsupported].
func CheckRefused(m chat.Model, p *chat.Prompt, part content.Part, stream bool) error {
	q := &chat.Prompt{Messages: append(slices.Clone(p.Messages), chat.User("What is in this?", part)), Options: p.Options}
	return within("a refusal", func() error {
		var err error
		if stream {
			_, err = chat.Aggregate(m.Stream(context.Background(), q))
		} else {
			_, err = m.Call(context.Background(), q)
		}
		var u *content.Unsupported
		if !errors.As(err, &u) {
			return fmt.Errorf("%s with a %s part (%s): %v, want a *content.Unsupported error", mode(stream), part.Kind, part.MediaType, err)
		}
		return nil
	})
}

// within runs check, giving up after patience: a model must not hang where it should return.
func within(what string, check func() error) error {
	done := make(chan error, 1)
	go func() { done <- check() }()
	select {
	case err := <-done:
		return err
	case <-time.After(patience):
		return fmt.Errorf("%s has not returned after %s", what, patience)
	}
}
