package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/wield-ai/wield/internal/schema"
)

func TestFuncCall(t *testing.T) {
	ctx := context.Background()
	weather := Must(Func("currentWeather", "Get the weather in location", currentWeather))
	def := weather.Definition()
	if def.Name != "currentWeather" || def.Description != "Get the weather in location" {
		t.Errorf("definition %+v", def)
	}
	wantSchema := `{"type":"object","properties":{"location":{"type":"string","description":"City and country, e.g. Copenhagen, Denmark"},"unit":{"type":"string","description":"Temperature unit","enum":["C","F"]},"days":{"type":"integer","description":"Days of forecast"}},"required":["location","unit"],"additionalProperties":false}`
	if string(def.InputSchema) != wantSchema {
		t.Errorf("input schema\n got %s\nwant %s", def.InputSchema, wantSchema)
	}
	if !strings.Contains(string(def.OutputSchema), `"temperature":{"type":"number"}`) {
		t.Errorf("output schema %s", def.OutputSchema)
	}
	if got := weather.Metadata(); got != (Metadata{}) {
		t.Errorf("metadata %+v", got)
	}
	got, err := weather.Call(ctx, `{"location":"Copenhagen","unit":"C","days":2}`)
	want := `{"location":"Copenhagen","temperature":22.5,"unit":"C","forecast":[21.5,19]}`
	if err != nil || got != want {
		t.Errorf("Call = %q, %v; want %q", got, err, want)
	}
	// Results are not HTML-escaped, unlike encoding/json's.
	got, err = weather.Call(ctx, `{"location":"<Århus & Co>","unit":"F"}`)
	want = `{"location":"<Århus & Co>","temperature":22.5,"unit":"F","forecast":[]}`
	if err != nil || got != want {
		t.Errorf("Call = %q, %v; want %q", got, err, want)
	}
}

func TestFuncRejectsArgumentsBeforeCalling(t *testing.T) {
	var calls atomic.Int32
	tl := Must(Func("f", "", func(_ context.Context, in weatherArgs) (string, error) {
		calls.Add(1)
		return "ok", nil
	}))
	tests := []struct{ args, want string }{
		{`{"location":"Paris","unit":"K"}`, `invalid arguments: /unit: "K" is not one of ["C","F"]`},
		{`{"unit":"C"}`, `invalid arguments: /: missing required property "location"`},
		{`{"location":"Paris","unit":"C","days":1.0}`, ``}, // valid for the schema and for int
		{`{"location":"Paris","unit":"C","days":1e2}`, ``},
		{`{"location":"Paris","unit":"C","days":1e30}`, `invalid arguments: /days: 1e30 cannot be read as an integer`},
		{`{"location":"Paris","unit":"C","location":"Rome"}`, `invalid arguments: /: duplicate property "location"`},
		{`{"location":`, `arguments are not valid JSON: unexpected end of input at offset 12`},
		{``, `invalid arguments: /: missing required property "location"; /: missing required property "unit"`},
	}
	for _, tc := range tests {
		before := calls.Load()
		got, err := tl.Call(context.Background(), tc.args)
		if tc.want == "" {
			if err != nil || got != "ok" {
				t.Errorf("Call(%s) = %q, %v", tc.args, got, err)
			}
			continue
		}
		var ae *ArgumentError
		if err == nil || err.Error() != tc.want || !errors.As(err, &ae) {
			t.Errorf("Call(%s) error:\n got %v\nwant %s", tc.args, err, tc.want)
		}
		if calls.Load() != before {
			t.Errorf("Call(%s) ran the function with invalid arguments", tc.args)
		}
	}
}

type alarmArgs struct {
	At     time.Time     `json:"at"`
	Snooze time.Duration `json:"snooze,omitempty" default:"5m"`
	Label  string        `json:"label,omitempty" default:"wake up"`
	Repeat *int          `json:"repeat,omitempty"`
}

func TestFuncDefaultsAndTimeTypes(t *testing.T) {
	var got alarmArgs
	tl := Must(Func("setAlarm", "Set an alarm", func(_ context.Context, in *alarmArgs) (alarmArgs, error) {
		got = *in
		return *in, nil
	}))
	out, err := tl.Call(context.Background(), `{"at":"2025-06-01T07:30:00Z"}`)
	if err != nil {
		t.Fatal(err)
	}
	at := time.Date(2025, 6, 1, 7, 30, 0, 0, time.UTC)
	if !got.At.Equal(at) || got.Snooze != 5*time.Minute || got.Label != "wake up" || got.Repeat != nil {
		t.Errorf("function got %+v", got)
	}
	if want := `{"at":"2025-06-01T07:30:00Z","snooze":"5m0s","label":"wake up"}`; out != want {
		t.Errorf("result %s, want %s", out, want)
	}
	_, err = tl.Call(context.Background(), `{"at":"2025-06-01T07:30:00Z","snooze":"1h30m","repeat":2}`)
	if err != nil || got.Snooze != 90*time.Minute || got.Repeat == nil || *got.Repeat != 2 {
		t.Errorf("got %+v, %v", got, err)
	}
	for args, want := range map[string]string{
		`{"at":"yesterday"}`:                            `invalid arguments: /at: a string cannot be read as a date-time: parsing time "yesterday" as "2006-01-02T15:04:05Z07:00": cannot parse "yesterday" as "2006"`,
		`{"at":"2025-06-01T07:30:00Z","snooze":"soon"}`: `invalid arguments: /snooze: "soon" does not match the pattern ` + schema.DurationPattern,
		`{"at":"2025-06-01T07:30:00Z","snooze":300}`:    `invalid arguments: /snooze: expected string, got 300`,
		`{"at":"2025-06-01T07:30:00Z","repeat":null}`:   `invalid arguments: /repeat: expected integer, got null`,
	} {
		if _, err := tl.Call(context.Background(), args); err == nil || err.Error() != want {
			t.Errorf("Call(%s):\n got %v\nwant %s", args, err, want)
		}
	}
}

func TestFuncInputKinds(t *testing.T) {
	ctx := context.Background()
	noArgs := Must(Func("now", "The time", func(context.Context, struct{}) (string, error) { return "noon", nil }))
	if s := string(noArgs.Definition().InputSchema); s != `{"type":"object","properties":{},"additionalProperties":false}` {
		t.Errorf("no-argument schema %s", s)
	}
	for _, args := range []string{``, `{}`, " { } "} {
		if got, err := noArgs.Call(ctx, args); err != nil || got != "noon" {
			t.Errorf("Call(%q) = %q, %v", args, got, err)
		}
	}
	if _, err := noArgs.Call(ctx, `{"x":1}`); err == nil || err.Error() != `invalid arguments: /: unexpected property "x" (no properties are allowed)` {
		t.Errorf("extra argument: %v", err)
	}

	free := Must(Func("free", "Free-form", func(_ context.Context, in map[string]int) (int, error) {
		sum := 0
		for _, v := range in {
			sum += v
		}
		return sum, nil
	}))
	if got, err := free.Call(ctx, `{"a":1,"b":2}`); err != nil || got != "3" {
		t.Errorf("map input: %q, %v", got, err)
	}
	if _, err := free.Call(ctx, `{"a":"x"}`); err == nil || err.Error() != `invalid arguments: /a: expected integer, got the string "x"` {
		t.Errorf("map input: %v", err)
	}

	raw := Must(Func("raw", "Raw arguments", func(_ context.Context, in json.RawMessage) (json.RawMessage, error) {
		return in, nil
	}, WithInputSchema(json.RawMessage(`{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}`))))
	if got, err := raw.Call(ctx, `{"q":"go"}`); err != nil || got != `{"q":"go"}` {
		t.Errorf("raw input: %q, %v", got, err)
	}
	if _, err := raw.Call(ctx, `{}`); err == nil {
		t.Error("explicit schema not enforced")
	}
	if got := string(raw.Definition().InputSchema); got != `{"type":"object","properties":{"q":{"type":"string"}},"required":["q"]}` {
		t.Errorf("explicit schema %s", got)
	}
	// An explicit schema for a function that ignores its arguments.
	ping := Must(Func("ping", "", func(context.Context, struct{}) (string, error) { return "pong", nil },
		WithInputSchema(json.RawMessage(`{"type":"object","properties":{"verbose":{"type":"boolean"}}}`))))
	if got, err := ping.Call(ctx, `{"verbose":true}`); err != nil || got != "pong" {
		t.Errorf("ping = %q, %v", got, err)
	}
}

type textResult string

func TestFuncResults(t *testing.T) {
	ctx := context.Background()
	call := func(tl Tool) string {
		t.Helper()
		got, err := tl.Call(ctx, `{}`)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	tests := []struct {
		name string
		tool Tool
		want string
	}{
		{"string as is", Must(Func("a", "", func(context.Context, struct{}) (string, error) { return `say "hi"`, nil })), `say "hi"`},
		{"named string as is", Must(Func("a", "", func(context.Context, struct{}) (textResult, error) { return "hi", nil })), `hi`},
		{"raw JSON as is", Must(Func("a", "", func(context.Context, struct{}) (json.RawMessage, error) { return json.RawMessage(`{"a":1}`), nil })), `{"a":1}`},
		{"UTF-8 bytes as text", Must(Func("a", "", func(context.Context, struct{}) ([]byte, error) { return []byte("line 1\nline 2"), nil })), "line 1\nline 2"},
		{"binary bytes as base64", Must(Func("a", "", func(context.Context, struct{}) ([]byte, error) { return []byte{0xff, 0x00}, nil })), `"/wA="`},
		{"no result", Must(Func("a", "", func(context.Context, struct{}) (struct{}, error) { return struct{}{}, nil })), Done},
		{"nil any", Must(Func("a", "", func(context.Context, struct{}) (any, error) { return nil, nil })), Done},
		{"string in any", Must(Func("a", "", func(context.Context, struct{}) (any, error) { return "x", nil })), "x"},
		{"map in any, keys sorted", Must(Func("a", "", func(context.Context, struct{}) (any, error) {
			return map[string]any{"b": 1, "a": []int(nil), "c": 2 * time.Second}, nil
		})), `{"a":[],"b":1,"c":"2s"}`},
		{"number", Must(Func("a", "", func(context.Context, struct{}) (float64, error) { return 0.1, nil })), `0.1`},
		{"nil pointer", Must(Func("a", "", func(context.Context, struct{}) (*weatherReport, error) { return nil, nil })), `null`},
		{"error value in interface", Must(Func("a", "", func(context.Context, struct{}) (fmt.Stringer, error) { return time.Second, nil })), `"1s"`},
		{"custom converter", Must(Func("a", "", func(context.Context, struct{}) (int, error) { return 7, nil },
			WithConverter(ConverterFunc(func(_ context.Context, r any) (string, error) { return fmt.Sprintf("seven=%v", r), nil })))), `seven=7`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := call(tc.tool); got != tc.want {
				t.Errorf("got %q, want %q", got, tc.want)
			}
		})
	}
	// A typed result advertises its schema, unless a converter decides the text.
	typed := Must(Func("a", "", func(context.Context, struct{}) (weatherReport, error) { return weatherReport{}, nil }))
	if typed.Definition().OutputSchema == nil {
		t.Error("struct result without converter: no output schema")
	}
	converted := Must(Func("a", "", func(context.Context, struct{}) (weatherReport, error) { return weatherReport{}, nil },
		WithConverter(ConverterFunc(func(context.Context, any) (string, error) { return "text", nil }))))
	if s := converted.Definition().OutputSchema; s != nil {
		t.Errorf("converted result advertises output schema %s", s)
	}

	// A result JSON cannot express is an error, not a panic.
	bad := Must(Func("a", "", func(context.Context, struct{}) (any, error) { return func() {}, nil }))
	if _, err := bad.Call(ctx, `{}`); err == nil || !strings.Contains(err.Error(), "encoding result") {
		t.Errorf("unencodable result: %v", err)
	}
}

func TestFuncErrorsAndTimeout(t *testing.T) {
	ctx := context.Background()
	boom := errors.New("boom")
	failing := Must(Func("f", "", func(context.Context, struct{}) (string, error) { return "", boom }))
	if _, err := failing.Call(ctx, `{}`); !errors.Is(err, boom) {
		t.Errorf("error %v, want boom", err)
	}
	fatal := Must(Func("f", "", func(context.Context, struct{}) (string, error) { return "", Fatal(boom) }))
	if _, err := fatal.Call(ctx, `{}`); !IsFatal(err) || !errors.Is(err, boom) {
		t.Errorf("fatal error %v", err)
	}
	slow := Must(Func("slow", "", func(ctx context.Context, _ struct{}) (string, error) {
		<-ctx.Done()
		return "", ctx.Err()
	}, WithTimeout(10*time.Millisecond), Sequential(), ReturnDirect()))
	if got := slow.Metadata(); got != (Metadata{ReturnDirect: true, Timeout: 10 * time.Millisecond, Sequential: true}) {
		t.Errorf("metadata %+v", got)
	}
	// The timeout is applied by Invoke, once, whoever calls.
	_, err := Invoke(ctx, slow, `{}`)
	if !errors.Is(err, context.DeadlineExceeded) || !errors.Is(err, ErrTimeout) || err.Error() != "tool call timed out after 10ms" {
		t.Errorf("timeout error %v", err)
	}
	// The tool context and call reach the function.
	var seen Context
	var call Call
	ctxTool := Must(Func("c", "", func(ctx context.Context, _ struct{}) (string, error) {
		seen = ContextFrom(ctx)
		call, _ = CallFrom(ctx)
		return "", nil
	}))
	cctx := WithCall(WithContext(ctx, Context{"tenant": "acme"}), Call{ID: "call_1", Name: "c"})
	if _, err := ctxTool.Call(cctx, `{}`); err != nil || seen["tenant"] != "acme" || call.ID != "call_1" {
		t.Errorf("tool context %v, call %+v, err %v", seen, call, err)
	}
}

func TestFuncConstructionErrors(t *testing.T) {
	ok := func(context.Context, struct{}) (string, error) { return "", nil }
	tests := []struct {
		name string
		make func() (Tool, error)
		want string
	}{
		{"empty name", func() (Tool, error) { return Func("", "", ok) }, `invalid tool name ""`},
		{"bad name", func() (Tool, error) { return Func("get weather", "", ok) }, `invalid tool name "get weather"`},
		{"nil function", func() (Tool, error) {
			return Func[struct{}, string]("f", "", nil)
		}, "nil function"},
		{"scalar input", func() (Tool, error) {
			return Func("f", "", func(context.Context, string) (string, error) { return "", nil })
		}, "input type string is not a struct"},
		{"time input", func() (Tool, error) {
			return Func("f", "", func(context.Context, time.Time) (string, error) { return "", nil })
		}, "input type time.Time is not a struct"},
		{"undescribable field", func() (Tool, error) {
			return Func("f", "", func(context.Context, struct{ F func() }) (string, error) { return "", nil })
		}, "field F: type func() cannot be described in JSON Schema"},
		{"bad enum tag", func() (Tool, error) {
			return Func("f", "", func(context.Context, struct {
				N int `enum:"1,x"`
			}) (string, error) {
				return "", nil
			})
		}, `enum value "x" is not a integer`},
		{"jsonschema tag with keyword", func() (Tool, error) {
			return Func("f", "", func(context.Context, struct {
				S string `jsonschema:"enum=a"`
			}) (string, error) {
				return "", nil
			})
		}, `must be a description`},
		{"bad default tag", func() (Tool, error) {
			return Func("f", "", func(context.Context, struct {
				N int `json:"n,omitempty" default:"x"`
			}) (string, error) {
				return "", nil
			})
		}, `default tag "x" is not JSON`},
		{"default not matching", func() (Tool, error) {
			return Func("f", "", func(context.Context, struct {
				N int `json:"n,omitempty" default:"1.5"`
			}) (string, error) {
				return "", nil
			})
		}, `invalid JSON Schema`},
		{"explicit schema not an object", func() (Tool, error) {
			return Func("f", "", ok, WithInputSchema(json.RawMessage(`{"type":"string"}`)))
		}, "must describe an object"},
		{"explicit schema invalid", func() (Tool, error) {
			return Func("f", "", ok, WithInputSchema(json.RawMessage(`{"type":"dict"}`)))
		}, `unknown type "dict"`},
		{"negative timeout", func() (Tool, error) { return Func("f", "", ok, WithTimeout(-time.Second)) }, "timeout -1s is not positive"},
		{"nil converter", func() (Tool, error) { return Func("f", "", ok, WithConverter(nil)) }, "nil result converter"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tl, err := tc.make()
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v, %v; want error containing %q", tl, err, tc.want)
			}
		})
	}
}

func TestFuncConcurrentCalls(t *testing.T) {
	weather := Must(Func("currentWeather", "", currentWeather))
	errs := make(chan error, 8)
	for i := range 8 {
		go func() {
			for j := range 50 {
				args := fmt.Sprintf(`{"location":"city %d-%d","unit":"C"}`, i, j)
				got, err := weather.Call(context.Background(), args)
				if err == nil && !strings.Contains(got, fmt.Sprintf(`"city %d-%d"`, i, j)) {
					err = fmt.Errorf("result %s for %s", got, args)
				}
				if err != nil {
					errs <- err
					return
				}
			}
			errs <- nil
		}()
	}
	for range 8 {
		if err := <-errs; err != nil {
			t.Error(err)
		}
	}
}
