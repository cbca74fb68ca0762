package tool

import (
	"context"
	"encoding/json"
	"errors"
	"runtime/debug"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/schema"
)

func TestInvokeRecoversPanics(t *testing.T) {
	boom := Must(Func("boom", "", func(context.Context, struct{}) (string, error) { panic("out of cheese") }))
	cancellable, cancel := context.WithCancel(context.Background())
	defer cancel()
	for name, ctx := range map[string]context.Context{"inline": context.Background(), "own goroutine": cancellable} {
		_, err := Invoke(ctx, boom, `{}`)
		var pe *PanicError
		if !errors.As(err, &pe) || pe.Value != "out of cheese" || len(pe.Stack) == 0 {
			t.Fatalf("%s: error %v", name, err)
		}
		if err.Error() != "the tool panicked: out of cheese" || strings.Contains(err.Error(), ".go:") {
			t.Errorf("%s: the error text %q carries more than the panic value", name, err)
		}
	}
}

// A call that nothing can end early runs on the caller's goroutine; one that can be ended runs
// on its own, so that Invoke can return without it.
func TestInvokeGoroutineOnlyWhenNeeded(t *testing.T) {
	var stack string
	probe := Must(Func("probe", "", func(context.Context, struct{}) (string, error) {
		stack = string(debug.Stack())
		return "ok", nil
	}))
	if _, err := Invoke(context.Background(), probe, `{}`); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(stack, "TestInvokeGoroutineOnlyWhenNeeded(") {
		t.Errorf("a call without timeout or cancellation left the caller's goroutine:\n%s", stack)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if _, err := Invoke(ctx, probe, `{}`); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(stack, "TestInvokeGoroutineOnlyWhenNeeded(") {
		t.Errorf("a cancellable call ran on the caller's goroutine:\n%s", stack)
	}
}

func TestInvokeAbandonsToolsThatIgnoreTheirContext(t *testing.T) {
	release := make(chan struct{})
	defer close(release)
	stubborn := func(context.Context, struct{}) (string, error) {
		<-release // ignores its context
		return "late", nil
	}
	timed := Must(Func("stubborn", "", stubborn, WithTimeout(20*time.Millisecond)))
	_, err := Invoke(context.Background(), timed, `{}`)
	if !errors.Is(err, ErrTimeout) || !strings.Contains(err.Error(), "20ms") {
		t.Errorf("timeout: %v", err)
	}

	untimed := Must(Func("stubborn", "", stubborn))
	ctx, cancel := context.WithCancelCause(context.Background())
	gone := errors.New("the user left")
	time.AfterFunc(20*time.Millisecond, func() { cancel(gone) })
	if _, err := Invoke(ctx, untimed, `{}`); !errors.Is(err, gone) {
		t.Errorf("cancelled: %v", err)
	}
}

func TestInvokeTimeoutOfAToolThatGivesUp(t *testing.T) {
	polite := Must(Func("polite", "", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", errors.New("gave up: " + ctx.Err().Error())
	}, WithTimeout(10*time.Millisecond)))
	_, err := Invoke(context.Background(), polite, `{}`)
	if !errors.Is(err, ErrTimeout) || !errors.Is(err, context.DeadlineExceeded) || err.Error() != "tool call timed out after 10ms" {
		t.Errorf("timeout: %v", err)
	}
	// Without a timeout the tool's own error goes through.
	if _, err := Invoke(context.Background(), nil, `{}`); err == nil {
		t.Error("Invoke of a nil tool succeeded")
	}
}

func TestArgumentErrorRedacted(t *testing.T) {
	tl := Must(Func("w", "", currentWeather))
	_, err := Invoke(context.Background(), tl, `{"location":"Secret Street 1","unit":"K","days":"many"}`)
	var ae *ArgumentError
	if !errors.As(err, &ae) {
		t.Fatalf("error %v", err)
	}
	if got, want := ae.Redacted(), "invalid arguments: /unit: enum; /days: type"; got != want {
		t.Errorf("Redacted() = %q, want %q", got, want)
	}
	if !strings.Contains(ae.Error(), `"K"`) {
		t.Errorf("Error() = %q, want the value the model sent", ae.Error())
	}
	_, err = Invoke(context.Background(), tl, `{"location":"Secret`)
	if !errors.As(err, &ae) || ae.Redacted() != "arguments are not valid JSON at offset 19" {
		t.Errorf("syntax: %v", ae.Redacted())
	}
}

// bare is a tool implemented outside this package.
type bare struct{ def Definition }

func (b bare) Definition() Definition                       { return b.def }
func (b bare) Metadata() Metadata                           { return Metadata{} }
func (b bare) Call(context.Context, string) (string, error) { return "", nil }

// Tools of this package validate their own arguments, so a server need not check them again;
// other tools get a validator of their schema.
func TestServersValidateOnce(t *testing.T) {
	schemaText := json.RawMessage(`{"type":"object"}`)
	for _, tl := range []Tool{
		Must(Func("f", "", currentWeather)),
		Must(New(Definition{Name: "n"}, func(context.Context, map[string]any) (any, error) { return nil, nil })),
		Must(Methods(&notes{}, Only("Search")))[0],
	} {
		if v, err := schema.ForServing(tl, schemaText); err != nil || v != nil {
			t.Errorf("%s: ForServing = %v, %v; want no validator", tl.Definition().Name, v, err)
		}
	}
	if v, err := schema.ForServing(bare{Definition{Name: "b"}}, schemaText); err != nil || v == nil {
		t.Errorf("a foreign tool: ForServing = %v, %v; want a validator", v, err)
	}
}
