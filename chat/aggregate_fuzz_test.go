package chat

import (
	"math"
	"reflect"
	"slices"
	"testing"
)

// refAggregator is the aggregator's contract written plainly: text joined per generation index,
// a fragment joining the latest call of its tool-call index unless it names another id, the
// first ID and model kept, the last non-zero usage, generations in index order.
type refAggregator struct {
	id, model string
	usage     Usage
	gens      map[int]*refGen
}

type refGen struct {
	text   string
	finish FinishReason
	calls  []ToolCall
}

func (r *refAggregator) add(c *Response) {
	if r.id == "" {
		r.id = c.ID
	}
	if r.model == "" {
		r.model = c.Model
	}
	r.usage = mergeUsage(r.usage, c.Usage)
	for _, g := range c.Generations {
		if r.gens == nil {
			r.gens = map[int]*refGen{}
		}
		s := r.gens[g.Index]
		if s == nil {
			s = &refGen{}
			r.gens[g.Index] = s
		}
		s.text += g.Message.Content
		if g.FinishReason != "" {
			s.finish = g.FinishReason
		}
		for _, d := range g.Message.ToolCalls {
			k := -1
			for i := len(s.calls) - 1; i >= 0; i-- {
				if s.calls[i].Index == d.Index {
					k = i
					break
				}
			}
			if k < 0 || (d.ID != "" && s.calls[k].ID != "" && d.ID != s.calls[k].ID) {
				s.calls = append(s.calls, ToolCall{Index: d.Index})
				k = len(s.calls) - 1
			}
			c := &s.calls[k]
			if c.ID == "" {
				c.ID = d.ID
			}
			if c.Name == "" {
				c.Name = d.Name
			}
			if c.Signature == "" {
				c.Signature = d.Signature
			}
			c.Arguments += d.Arguments
		}
	}
}

func (r *refAggregator) response() *Response {
	out := &Response{ID: r.id, Model: r.model, Usage: r.usage}
	idx := make([]int, 0, len(r.gens))
	for i := range r.gens {
		idx = append(idx, i)
	}
	slices.Sort(idx)
	for _, i := range idx {
		g := r.gens[i]
		m := Message{Role: RoleAssistant, Content: g.text}
		if len(g.calls) > 0 {
			m.ToolCalls = slices.Clone(g.calls)
		}
		out.Generations = append(out.Generations, Generation{Index: i, Message: m, FinishReason: g.finish})
	}
	return out
}

// FuzzAggregator holds the aggregator to refAggregator over chunks built from the input: text
// and call fragments for hostile generation and call indexes, ids that change mid-call, usage,
// responses taken midway (which must stay as they were) and resets.
func FuzzAggregator(f *testing.F) {
	f.Add([]byte{0, 1, 2, 1, 1, 5, 1, 1, 9, 2, 1, 0, 5, 0, 0})
	f.Add([]byte{1, 0, 0, 1, 0, 4, 1, 0, 8, 1, 0, 1, 4, 0, 0, 1, 2, 3, 2, 2, 0, 5, 0, 0})
	f.Add([]byte{0, 0x7f, 1, 0, 0x80, 2, 1, 0x7f, 4, 3, 9, 9, 5, 0, 0, 0, 0xff, 3})
	f.Fuzz(func(t *testing.T, ops []byte) {
		if len(ops) > 3*400 {
			return
		}
		type taken struct{ got, want *Response }
		var (
			a    Aggregator
			ref  refAggregator
			kept []taken
		)
		pieces := []string{"a", "bc", `{"x":`, "1}", "", "é"}
		ids := []string{"", "c1", "c2"}
		for i := 0; i+2 < len(ops); i += 3 {
			k, b1, b2 := ops[i], ops[i+1], ops[i+2]
			gi := int(int8(b1)) % 3
			switch b1 {
			case 0x7f:
				gi = math.MaxInt
			case 0x80:
				gi = math.MinInt
			}
			var c *Response
			switch k % 6 {
			case 0:
				c = Delta(gi, Message{Role: RoleAssistant, Content: pieces[int(b2)%len(pieces)]}, "")
			case 1:
				c = ToolCallDelta(gi, ToolCall{Index: int(b2 % 3), ID: ids[int(b2>>2)%3], Name: ids[int(b2>>4)%3],
					Arguments: pieces[int(b2>>3)%len(pieces)]})
			case 2:
				c = Delta(gi, Message{}, []FinishReason{FinishStop, FinishToolCalls, FinishLength}[int(b2)%3])
			case 3:
				c = &Response{ID: ids[int(b1)%3], Model: ids[int(b2)%3], Usage: Usage{InputTokens: int(b1), OutputTokens: int(b2)}}
			case 4:
				kept = append(kept, taken{a.Response(), ref.response()})
			case 5:
				a.Reset()
				ref = refAggregator{}
			}
			if c != nil {
				a.Add(c)
				ref.add(c)
			}
		}
		kept = append(kept, taken{a.Response(), ref.response()})
		for i, k := range kept {
			if !reflect.DeepEqual(k.got, k.want) {
				t.Fatalf("response %d = %+v\nwant %+v", i, k.got, k.want)
			}
		}
	})
}
