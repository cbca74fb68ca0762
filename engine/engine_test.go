package engine_test

import (
	"context"
	"errors"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/engine"
)

// recorder is a runtime that records effects and runs tasks one after the other, as an engine
// whose coroutines run one at a time would.
type recorder struct {
	effects   map[string][]byte
	ran       []string
	replaying bool
	now       time.Time
}

func (r *recorder) Go(ctx context.Context, tasks []func(context.Context)) {
	for _, t := range tasks {
		t(ctx)
	}
}

func (r *recorder) Do(ctx context.Context, name string, fn func(context.Context) ([]byte, error)) ([]byte, error) {
	if b, ok := r.effects[name]; ok {
		return b, nil
	}
	r.ran = append(r.ran, name)
	b, err := fn(ctx)
	if err == nil {
		r.effects[name] = b
	}
	return b, err
}

func (r *recorder) Now(context.Context) time.Time  { return r.now }
func (r *recorder) Replaying(context.Context) bool { return r.replaying }

func TestInAProcessEverythingRunsDirectly(t *testing.T) {
	ctx := context.Background()
	if engine.From(ctx) != nil || engine.Replaying(ctx) {
		t.Fatal("a process has a runtime")
	}
	var n atomic.Int32
	engine.Go(ctx, func(context.Context) { n.Add(1) }, func(context.Context) { n.Add(1) }, func(context.Context) { n.Add(1) })
	if n.Load() != 3 {
		t.Fatalf("%d tasks ran", n.Load())
	}
	v, err := engine.Effect(ctx, "x", func(context.Context) (map[string]int, error) { return map[string]int{"a": 1}, nil })
	if err != nil || v["a"] != 1 {
		t.Fatalf("effect: %v %v", v, err)
	}
	boom := errors.New("boom")
	if err := engine.Do(ctx, "y", func(context.Context) error { return boom }); !errors.Is(err, boom) {
		t.Fatalf("do: %v", err)
	}
	if d := time.Since(engine.Now(ctx)); d < 0 || d > time.Minute {
		t.Fatalf("now is %v off", d)
	}
}

func TestATaskPanicReachesTheCaller(t *testing.T) {
	defer func() {
		if v := recover(); v != "task 2" {
			t.Fatalf("recovered %v, want the task's panic", v)
		}
	}()
	var ran atomic.Int32
	engine.Go(context.Background(), func(context.Context) { ran.Add(1) }, func(context.Context) { panic("task 2") }, func(context.Context) { ran.Add(1) })
	t.Fatal("no panic")
}

func TestARuntimeRecordsEffects(t *testing.T) {
	r := &recorder{effects: map[string][]byte{}, now: time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)}
	ctx := engine.With(context.Background(), r)
	calls := 0
	get := func(context.Context) ([]string, error) { calls++; return []string{"a", "b"}, nil }
	for range 2 {
		v, err := engine.Effect(ctx, "list", get)
		if err != nil || len(v) != 2 || v[1] != "b" {
			t.Fatalf("effect: %v %v", v, err)
		}
	}
	if calls != 1 || len(r.ran) != 1 {
		t.Fatalf("the effect ran %d times (%v), want once: its second result is the recorded one", calls, r.ran)
	}
	if !engine.Now(ctx).Equal(r.now) {
		t.Fatalf("now %v, want the runtime's", engine.Now(ctx))
	}
	r.replaying = true
	if !engine.Replaying(ctx) {
		t.Fatal("not replaying")
	}
	// A result that does not read back as the effect's type is an error, not a zero value.
	r.effects["bad"] = []byte(`"text"`)
	if _, err := engine.Effect(ctx, "bad", func(context.Context) (int, error) { return 1, nil }); err == nil {
		t.Fatal("a recorded result of another type was accepted")
	}
	order := ""
	engine.Go(ctx, func(context.Context) { order += "1" }, func(context.Context) { order += "2" })
	if order != "12" {
		t.Fatalf("tasks ran as %q, want the runtime's order", order)
	}
}
