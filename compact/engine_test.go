package compact_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/compact"
	"github.com/wield-ai/wield/engine"
	"github.com/wield-ai/wield/internal/clienttest"
)

// recorder is a durable engine in miniature: it records each effect's result and, replaying,
// returns the recorded results in order without running the effects.
type recorder struct {
	clienttest.Serial
	names   []string
	results [][]byte
	replay  bool
	next    int
}

func (r *recorder) Do(ctx context.Context, name string, fn func(context.Context) ([]byte, error)) ([]byte, error) {
	if r.replay {
		if r.next >= len(r.names) || r.names[r.next] != name {
			return nil, errors.New("replay: effect " + name + " was not recorded here")
		}
		r.next++
		return r.results[r.next-1], nil
	}
	b, err := fn(ctx)
	if err != nil {
		return nil, err
	}
	r.names, r.results = append(r.names, name), append(r.results, b)
	return b, nil
}

func (r *recorder) Now(context.Context) time.Time      { return time.Unix(0, 0) }
func (r *recorder) Replaying(ctx context.Context) bool { return r.replay }
func summaries(r *recorder) (n int) {
	for _, name := range r.names {
		if name == "compact.summarise" {
			n++
		}
	}
	return n
}

// The summariser's call is an engine effect: a replay of the turn gets the recorded summaries
// and never calls the summariser, and the turn ends the same.
func TestSummaryIsAnEffect(t *testing.T) {
	run := func(rt *recorder, s chat.Model) string {
		m := &longModel{}
		cl := longClient(t, m, compact.New(scripted(compact.Config{ResultCap: -1, KeepResults: -1, Summarizer: s})))
		text, err := cl.Prompt("Read pages 1 to 200, then tell me the vault code.").Call(engine.With(context.Background(), rt)).Content()
		if err != nil {
			t.Fatal(err)
		}
		return text
	}
	rt := &recorder{}
	first := run(rt, summariser(nil, false))
	if summaries(rt) == 0 || !strings.Contains(first, "7391-ALPHA") {
		t.Fatalf("%d summaries recorded, answer %q", summaries(rt), first)
	}
	rt.replay = true
	again := run(rt, summariser(errors.New("the summariser must not run on replay"), false))
	if again != first || rt.next != len(rt.names) {
		t.Fatalf("replay answered %q (first %q), used %d of %d effects", again, first, rt.next, len(rt.names))
	}
}
