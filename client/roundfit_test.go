package client_test

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

// fitter is a runtime that fits each round by replacing results longer than max, as a
// durable engine with a payload bound does; err, when set, ends the turn instead.
type fitter struct {
	clienttest.Serial
	max    int
	err    error
	rounds int
}

func (f *fitter) FitRound(_ context.Context, sent []chat.Message, calls, results chat.Message) (chat.Message, bool, error) {
	f.rounds++
	if f.err != nil {
		return results, false, f.err
	}
	if len(sent) == 0 || len(calls.ToolCalls) != len(results.ToolResults) {
		return results, false, errors.New("the fitter got no conversation or a round whose results do not match its calls")
	}
	out := results
	out.ToolResults = append([]chat.ToolResult(nil), results.ToolResults...)
	dropped := false
	for i, r := range out.ToolResults {
		if len(r.Content) > f.max {
			out.ToolResults[i] = chat.ToolResult{ID: r.ID, Name: r.Name, IsError: true, Content: "dropped"}
			dropped = true
		}
	}
	return out, dropped, nil
}

// TestRoundFitter: a runtime that fits rounds decides the results the model and the history
// see; a dropped result of a return-direct round sends the round back to the model; a fitter's
// error ends the turn.
func TestRoundFitter(t *testing.T) {
	dump := tool.Must(tool.Func("dump", "Dumps a file.", func(context.Context, struct{}) (string, error) {
		return strings.Repeat("d", 100), nil
	}, tool.ReturnDirect()))
	m := chattest.New(chattest.Calls(chattest.Call("dump", `{}`)), chattest.Text("it was too large"))
	f := &fitter{max: 10}
	ctx := engine.With(context.Background(), f)
	resp, err := clienttest.New(t, m).Prompt("dump it").Tools(dump).Call(ctx).Response()
	if err != nil {
		t.Fatal(err)
	}
	if resp.Outcome != client.OutcomeAnswer || resp.Text() != "it was too large" || f.rounds != 1 {
		t.Fatalf("outcome %v, answer %q, rounds fitted %d", resp.Outcome, resp.Text(), f.rounds)
	}
	last := m.Prompt(1).Messages[len(m.Prompt(1).Messages)-1]
	if len(last.ToolResults) != 1 || !last.ToolResults[0].IsError || last.ToolResults[0].Content != "dropped" {
		t.Fatalf("the model read %+v", last)
	}
	if r := resp.Messages[1].ToolResults; len(r) != 1 || r[0].Content != "dropped" {
		t.Fatalf("history = %+v", resp.Messages)
	}

	m = chattest.New(chattest.Calls(chattest.Call("dump", `{}`)), chattest.Text("unused"))
	boom := errors.New("over the bound")
	_, err = clienttest.New(t, m).Prompt("dump it").Tools(dump).Call(engine.With(context.Background(), &fitter{err: boom})).Response()
	if !errors.Is(err, boom) || m.Requests() != 1 {
		t.Fatalf("err = %v after %d model calls", err, m.Requests())
	}
}
