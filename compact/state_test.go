package compact_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/memory"
	"github.com/wield-ai/wield/tool"
)

var excerptID = regexp.MustCompile(`with id ("[^"]*")`)

// resumedModel plays a turn that reads page 3 (cut to an excerpt), notes, then asks for an
// approved confirm call, on which the turn stops (its state holds the excerpt: a round's results
// are compacted before the next model call); resumed, it fetches the cut result until it finds the
// fact and answers with it.
func resumedModel(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
	var read, noted, confirmed bool
	var cutID string
	offset := -1
	for _, m := range p.Messages {
		for _, r := range m.ToolResults {
			switch r.Name {
			case "read":
				read = true
				if mm := excerptID.FindStringSubmatch(r.Content); mm != nil {
					cutID, _ = strconv.Unquote(mm[1])
				}
			case "note":
				noted = true
			case "confirm":
				confirmed = true
			case compact.FetchToolName:
				offset = -2
				if mm := nextOffset.FindStringSubmatch(r.Content); mm != nil {
					offset, _ = strconv.Atoi(mm[1])
				}
			}
			if f := factRe.FindStringSubmatch(r.Content); f != nil && r.Name == compact.FetchToolName {
				return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("The code is " + f[1] + ".")}}}, nil
			}
		}
	}
	switch {
	case !read:
		return resp(chat.ToolCall{ID: "call-3", Name: "read", Arguments: `{"page":3}`}), nil
	case !noted:
		return resp(chat.ToolCall{ID: "call-note", Name: "note", Arguments: `{}`}), nil
	case !confirmed:
		return resp(chat.ToolCall{ID: "call-confirm", Name: "confirm", Arguments: `{}`}), nil
	case cutID == "":
		return nil, fmt.Errorf("the read result was not cut")
	case offset == -2:
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("The fetch ended without the fact.")}}}, nil
	}
	if !hasTool(p, compact.FetchToolName) {
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("I cannot read the cut result.")}}}, nil
	}
	args, _ := json.Marshal(map[string]any{"id": cutID, "offset": max(offset, 0)})
	return resp(chat.ToolCall{ID: fmt.Sprintf("fetch-%d", offset), Name: compact.FetchToolName, Arguments: string(args)}), nil
}

func hasTool(p *chat.Prompt, name string) bool {
	for _, t := range p.Options.Tools {
		if t.Definition().Name == name {
			return true
		}
	}
	return false
}

var noteTool = newTextTool("note", "noted")

var confirmTool = func() tool.Tool {
	t, err := tool.Func("confirm", "asks the user to confirm", func(context.Context, struct{}) (string, error) { return "confirmed", nil }, tool.RequiresApproval())
	if err != nil {
		panic(err)
	}
	return t
}()

// resumeClient builds the client of one run of the turn: a fresh compactor of cfg, and a hook
// that hands the compaction state out when the turn ends or stops.
func resumeClient(t *testing.T, cfg compact.Config, opts []client.Option, state **compact.State) *client.Client {
	t.Helper()
	c := compact.New(cfg)
	hooks := c.Hooks()
	hooks.EndLoop = func(_ context.Context, req *client.Request, _ *client.Response, _ error) { *state = c.State(req.Turn) }
	m := chattest.New(chattest.Respond(resumedModel), chattest.Respond(resumedModel), chattest.Respond(resumedModel),
		chattest.Respond(resumedModel), chattest.Respond(resumedModel), chattest.Respond(resumedModel), chattest.Respond(resumedModel))
	opts = append(opts, client.WithTools(readTool, noteTool, confirmTool), client.WithAdvisors(c, client.NewToolLoop(client.ToolLoopConfig{Hooks: hooks})))
	cl, err := client.New(m, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return cl
}

// stopAtConfirm runs the turn to its stop and returns the stopped state and the compaction state.
func stopAtConfirm(t *testing.T, cfg compact.Config, opts ...client.Option) (*client.TurnState, *compact.State) {
	t.Helper()
	var st *compact.State
	r, err := resumeClient(t, cfg, opts, &st).Prompt("Read page 3, confirm, then tell me the vault code.").
		Param(client.ParamConversationID, "conv").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if r.Pending == nil {
		t.Fatalf("the turn did not stop: %q", r.Text())
	}
	for _, m := range r.Pending.Messages {
		for _, res := range m.ToolResults {
			if res.Name == "read" && (strings.Contains(res.Content, fact) || !strings.HasPrefix(res.Content, "[excerpt:")) {
				t.Fatalf("the stopped state holds the original, not the compacted form: %.100q", res.Content)
			}
		}
	}
	return r.Pending, st
}

// resume continues the stopped turn in a new client (a new process, or the next run of a durable
// turn) under ctx and returns its answer.
func resume(t *testing.T, ctx context.Context, cfg compact.Config, pending *client.TurnState, opts ...client.Option) string {
	t.Helper()
	var st *compact.State
	cl := resumeClient(t, cfg, opts, &st)
	var ds []client.Decision
	for _, p := range pending.Pending() {
		ds = append(ds, p.Approve())
	}
	text, err := cl.Resume(pending, ds...).Param(client.ParamConversationID, "conv").Call(ctx).Content()
	if err != nil {
		t.Fatal(err)
	}
	return text
}

// A State taken from a stopped turn, carried into the run that resumes it, lets that run's fetch
// tool read what the first run cut; without it the cut original is gone.
func TestStateCarriesTheOriginals(t *testing.T) {
	cfg := compact.Config{ResultCap: 1024}
	pending, st := stopAtConfirm(t, cfg)
	if st == nil || len(st.Cut) != 1 || st.Cut[0] != "call-3" || !strings.Contains(st.Originals["call-3"], fact) {
		t.Fatalf("state %+v", st)
	}
	// Carried as a durable runtime would: through JSON.
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var carried compact.State
	if err := json.Unmarshal(b, &carried); err != nil {
		t.Fatal(err)
	}
	if got := resume(t, compact.WithState(context.Background(), &carried), cfg, pending); !strings.Contains(got, "7391-ALPHA") {
		t.Fatalf("resumed with the state: %q", got)
	}
	// The stopped state carries it too (client.TurnState.Carried): a resume with nothing else,
	// as a stored turn's or a durable turn's next run, finds the original.
	pending, _ = stopAtConfirm(t, cfg)
	if pending.Carried["compact"] == nil {
		t.Fatal("the stopped state carries no compaction state")
	}
	if got := resume(t, context.Background(), cfg, pending); !strings.Contains(got, "7391-ALPHA") {
		t.Fatalf("resumed from the state alone: %q", got)
	}
	// Without either, the cut original is gone. (A state resumes once in a process: the same
	// turn again, stopped anew.)
	pending, _ = stopAtConfirm(t, cfg)
	delete(pending.Carried, "compact")
	if got := resume(t, context.Background(), cfg, pending); strings.Contains(got, "7391-ALPHA") {
		t.Fatalf("resumed with nothing carried, yet answered %q", got)
	}
}

// With a Store, the cut original is kept there under the call id, beside its excerpt: a client
// that shares only the store resumes the turn and its fetch tool finds it, and the State names
// the id without the text.
func TestStoreKeepsTheOriginals(t *testing.T) {
	repo := memory.NewInMemory()
	cfg := compact.Config{ResultCap: 1024, Store: repo}
	turns := client.WithTurnStore(memory.Turns(repo))
	_, st := stopAtConfirm(t, cfg, turns)
	if st == nil || len(st.Cut) != 1 || st.Originals != nil {
		t.Fatalf("state %+v", st)
	}
	rep, orig, ok, err := repo.Replaced(context.Background(), "conv", "call-3")
	if err != nil || !ok || len(orig) != 1 || orig[0].ToolResults[0].Content != page(3) || !strings.HasPrefix(rep.ToolResults[0].Content, "[excerpt:") {
		t.Fatalf("stored: %v, %v", ok, err)
	}
	stored, err := memory.Turns(repo).LoadTurn(context.Background(), "conv")
	if err != nil || stored == nil {
		t.Fatalf("stored turn: %v", err)
	}
	if got := resume(t, context.Background(), cfg, stored, turns); !strings.Contains(got, "7391-ALPHA") {
		t.Fatalf("resumed through the store: %q", got)
	}
}

// A summary is kept in the Store with what it replaced, under the id the summary message and the
// event name; the summarised results are kept under their call ids.
func TestSummaryStoredWithWhatItReplaced(t *testing.T) {
	repo := memory.NewInMemory()
	m := &longModel{}
	cl := longClient(t, m, compact.New(scripted(compact.Config{ResultCap: -1, KeepResults: -1, Summarizer: summariser(nil, false), Store: repo})))
	var first *client.Compaction
	for ev, err := range cl.Prompt("Read pages 1 to 200, then tell me the vault code.").Param(client.ParamConversationID, "long").
		Stream(context.Background()).Events() {
		if err != nil {
			t.Fatal(err)
		}
		if ev.Compaction != nil && ev.Compaction.SummaryID != "" && first == nil {
			first = ev.Compaction
		}
	}
	if first == nil {
		t.Fatal("no summary")
	}
	rep, orig, ok, err := repo.Replaced(context.Background(), "long", first.SummaryID)
	if err != nil || !ok || len(orig) != first.Summarized {
		t.Fatalf("summary %s: ok %v, %d originals for %d summarised, %v", first.SummaryID, ok, len(orig), first.Summarized, err)
	}
	if !strings.HasPrefix(rep.Content, "[summary of the earlier conversation, id \""+first.SummaryID+"\"") {
		t.Fatalf("replacement %.200q", rep.Content)
	}
	if orig[0].Role != chat.RoleUser || !strings.HasPrefix(orig[0].Content, "Read pages") {
		t.Fatalf("originals start with %+v", orig[0])
	}
	if _, got, ok, _ := repo.Replaced(context.Background(), "long", "call-3"); !ok || !strings.Contains(got[0].ToolResults[0].Content, fact) {
		t.Fatal("round 3's result, summarised away, is not kept by its id")
	}
}

// Each compaction event says what was cut, by id, and the estimate before and after against the
// budget: capped results are named once, cleared ones are older than the results kept whole, and
// the request after fits.
func TestCompactionEventSaysWhatWasCut(t *testing.T) {
	m := &longModel{}
	c := compact.New(scripted(compact.Config{Summarizer: summariser(nil, false)}))
	_, events, err := runLong(t, m, c)
	if err != nil {
		t.Fatal(err)
	}
	capped := map[string]int{}
	var cleared, summaries int
	for _, e := range events {
		for _, id := range e.Capped {
			capped[id]++
		}
		cleared += len(e.Cleared)
		if e.Summarized > 0 {
			summaries++
			if !strings.HasPrefix(e.SummaryID, "summary-") {
				t.Fatalf("summary of %d messages without an id: %+v", e.Summarized, e)
			}
		}
		if e.Budget == 0 || e.After > e.Budget || e.Before <= e.After && !e.Retry || e.Scale != 1000 {
			t.Fatalf("event %+v", e)
		}
	}
	for id, n := range capped {
		if n != 1 || !strings.HasPrefix(id, "call-") {
			t.Fatalf("capped %s %d times", id, n)
		}
	}
	if len(capped) != 200 || cleared == 0 {
		t.Fatalf("%d results capped, %d cleared, %d summaries in %d events", len(capped), cleared, summaries, len(events))
	}
}

// A model that numbers its calls per response reuses ids: two results cut under one call id
// are kept apart, the second under a suffixed id its excerpt names, and each fetches its own text.
func TestReusedCallIDsKeptApart(t *testing.T) {
	var ids []string
	var fetched []string
	step := 0
	m := chattest.Respond(func(_ context.Context, p *chat.Prompt) (*chat.Response, error) {
		step++
		last := p.Messages[len(p.Messages)-1]
		switch step {
		case 1:
			return resp(chat.ToolCall{ID: "call_0", Name: "read", Arguments: `{"page":1}`}), nil
		case 2:
			return resp(chat.ToolCall{ID: "call_0", Name: "read", Arguments: `{"page":3}`}), nil
		case 3:
			for _, msg := range p.Messages {
				for _, r := range msg.ToolResults {
					if mm := excerptID.FindStringSubmatch(r.Content); mm != nil {
						id, _ := strconv.Unquote(mm[1])
						ids = append(ids, id)
					}
				}
			}
			return resp(chat.ToolCall{ID: "f1", Name: compact.FetchToolName, Arguments: `{"id":"call_0"}`},
				chat.ToolCall{ID: "f2", Name: compact.FetchToolName, Arguments: `{"id":"call_0~2"}`}), nil
		}
		for _, r := range last.ToolResults {
			fetched = append(fetched, r.Content)
		}
		return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant("done")}}}, nil
	})
	repo := memory.NewInMemory()
	c := compact.New(compact.Config{ResultCap: 1024, Store: repo})
	cl, err := client.New(chattest.New(m, m, m, m), client.WithTools(readTool),
		client.WithAdvisors(c, client.NewToolLoop(client.ToolLoopConfig{Hooks: c.Hooks()})))
	if err != nil {
		t.Fatal(err)
	}
	if err := cl.Prompt("read").Param(client.ParamConversationID, "ids").Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if len(ids) != 2 || ids[0] != "call_0" || ids[1] != "call_0~2" {
		t.Fatalf("excerpts name %q", ids)
	}
	if len(fetched) != 2 || strings.Contains(fetched[0], fact) || !strings.Contains(fetched[0], "page 1 line") || !strings.Contains(fetched[1], "page 3 line") {
		t.Fatalf("fetched %d results", len(fetched))
	}
	for id, want := range map[string]string{"call_0": page(1), "call_0~2": page(3)} {
		if _, orig, ok, _ := repo.Replaced(context.Background(), "ids", id); !ok || orig[0].ToolResults[0].Content != want {
			t.Fatalf("stored %s: %v", id, ok)
		}
	}
}

// failingStore refuses every write, as a database that is down.
type failingStore struct{ *memory.InMemory }

func (failingStore) KeepReplaced(context.Context, string, string, chat.Message, []chat.Message) error {
	return errors.New("database is down")
}

// A Store that cannot keep an original ends the turn with its error before the model is sent a
// request naming an id that would not be found; the turn's completed rounds are kept in the
// error's state, so it can go on once the store is back.
func TestStoreFailureEndsTheTurn(t *testing.T) {
	c := compact.New(compact.Config{ResultCap: 1024, Store: failingStore{memory.NewInMemory()}})
	m := chattest.New(chattest.Respond(resumedModel), chattest.Respond(resumedModel))
	cl, err := client.New(m, client.WithTools(readTool, noteTool, confirmTool),
		client.WithAdvisors(c, client.NewToolLoop(client.ToolLoopConfig{Hooks: c.Hooks()})))
	if err != nil {
		t.Fatal(err)
	}
	err = cl.Prompt("read").Param(client.ParamConversationID, "down").Call(context.Background()).Err()
	var te *client.TurnError
	if err == nil || !strings.Contains(err.Error(), "database is down") || !errors.As(err, &te) || te.State == nil {
		t.Fatalf("err = %v", err)
	}
}

// A turn that stops on the round right after the one whose result was cut: its stopped state
// holds the result as compacted before the stopping call, not the original (the loop keeps the
// compactor's rewrite as its own messages, client.Turn.KeepMessages), and so does the state it
// saves while the round's calls run.
func TestStoppedStateHoldsTheCompactedForm(t *testing.T) {
	c := compact.New(compact.Config{ResultCap: 1000, KeepResults: -1})
	store := memory.NewInMemory()
	var running []*client.TurnState
	m := chattest.New(
		chattest.Calls(chat.ToolCall{ID: "call-3", Name: "read", Arguments: `{"page":3}`}),
		chattest.Calls(chat.ToolCall{ID: "call-confirm", Name: "confirm", Arguments: `{}`}))
	cl, err := client.New(m, client.WithTools(readTool, confirmTool), client.WithTurnStore(savedStates{memory.Turns(store), &running}),
		client.WithAdvisors(c, client.NewToolLoop(client.ToolLoopConfig{Hooks: c.Hooks()})))
	if err != nil {
		t.Fatal(err)
	}
	r, err := cl.Prompt("Read page 3, then confirm.").Param(client.ParamConversationID, "conv").Call(context.Background()).Response()
	if err != nil {
		t.Fatal(err)
	}
	if r.Pending == nil {
		t.Fatalf("the turn did not stop: %q", r.Text())
	}
	states := append([]*client.TurnState{r.Pending}, running...)
	checked := 0
	for _, st := range states {
		if st.Round == nil || st.Round.Calls[0].Call.Name != "confirm" {
			continue
		}
		checked++
		for _, msg := range st.Messages {
			for _, res := range msg.ToolResults {
				if res.Name == "read" && !strings.HasPrefix(res.Content, "[excerpt:") {
					t.Fatalf("a %s state of the confirm round holds the read result uncut: %.60q", st.Status, res.Content)
				}
			}
		}
	}
	if checked < 2 {
		t.Fatalf("%d states of the confirm round checked, want the running one and the stopped one", checked)
	}
	// The original stays recoverable: the state carries it.
	if r.Pending.Carried == nil {
		t.Fatal("the stopped state carries no compaction state")
	}
}

// savedStates records every state the loop saves.
type savedStates struct {
	client.TurnStore
	saved *[]*client.TurnState
}

func (s savedStates) SaveTurn(ctx context.Context, conv string, st *client.TurnState) error {
	*s.saved = append(*s.saved, st)
	return s.TurnStore.SaveTurn(ctx, conv, st)
}
