package chat

import (
	"fmt"
	"math"
	"reflect"
	"strings"
	"testing"
)

func TestAggregatorEdgeCases(t *testing.T) {
	t.Run("empty stream", func(t *testing.T) {
		got, err := Aggregate(seq())
		if err != nil || got == nil || len(got.Generations) != 0 || got.HasToolCalls() {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("nil chunks are skipped", func(t *testing.T) {
		got, err := Aggregate(seq(nil, gen(0, Message{Content: "a"}, ""), nil, gen(0, Message{Content: "b"}, FinishStop)))
		if err != nil || got.Text() != "ab" || got.Result().FinishReason != FinishStop {
			t.Fatalf("%+v %v", got, err)
		}
	})
	t.Run("generations sorted by index whatever the arrival order", func(t *testing.T) {
		got, _ := Aggregate(seq(gen(2, Message{Content: "c"}, ""), gen(0, Message{Content: "a"}, ""), gen(1, Message{Content: "b"}, "")))
		var texts []string
		for i, g := range got.Generations {
			if g.Index != i {
				t.Fatalf("generation %d has index %d", i, g.Index)
			}
			texts = append(texts, g.Message.Content)
		}
		if !reflect.DeepEqual(texts, []string{"a", "b", "c"}) {
			t.Fatalf("texts = %v", texts)
		}
	})
	t.Run("extreme generation indexes sorted", func(t *testing.T) {
		// A subtracting comparator overflows here and sorts MaxInt before MinInt.
		got, _ := Aggregate(seq(gen(math.MaxInt, Message{Content: "max"}, ""), gen(0, Message{Content: "zero"}, ""),
			gen(math.MinInt, Message{Content: "min"}, ""), gen(-1, Message{Content: "minus one"}, "")))
		var order []int
		for _, g := range got.Generations {
			order = append(order, g.Index)
		}
		if want := []int{math.MinInt, -1, 0, math.MaxInt}; !reflect.DeepEqual(order, want) {
			t.Fatalf("order %v, want %v", order, want)
		}
	})
	t.Run("extreme tool-call indexes kept apart", func(t *testing.T) {
		got, _ := Aggregate(seq(
			gen(0, Message{ToolCalls: []ToolCall{{Index: math.MaxInt, ID: "a", Name: "x", Arguments: `{`}}}, ""),
			gen(0, Message{ToolCalls: []ToolCall{{Index: math.MinInt, ID: "b", Name: "y", Arguments: `{}`}}}, ""),
			gen(0, Message{ToolCalls: []ToolCall{{Index: math.MaxInt, Arguments: `}`}}}, ""),
			gen(0, Message{ToolCalls: []ToolCall{{Index: math.MaxInt, ID: "c", Name: "z", Arguments: `{}`}}}, ""),
			gen(0, Message{ToolCalls: []ToolCall{{Index: math.MaxInt, Arguments: `[]`}}}, ""),
		))
		want := []ToolCall{
			{Index: math.MaxInt, ID: "a", Name: "x", Arguments: `{}`},
			{Index: math.MinInt, ID: "b", Name: "y", Arguments: `{}`},
			{Index: math.MaxInt, ID: "c", Name: "z", Arguments: `{}[]`},
		}
		if !reflect.DeepEqual(got.ToolCalls(), want) {
			t.Fatalf("calls = %+v", got.ToolCalls())
		}
	})
	t.Run("first id, name and signature kept", func(t *testing.T) {
		got, _ := Aggregate(seq(
			gen(0, Message{ToolCalls: []ToolCall{{Index: 0, ID: "c1", Name: "weather", Signature: "sig", Arguments: `{"a"`}}}, ""),
			gen(0, Message{ToolCalls: []ToolCall{{Index: 0, ID: "c1", Arguments: `:1}`}}}, ""),
		))
		want := []ToolCall{{Index: 0, ID: "c1", Name: "weather", Signature: "sig", Arguments: `{"a":1}`}}
		if !reflect.DeepEqual(got.ToolCalls(), want) {
			t.Fatalf("calls = %+v", got.ToolCalls())
		}
	})
	t.Run("calls of different generations stay apart", func(t *testing.T) {
		got, _ := Aggregate(seq(
			gen(0, Message{ToolCalls: []ToolCall{{Index: 0, ID: "a", Name: "x", Arguments: `{`}}}, ""),
			gen(1, Message{ToolCalls: []ToolCall{{Index: 0, ID: "b", Name: "y", Arguments: `{}`}}}, ""),
			gen(0, Message{ToolCalls: []ToolCall{{Index: 0, Arguments: `}`}}}, ""),
		))
		if len(got.Generations) != 2 || got.Generations[0].Message.ToolCalls[0].Arguments != "{}" ||
			got.Generations[1].Message.ToolCalls[0].Name != "y" || len(got.ToolCalls()) != 2 {
			t.Fatalf("%+v", got)
		}
	})
	t.Run("response mid-stream and again", func(t *testing.T) {
		var a Aggregator
		a.Add(gen(0, Message{Content: "Hel"}, ""))
		mid := a.Response()
		a.Add(gen(0, Message{Content: "lo"}, FinishStop))
		if mid.Text() != "Hel" || a.Response().Text() != "Hello" || a.Response().Text() != "Hello" {
			t.Fatalf("mid %q, end %q", mid.Text(), a.Response().Text())
		}
		// The earlier snapshot does not change with later chunks.
		if mid.Result().FinishReason != "" {
			t.Fatal("snapshot changed")
		}
	})
	t.Run("usage-only chunks and raw values", func(t *testing.T) {
		got, _ := Aggregate(seq(
			&Response{Raw: "provider chunk", Usage: Usage{InputTokens: 3}},
			&Response{Usage: Usage{OutputTokens: 1, ReasoningTokens: 1}},
			&Response{Usage: Usage{OutputTokens: 4, TotalTokens: 7}},
		))
		if got.Usage != (Usage{InputTokens: 3, OutputTokens: 4, TotalTokens: 7, ReasoningTokens: 1}) || got.Raw != nil {
			t.Fatalf("%+v", got)
		}
	})
}

// BenchmarkAggregateInterleaved streams calls fragments round-robin, as a provider streaming
// parallel calls may: the cost per fragment must not grow with the number of calls (compare the
// ns/fragment of calls=10000 with calls=10).
func BenchmarkAggregateInterleaved(b *testing.B) {
	for _, calls := range []int{10, 10000} {
		b.Run(fmt.Sprintf("calls=%d", calls), func(b *testing.B) {
			const fragments = 4
			chunks := make([]*Response, 0, calls*fragments)
			for f := range fragments {
				for i := range calls {
					tc := ToolCall{Index: i, Arguments: "{}"}
					if f == 0 {
						tc.ID, tc.Name = fmt.Sprint("call", i), "tool"
					}
					chunks = append(chunks, gen(0, Message{ToolCalls: []ToolCall{tc}}, ""))
				}
			}
			b.ReportAllocs()
			for b.Loop() {
				var a Aggregator
				for _, c := range chunks {
					a.Add(c)
				}
				if len(a.Response().ToolCalls()) != calls {
					b.Fatal("lost calls")
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(chunks)), "ns/fragment")
		})
	}
}

// TestAggregatorManyFragments joins more text, argument fragments and calls than the
// aggregator keeps room for in itself, built with Delta and ToolCallDelta, and checks that a
// response taken early is not changed by later chunks.
func TestAggregatorManyFragments(t *testing.T) {
	var a Aggregator
	var want strings.Builder
	for i := range 20 {
		s := fmt.Sprintf("t%d ", i)
		want.WriteString(s)
		a.Add(Delta(0, Message{Role: RoleAssistant, Content: s}, ""))
	}
	early := a.Response()
	for call := range 5 {
		a.Add(ToolCallDelta(0, ToolCall{Index: call, ID: fmt.Sprint("c", call), Name: "f"}))
		for i := range 9 {
			a.Add(ToolCallDelta(0, ToolCall{Index: call, Arguments: fmt.Sprint(i)}))
		}
	}
	a.Add(Delta(0, Message{}, FinishToolCalls))
	r := a.Response()
	if got := r.Text(); got != want.String() {
		t.Fatalf("text = %q", got)
	}
	calls := r.ToolCalls()
	if len(calls) != 5 {
		t.Fatalf("calls = %+v", calls)
	}
	for i, c := range calls {
		if c.ID != fmt.Sprint("c", i) || c.Arguments != "012345678" {
			t.Fatalf("call %d = %+v", i, c)
		}
	}
	if r.Generations[0].FinishReason != FinishToolCalls || len(r.Generations) != 1 || cap(r.Generations) != 1 {
		t.Fatalf("generations = %+v", r.Generations)
	}
	if early.Text() != want.String() || early.HasToolCalls() || early.Generations[0].FinishReason != "" {
		t.Fatalf("early response changed: %+v", early)
	}
}

// TestAggregatorReset checks that an aggregator reused after Reset joins a stream as a new one
// does, with nothing of the stream before it, and that what it returned before stays whole.
func TestAggregatorReset(t *testing.T) {
	busy := func() []*Response {
		var chunks []*Response
		for i := range 12 {
			chunks = append(chunks, Delta(0, Message{Role: RoleAssistant, Content: fmt.Sprint("a", i)}, ""))
		}
		for call := range 3 {
			chunks = append(chunks, ToolCallDelta(0, ToolCall{Index: call, ID: fmt.Sprint("c", call), Name: "f", Signature: "s"}))
			for i := range 6 {
				chunks = append(chunks, ToolCallDelta(0, ToolCall{Index: call, Arguments: fmt.Sprint(i)}))
			}
		}
		chunks = append(chunks,
			Delta(0, Message{Reasoning: []Reasoning{{Text: "why"}}, ServerTools: []ServerTool{{ID: "st"}}}, ""),
			&Response{ID: "r1", Model: "m1", Usage: Usage{InputTokens: 3, OutputTokens: 4}, Generations: []Generation{
				{Index: 3, Message: Message{Content: "other"}, FinishReason: FinishStop},
			}},
			Delta(0, Message{}, FinishToolCalls))
		return chunks
	}
	small := []*Response{
		Delta(0, Message{Role: RoleAssistant, Content: "b"}, ""),
		ToolCallDelta(0, ToolCall{ID: "x", Name: "g", Arguments: `{}`}),
		Delta(0, Message{}, FinishStop),
	}
	join := func(a *Aggregator, chunks []*Response) *Response {
		for _, c := range chunks {
			a.Add(c)
		}
		return a.Response()
	}
	var fresh1, fresh2 Aggregator
	want1, want2 := join(&fresh1, busy()), join(&fresh2, small)

	var a Aggregator
	first := join(&a, busy())
	if !reflect.DeepEqual(first, want1) {
		t.Fatalf("first stream = %+v, want %+v", first, want1)
	}
	a.Reset()
	if got := a.Response(); len(got.Generations) != 0 || got.ID != "" || got.Usage != (Usage{}) {
		t.Fatalf("after Reset = %+v", got)
	}
	if got := join(&a, small); !reflect.DeepEqual(got, want2) {
		t.Fatalf("second stream = %+v, want %+v", got, want2)
	}
	if !reflect.DeepEqual(first, want1) {
		t.Fatalf("first response changed after reuse: %+v", first)
	}
	a.Reset()
	if got := join(&a, busy()); !reflect.DeepEqual(got, want1) {
		t.Fatalf("third stream = %+v, want %+v", got, want1)
	}
}

// BenchmarkAggregateTurn joins the two streams of a tool-calling turn with one aggregator
// reused as a client's model streams reuse theirs: a call in three argument fragments, then
// an answer in five text chunks.
func BenchmarkAggregateTurn(b *testing.B) {
	args := []string{`{"location":`, `"Copenhagen","un`, `it":"C"}`}
	texts := []string{"It is ", "30 degrees ", "in ", "Copenhagen", ", done."}
	var calls, answer []*Response
	for i, f := range args {
		tc := ToolCall{Arguments: f}
		if i == 0 {
			tc.ID, tc.Name = "call_1", "getWeather"
		}
		calls = append(calls, ToolCallDelta(0, tc))
	}
	calls[len(calls)-1].Generations[0].FinishReason = FinishToolCalls
	for _, t := range texts {
		answer = append(answer, Delta(0, Assistant(t), ""))
	}
	answer[len(answer)-1].Generations[0].FinishReason = FinishStop
	var a Aggregator
	b.ReportAllocs()
	for b.Loop() {
		for _, c := range calls {
			a.Add(c)
		}
		if r := a.Response(); len(r.Generations[0].Message.ToolCalls) != 1 {
			b.Fatal("lost the call")
		}
		a.Reset()
		for _, c := range answer {
			a.Add(c)
		}
		if r := a.Response(); r.Text() == "" {
			b.Fatal("lost the text")
		}
		a.Reset()
	}
}
