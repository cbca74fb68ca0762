package tool

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"
)

func TestNew(t *testing.T) {
	var got map[string]any
	def := Definition{
		Name:        "currentWeather",
		Description: "Get the weather in location",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"location":{"type":"string"},"unit":{"type":"string","enum":["C","F"],"default":"C"},"days":{"type":"integer"}},"required":["location"]}`),
	}
	tl, err := New(def, func(_ context.Context, args map[string]any) (any, error) {
		got = args
		return map[string]any{"temp": 21.5, "unit": args["unit"]}, nil
	}, ReturnDirect())
	if err != nil {
		t.Fatal(err)
	}
	if d := tl.Definition(); d.Name != def.Name || string(d.InputSchema) != string(def.InputSchema) {
		t.Errorf("definition %+v", d)
	}
	if !tl.Metadata().ReturnDirect {
		t.Error("ReturnDirect option lost")
	}
	out, err := tl.Call(context.Background(), `{"location":"Oslo","days":2.0}`)
	if err != nil || out != `{"temp":21.5,"unit":"C"}` {
		t.Errorf("Call = %q, %v", out, err)
	}
	if want := map[string]any{"location": "Oslo", "unit": "C", "days": 2.0}; !reflect.DeepEqual(got, want) {
		t.Errorf("handler got %v, want %v", got, want)
	}
	for args, want := range map[string]string{
		`{"unit":"K"}`:                `invalid arguments: /unit: "K" is not one of ["C","F"]; /: missing required property "location"`,
		`{"location":"a","days":"2"}`: `invalid arguments: /days: expected integer, got the string "2"`,
		`{"location":"a",}`:           `arguments are not valid JSON: invalid character '}' looking for the beginning of an object key at offset 16`,
	} {
		got = nil
		if _, err := tl.Call(context.Background(), args); err == nil || err.Error() != want {
			t.Errorf("Call(%s):\n got %v\nwant %s", args, err, want)
		}
		if got != nil {
			t.Errorf("Call(%s) ran the handler", args)
		}
	}
}

func TestNewDefaultsAndErrors(t *testing.T) {
	ctx := context.Background()
	// No schema: any object.
	echo := Must(New(Definition{Name: "echo"}, func(_ context.Context, args map[string]any) (any, error) { return args, nil }))
	if s := string(echo.Definition().InputSchema); s != `{"type":"object"}` {
		t.Errorf("default schema %s", s)
	}
	if out, err := echo.Call(ctx, ``); err != nil || out != `{}` {
		t.Errorf("blank args: %q, %v", out, err)
	}
	if _, err := echo.Call(ctx, `[1]`); err == nil || err.Error() != `invalid arguments: /: expected object, got an array` {
		t.Errorf("array args: %v", err)
	}
	// A schema without a type still hands the handler an object.
	untyped := Must(New(Definition{Name: "untyped", InputSchema: json.RawMessage(`{}`)}, func(_ context.Context, args map[string]any) (any, error) {
		return len(args), nil
	}))
	if out, err := untyped.Call(ctx, `null`); err != nil || out != `0` {
		t.Errorf("null args: %q, %v", out, err)
	}
	if _, err := untyped.Call(ctx, `5`); err == nil || !strings.Contains(err.Error(), "cannot be read as an object") {
		t.Errorf("number args: %v", err)
	}
	// nil result is Done; handler errors pass through.
	done := Must(New(Definition{Name: "done"}, func(context.Context, map[string]any) (any, error) { return nil, nil }))
	if out, err := done.Call(ctx, `{}`); err != nil || out != Done {
		t.Errorf("nil result: %q, %v", out, err)
	}
	boom := errors.New("boom")
	failing := Must(New(Definition{Name: "failing"}, func(context.Context, map[string]any) (any, error) { return nil, boom }))
	if _, err := failing.Call(ctx, `{}`); !errors.Is(err, boom) {
		t.Errorf("handler error: %v", err)
	}
	slow := Must(New(Definition{Name: "slow"}, func(ctx context.Context, _ map[string]any) (any, error) {
		<-ctx.Done()
		return nil, ctx.Err()
	}, WithTimeout(5*time.Millisecond)))
	if _, err := Invoke(ctx, slow, `{}`); err == nil || err.Error() != "tool call timed out after 5ms" {
		t.Errorf("timeout: %v", err)
	}
	upper := Must(New(Definition{Name: "upper"}, func(context.Context, map[string]any) (any, error) { return "x", nil },
		WithConverter(ConverterFunc(func(_ context.Context, r any) (string, error) { return strings.ToUpper(r.(string)), nil }))))
	if out, err := upper.Call(ctx, `{}`); err != nil || out != "X" {
		t.Errorf("converter: %q, %v", out, err)
	}

	handler := func(context.Context, map[string]any) (any, error) { return nil, nil }
	for _, tc := range []struct {
		def     Definition
		handler Handler
		opts    []NewOption
		want    string
	}{
		{Definition{Name: "a b"}, handler, nil, `invalid tool name "a b"`},
		{Definition{Name: "x"}, nil, nil, "nil handler"},
		{Definition{Name: "x", InputSchema: json.RawMessage(`{"type":"array"}`)}, handler, nil, "must describe an object"},
		{Definition{Name: "x", InputSchema: json.RawMessage(`{"type":"dict"}`)}, handler, nil, `unknown type "dict"`},
		{Definition{Name: "x", InputSchema: json.RawMessage(`{"type":`)}, handler, nil, "invalid JSON Schema"},
		{Definition{Name: "x"}, handler, []NewOption{WithTimeout(0)}, "timeout 0s is not positive"},
	} {
		if _, err := New(tc.def, tc.handler, tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("New(%+v): %v, want %q", tc.def, err, tc.want)
		}
	}
}

func TestNewKeepsItsOwnSchemaCopy(t *testing.T) {
	schema := []byte(`{"type":"object"}`)
	tl := Must(New(Definition{Name: "x", InputSchema: schema}, func(context.Context, map[string]any) (any, error) { return nil, nil }))
	copy(schema, `{"type":"string"}`)
	if got := string(tl.Definition().InputSchema); got != `{"type":"object"}` {
		t.Errorf("definition changed with the caller's slice: %s", got)
	}
}

func TestResolvers(t *testing.T) {
	ctx := context.Background()
	noop := func(context.Context, map[string]any) (any, error) { return nil, nil }
	a := Must(New(Definition{Name: "a"}, noop))
	b := Must(New(Definition{Name: "b"}, noop))
	b2 := Must(New(Definition{Name: "b"}, noop))
	c := Must(New(Definition{Name: "c"}, noop))

	if _, err := NewStaticResolver(a, b, b2); err == nil || err.Error() != `tool: duplicate tool name "b"` {
		t.Errorf("duplicate names: %v", err)
	}
	first := Must(NewStaticResolver(a, b))
	second := Must(NewStaticResolver(b2, c))
	if got, err := first.Resolve(ctx, "a"); err != nil || got != a {
		t.Errorf("Resolve(a) = %v, %v", got, err)
	}
	if _, err := first.Resolve(ctx, "c"); !errors.Is(err, ErrNotFound) || err.Error() != `tool not found: "c"` {
		t.Errorf("Resolve(c) error %v", err)
	}
	chain := Resolvers{first, second}
	for name, want := range map[string]Tool{"a": a, "b": b, "c": c} {
		if got, err := chain.Resolve(ctx, name); err != nil || got != want {
			t.Errorf("chain.Resolve(%s) = %v, %v", name, got, err)
		}
	}
	if _, err := chain.Resolve(ctx, "z"); !errors.Is(err, ErrNotFound) {
		t.Errorf("chain.Resolve(z) error %v", err)
	}
	// Any other error stops the chain.
	down := errors.New("registry unreachable")
	failing := resolverFunc(func(context.Context, string) (Tool, error) { return nil, down })
	if _, err := (Resolvers{failing, second}).Resolve(ctx, "c"); !errors.Is(err, down) {
		t.Errorf("failing resolver: %v", err)
	}
	if _, err := (Resolvers{}).Resolve(ctx, "a"); !errors.Is(err, ErrNotFound) {
		t.Errorf("empty chain: %v", err)
	}
}

type resolverFunc func(context.Context, string) (Tool, error)

func (f resolverFunc) Resolve(ctx context.Context, name string) (Tool, error) { return f(ctx, name) }

func TestProviders(t *testing.T) {
	noop := func(context.Context, map[string]any) (any, error) { return nil, nil }
	list := List{Must(New(Definition{Name: "a"}, noop))}
	got, err := list.Tools(context.Background())
	if err != nil || len(got) != 1 || got[0].Definition().Name != "a" {
		t.Errorf("List.Tools = %v, %v", got, err)
	}
	boom := errors.New("server down")
	pf := ProviderFunc(func(context.Context) ([]Tool, error) { return nil, boom })
	if _, err := pf.Tools(context.Background()); !errors.Is(err, boom) {
		t.Errorf("ProviderFunc error %v", err)
	}
}

func TestToolContext(t *testing.T) {
	ctx := context.Background()
	if ContextFrom(ctx) != nil {
		t.Error("empty context has a tool context")
	}
	if WithContext(ctx, nil) != ctx {
		t.Error("an empty tool context should leave ctx alone")
	}
	defaults := WithContext(ctx, Context{"tenantId": "acme", "locale": "en"})
	perCall := WithContext(defaults, Context{"locale": "da", "user": "ann"})
	want := Context{"tenantId": "acme", "locale": "da", "user": "ann"}
	if got := ContextFrom(perCall); !reflect.DeepEqual(got, want) {
		t.Errorf("merged %v, want %v", got, want)
	}
	if got := ContextFrom(defaults); !reflect.DeepEqual(got, Context{"tenantId": "acme", "locale": "en"}) {
		t.Errorf("merging changed the default context: %v", got)
	}
	if _, ok := CallFrom(ctx); ok {
		t.Error("CallFrom found a call in an empty context")
	}
	c := Call{ID: "call_9", Name: "x"}
	if got, ok := CallFrom(WithCall(ctx, c)); !ok || got != c {
		t.Errorf("CallFrom = %+v, %v", got, ok)
	}
	// Tool context never reaches a schema: Func's schema comes from In alone.
	tl := Must(Func("t", "", func(ctx context.Context, _ struct{}) (string, error) {
		return fmt.Sprint(ContextFrom(ctx)["tenantId"]), nil
	}))
	if strings.Contains(string(tl.Definition().InputSchema), "tenant") {
		t.Error("tool context leaked into the schema")
	}
	if out, err := tl.Call(defaults, "{}"); err != nil || out != "acme" {
		t.Errorf("Call = %q, %v", out, err)
	}
}

func TestErrors(t *testing.T) {
	cause := errors.New("disk full")
	ee := &ExecutionError{Tool: "save", CallID: "call_1", Err: cause}
	if ee.Error() != `tool "save" (call call_1): disk full` {
		t.Errorf("Error() = %q", ee.Error())
	}
	if (&ExecutionError{Tool: "save", Err: cause}).Error() != `tool "save": disk full` {
		t.Error("message without call id")
	}
	wrapped := fmt.Errorf("turn failed: %w", ee)
	var got *ExecutionError
	if !errors.As(wrapped, &got) || got.Tool != "save" || !errors.Is(wrapped, cause) {
		t.Errorf("errors.As/Is through %v", wrapped)
	}
	if Fatal(nil) != nil {
		t.Error("Fatal(nil) is not nil")
	}
	f := Fatal(cause)
	if !IsFatal(f) || !IsFatal(fmt.Errorf("x: %w", f)) || !errors.Is(f, cause) || f.Error() != "disk full" {
		t.Errorf("Fatal: %v", f)
	}
	if IsFatal(cause) || IsFatal(nil) {
		t.Error("IsFatal of an ordinary error")
	}
	if !IsFatal(&ExecutionError{Tool: "x", Err: f}) {
		t.Error("fatal cause inside an ExecutionError")
	}
	ae := &ArgumentError{Issues: []Issue{{Path: "/a/0", Message: "expected string, got 1"}, {Message: `missing required property "b"`}}}
	if ae.Error() != `invalid arguments: /a/0: expected string, got 1; /: missing required property "b"` {
		t.Errorf("ArgumentError = %q", ae.Error())
	}
}

func TestDefaultConverter(t *testing.T) {
	type pair struct {
		A int    `json:"a"`
		B string `json:"b,omitempty"`
	}
	for _, tc := range []struct {
		in   any
		want string
	}{
		{nil, Done},
		{struct{}{}, Done},
		{"text", "text"},
		{textResult("named"), "named"},
		{json.RawMessage(`[1,2]`), `[1,2]`},
		{[]byte("héllo"), "héllo"},
		{[]byte{0xde, 0xad, 0xbe, 0xef}, `"3q2+7w=="`},
		{pair{A: 1}, `{"a":1}`},
		{&pair{A: 2, B: "<b>"}, `{"a":2,"b":"<b>"}`},
		{[]string(nil), `[]`},
		{map[string]int{"z": 1, "a": 2}, `{"a":2,"z":1}`},
		{90 * time.Minute, `"1h30m0s"`},
		{"bad \xff utf8", "bad \xff utf8"},
		{[]string{"bad \xff"}, `["bad ` + "\ufffd" + `"]`},
	} {
		got, err := DefaultConverter{}.ConvertResult(context.Background(), tc.in)
		if err != nil || got != tc.want {
			t.Errorf("ConvertResult(%#v) = %q, %v; want %q", tc.in, got, err, tc.want)
		}
	}
	if _, err := (DefaultConverter{}).ConvertResult(context.Background(), make(chan int)); err == nil {
		t.Error("a channel converted without error")
	}
}

func TestRegistryConcurrency(t *testing.T) {
	type regArgs struct {
		Q string `json:"q"`
	}
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			for j := range 20 {
				RegisterType[regArgs](TypeDoc{Fields: map[string]string{"Q": fmt.Sprintf("query %d", i)}})
				s, err := SchemaFor[regArgs]()
				if err != nil {
					t.Error(err)
					return
				}
				if d := s.Properties["q"].Description; !strings.HasPrefix(d, "query ") {
					t.Errorf("description %q", d)
				}
				RegisterMethods[cleanTools](MethodDoc{Method: "Ping", Description: fmt.Sprint(j)})
				if _, err := Methods(cleanTools{}); err != nil {
					t.Error(err)
				}
			}
		})
	}
	wg.Wait()
	// The last registration wins, and cached schemas follow it.
	RegisterType[regArgs](TypeDoc{Description: "final", Fields: map[string]string{"Q": "the query"}})
	s, _ := SchemaFor[regArgs]()
	if s.Description != "final" || s.Properties["q"].Description != "the query" {
		t.Errorf("schema after re-registration: %+v", s)
	}
	// Callers may change what SchemaFor returns without touching the cache.
	s.Properties["q"].Description = "changed"
	if s2, _ := SchemaFor[regArgs](); s2.Properties["q"].Description != "the query" {
		t.Error("SchemaFor returned the cached schema itself")
	}
}
