package augment

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/internal/schema"
	"github.com/wield-ai/wield/internal/testenv"
	"github.com/wield-ai/wield/tool"
)

type Thinking struct {
	InnerThought string `json:"innerThought" jsonschema:"Your reasoning for calling this tool"`
	Confidence   string `json:"confidence,omitempty" jsonschema:"low, medium or high"`
}

type WeatherIn struct {
	City string `json:"city" jsonschema:"City name"`
	Days int    `json:"days,omitempty"`
}

// recorder is a weather tool that records the arguments it was called with.
type recorder struct {
	mu   sync.Mutex
	args []string
}

func (r *recorder) tool(t *testing.T, opts ...tool.FuncOption) tool.Tool {
	t.Helper()
	w, err := tool.Func("weather", "Get the weather in a city", func(_ context.Context, in WeatherIn) (string, error) {
		b, _ := json.Marshal(in)
		r.mu.Lock()
		r.args = append(r.args, string(b))
		r.mu.Unlock()
		return "sunny in " + in.City, nil
	}, opts...)
	if err != nil {
		t.Fatal(err)
	}
	return w
}

// weatherAugmented is the weather tool augmented with Thinking, its recorder and the events it sends.
func weatherAugmented(t *testing.T) (tool.Tool, *recorder, *events) {
	t.Helper()
	r, ev := &recorder{}, &events{}
	w, err := Tool(r.tool(t), ev.consume)
	if err != nil {
		t.Fatal(err)
	}
	return w, r, ev
}

type events struct {
	mu  sync.Mutex
	got []Event[Thinking]
}

func (e *events) consume(_ context.Context, ev Event[Thinking]) error {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.got = append(e.got, ev)
	return nil
}

func TestSchemaGainsFieldsFirst(t *testing.T) {
	w, _, _ := weatherAugmented(t)
	var s struct {
		Type                 string
		Properties           json.RawMessage
		Required             []string
		AdditionalProperties *bool
	}
	if err := json.Unmarshal(w.Definition().InputSchema, &s); err != nil {
		t.Fatal(err)
	}
	if s.Type != "object" || s.AdditionalProperties == nil || *s.AdditionalProperties {
		t.Errorf("schema lost type or additionalProperties: %s", w.Definition().InputSchema)
	}
	props := string(s.Properties)
	order := []string{`"innerThought"`, `"confidence"`, `"city"`, `"days"`}
	last := -1
	for _, k := range order {
		i := strings.Index(props, k)
		if i < last {
			t.Fatalf("properties out of order (want %v): %s", order, props)
		}
		last = i
	}
	if !strings.Contains(props, "Your reasoning for calling this tool") || !strings.Contains(props, "City name") {
		t.Errorf("descriptions lost: %s", props)
	}
	if strings.Join(s.Required, ",") != "innerThought,city" {
		t.Errorf("required = %v", s.Required)
	}
	// The merged schema is a valid schema.
	if _, err := schema.Compile(w.Definition().InputSchema); err != nil {
		t.Errorf("merged schema does not compile: %v", err)
	}
}

func TestCallSplitsArguments(t *testing.T) {
	w, r, ev := weatherAugmented(t)
	raw := `{"innerThought":"user asked about Oslo","city":"Oslo","confidence":"high"}`
	out, err := w.Call(context.Background(), raw)
	if err != nil || out != "sunny in Oslo" {
		t.Fatalf("Call = %q, %v", out, err)
	}
	if len(r.args) != 1 || r.args[0] != `{"city":"Oslo"}` {
		t.Errorf("tool got %v", r.args)
	}
	if len(ev.got) != 1 {
		t.Fatalf("consumer called %d times", len(ev.got))
	}
	e := ev.got[0]
	if e.Args != (Thinking{InnerThought: "user asked about Oslo", Confidence: "high"}) || e.RawInput != raw ||
		e.Definition.Name != "weather" || !strings.Contains(string(e.Definition.InputSchema), "innerThought") {
		t.Errorf("event = %+v", e)
	}
}

func TestKeepExtraArguments(t *testing.T) {
	var got string
	loose, err := tool.New(tool.Definition{Name: "echo", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}}}`)},
		func(_ context.Context, args map[string]any) (any, error) {
			b, _ := json.Marshal(args)
			got = string(b)
			return "ok", nil
		})
	if err != nil {
		t.Fatal(err)
	}
	var ev events
	w, err := Tool(loose, ev.consume, KeepExtraArguments())
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Call(context.Background(), `{"x":"1","innerThought":"why"}`); err != nil {
		t.Fatal(err)
	}
	if got != `{"innerThought":"why","x":"1"}` {
		t.Errorf("tool got %s, want the extra argument kept", got)
	}
}

func TestMetadataKept(t *testing.T) {
	r := &recorder{}
	orig := r.tool(t, tool.ReturnDirect(), tool.Sequential(), tool.WithTimeout(3*time.Second))
	var ev events
	w, err := Tool(orig, ev.consume)
	if err != nil {
		t.Fatal(err)
	}
	if w.Metadata() != orig.Metadata() || !w.Metadata().ReturnDirect {
		t.Errorf("metadata %+v, want %+v", w.Metadata(), orig.Metadata())
	}
	if d := w.Definition(); d.Name != "weather" || d.Description != "Get the weather in a city" {
		t.Errorf("definition %+v", d)
	}
	if u, ok := w.(interface{ Unwrap() tool.Tool }); !ok || u.Unwrap() != orig {
		t.Error("Unwrap does not return the original")
	}
}

func TestCallErrors(t *testing.T) {
	w, r, _ := weatherAugmented(t)
	tests := []struct {
		name, args string
		syntax     bool
		want       string
	}{
		{"not JSON", `{"city":`, true, "not valid JSON"},
		{"not an object", `["city"]`, true, "not a JSON object"},
		{"trailing data", `{"city":"x"} {}`, true, "after top-level value"},
		{"duplicate key", `{"city":"a","city":"b","innerThought":"x"}`, true, "twice"},
		{"missing extra field", `{"city":"Oslo"}`, false, "innerThought"},
		{"wrong type of extra field", `{"city":"Oslo","innerThought":3}`, false, "innerThought"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := w.Call(context.Background(), tt.args)
			var ae *tool.ArgumentError
			if !errors.As(err, &ae) || ae.Syntax != tt.syntax || !strings.Contains(err.Error(), tt.want) {
				t.Errorf("Call(%s) = %v, want an ArgumentError (syntax %v) mentioning %q", tt.args, err, tt.syntax, tt.want)
			}
		})
	}
	// The original tool still validates its own arguments.
	_, err := w.Call(context.Background(), `{"innerThought":"x","city":7}`)
	var ae *tool.ArgumentError
	if !errors.As(err, &ae) || !strings.Contains(err.Error(), "city") {
		t.Errorf("bad tool argument: %v", err)
	}
	if len(r.args) != 0 {
		t.Errorf("tool ran on bad arguments: %v", r.args)
	}
}

func TestConsumerErrorStopsCall(t *testing.T) {
	r := &recorder{}
	refuse := errors.New("state a confidence")
	w, err := Tool(r.tool(t), func(_ context.Context, e Event[Thinking]) error {
		if e.Args.Confidence == "" {
			return refuse
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.Call(context.Background(), `{"innerThought":"x","city":"Oslo"}`); !errors.Is(err, refuse) {
		t.Errorf("Call = %v, want the consumer's error", err)
	}
	if len(r.args) != 0 {
		t.Error("tool ran although the consumer refused")
	}
}

func TestClashesAndBadTypes(t *testing.T) {
	r := &recorder{}
	type Clash struct {
		City string `json:"city"`
	}
	_, err := Tools([]tool.Tool{r.tool(t)}, func(context.Context, Event[Clash]) error { return nil })
	if err == nil || !strings.Contains(err.Error(), `tool "weather" already has a parameter "city"`) || !strings.Contains(err.Error(), "Clash") {
		t.Errorf("clash: %v", err)
	}

	if _, err := Tool(r.tool(t), func(context.Context, Event[string]) error { return nil }); err == nil || !strings.Contains(err.Error(), "struct") {
		t.Errorf("non-struct T: %v", err)
	}
	type Empty struct{}
	if _, err := Tool(r.tool(t), func(context.Context, Event[Empty]) error { return nil }); err == nil || !strings.Contains(err.Error(), "no fields") {
		t.Errorf("field-less T: %v", err)
	}
	type Node struct {
		Name string `json:"name"`
		Next *Node  `json:"next,omitempty"`
	}
	if _, err := Tool(r.tool(t), func(context.Context, Event[Node]) error { return nil }); err == nil || !strings.Contains(err.Error(), "refers to itself") {
		t.Errorf("recursive T: %v", err)
	}
	if _, err := Tool[Thinking](r.tool(t), nil); err == nil {
		t.Error("nil consumer accepted")
	}
	var ev events
	if _, err := Tool(nil, ev.consume); err == nil {
		t.Error("nil tool accepted")
	}
}

// bare is a tool with the given raw definition, for schemas tool.New would refuse; it answers
// with its arguments.
func bare(def tool.Definition) *chattest.Tool {
	return &chattest.Tool{Def: def, Func: func(_ context.Context, args string) (string, error) { return args, nil }}
}

func TestSchemaShapes(t *testing.T) {
	var ev events
	tests := []struct {
		name, schema string
		want         string // substring of the merged schema
		fail         string
	}{
		{"no schema", ``, `"properties":{"innerThought":`, ""},
		{"empty object", `{}`, `"required":["innerThought"]`, ""},
		{"true", `true`, `"type":"object"`, ""},
		{"no properties", `{"type":"object"}`, `"properties":{"innerThought"`, ""},
		{"keeps other keywords", `{"type":"object","title":"T","properties":{"a":{"type":"string"}},"required":["a"]}`,
			`"title":"T","properties":{"innerThought"`, ""},
		{"required merged", `{"type":"object","properties":{"a":{}},"required":["a"]}`, `"required":["innerThought","a"]`, ""},
		{"not JSON", `{"type":`, "", "input schema"},
		{"array", `{"type":"array"}`, "", "not an object"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w, err := Tool(bare(tool.Definition{Name: "b", InputSchema: json.RawMessage(tt.schema)}), ev.consume)
			if testenv.WantError(t, err, tt.fail) {
				return
			}
			if s := string(w.Definition().InputSchema); !strings.Contains(s, tt.want) || !json.Valid([]byte(s)) {
				t.Errorf("schema %s lacks %s", s, tt.want)
			}
		})
	}
}

func TestDefsMerged(t *testing.T) {
	type Step struct {
		Label string `json:"label"`
		Sub   []Step `json:"sub,omitempty"`
	}
	type Plan struct {
		Steps []Step `json:"steps"`
	}
	var got Plan
	w, err := Tool(bare(tool.Definition{Name: "b", InputSchema: json.RawMessage(`{"type":"object","properties":{"x":{"type":"string"}},"$defs":{"Other":{"type":"string"}}}`)}),
		func(_ context.Context, e Event[Plan]) error { got = e.Args; return nil })
	if err != nil {
		t.Fatal(err)
	}
	s := string(w.Definition().InputSchema)
	if !strings.Contains(s, `"Other"`) || !strings.Contains(s, `"$defs"`) {
		t.Errorf("$defs not merged: %s", s)
	}
	if _, err := schema.Compile(w.Definition().InputSchema); err != nil {
		t.Fatalf("merged schema with $defs does not compile: %v\n%s", err, s)
	}
	out, err := w.Call(context.Background(), `{"steps":[{"label":"a","sub":[{"label":"b"}]}],"x":"1"}`)
	if err != nil || out != `{"x":"1"}` || len(got.Steps) != 1 || got.Steps[0].Sub[0].Label != "b" {
		t.Errorf("Call = %q, %v; consumer got %+v", out, err, got)
	}
}

func TestProvider(t *testing.T) {
	r := &recorder{}
	var ev events
	p, err := Provider(tool.List{r.tool(t)}, ev.consume)
	if err != nil {
		t.Fatal(err)
	}
	tools, err := p.Tools(context.Background())
	if err != nil || len(tools) != 1 || !strings.Contains(string(tools[0].Definition().InputSchema), "innerThought") {
		t.Fatalf("Tools = %v, %v", tools, err)
	}
	failing := tool.ProviderFunc(func(context.Context) ([]tool.Tool, error) { return nil, errors.New("server down") })
	p, _ = Provider(failing, ev.consume)
	if _, err := p.Tools(context.Background()); err == nil || !strings.Contains(err.Error(), "server down") {
		t.Errorf("provider error: %v", err)
	}
}

func TestConcurrentCalls(t *testing.T) {
	w, r, ev := weatherAugmented(t)
	var wg sync.WaitGroup
	for range 16 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if _, err := w.Call(context.Background(), `{"innerThought":"x","city":"Oslo"}`); err != nil {
				t.Error(err)
			}
		}()
	}
	wg.Wait()
	if len(ev.got) != 16 || len(r.args) != 16 {
		t.Errorf("%d events, %d calls", len(ev.got), len(r.args))
	}
}

// An augmented tool keeps the parts the tool it wraps returns: tool.Invoke calls CallParts, so
// an image from a screenshot tool reaches the model as an image, not as a line describing it.
func TestAugmentedToolKeepsParts(t *testing.T) {
	img := content.Image([]byte{1, 2, 3}, "image/png")
	shot := tool.Must(tool.Func("shot", "Takes a screenshot.", func(context.Context, WeatherIn) (tool.Result, error) {
		return tool.Result{Text: "screen", Parts: []content.Part{img}}, nil
	}))
	ev := &events{}
	w, err := Tool(shot, ev.consume)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := w.(tool.PartsTool); !ok {
		t.Fatal("the augmented tool is not a PartsTool")
	}
	res, err := tool.Invoke(context.Background(), w, `{"innerThought":"look","city":"Paris"}`)
	if err != nil {
		t.Fatal(err)
	}
	if res.Text != "screen" || len(res.Parts) != 1 || res.Parts[0].Kind != content.KindImage {
		t.Errorf("Invoke = %+v, want the text and the image", res)
	}
	// A tool without parts is still called through Call.
	plain, err := Tool(tool.Tool(chattest.NewTool("plain", nil)), ev.consume)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := tool.Invoke(context.Background(), plain, `{"innerThought":"x"}`); err != nil {
		t.Error(err)
	}
}
