package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/engine"
)

// State is what a turn's compaction has done that its messages do not show: the originals of what
// was cut, a budget tightened after a refusal, the estimate's calibration. A durable runtime carries it where a turn goes on
// in a new run: take it with [Compactor.State] and start the next run under [WithState]. A
// turn's saved and stopped states carry it too ([client.TurnState.Carried]), so a resumed turn
// and a durable turn's next run (Temporal's continue-as-new) go on from it with no help. It is
// plain JSON. With a [Config.Store] the originals live there and the
// State holds only their ids, so it stays small whatever was cut.
type State struct {
	// Budget is the input budget after a context-length refusal; 0 when none.
	Budget int `json:"budget,omitempty"`
	// Scale is the turn's correction of the estimate by the usage its responses reported, in
	// thousandths; 0 when none.
	Scale int `json:"scale,omitempty"`
	// Cut lists the ids of what was cut or summarised, in order.
	Cut []string `json:"cut,omitempty"`
	// Originals holds, without a Store, the full text of each cut id.
	Originals map[string]string `json:"originals,omitempty"`
}

// State returns the compaction state of turn t (nil when compaction did nothing in it), to carry
// into a run that continues the turn ([WithState]). Read it between model calls: from a loop
// hook, or once the turn stopped or ended.
func (c *Compactor) State(t *client.Turn) *State {
	if t == nil {
		return nil
	}
	st, _ := t.Value(stateKey{}).(*turnState)
	if st == nil || !st.cut() && st.budget == 0 && st.scale == 0 {
		return nil
	}
	out := &State{Budget: st.budget, Scale: st.scale, Cut: slices.Clone(st.order)}
	if st.store == nil || st.conv == "" {
		out.Originals = maps.Clone(st.originals)
	}
	return out
}

type carriedKey struct{}

// carriedName is the name compaction's State goes under in a turn's saved states
// ([client.Turn.SetCarried]).
const carriedName = "compact"

// maxCarriedOriginals bounds, without a Store, the originals' text a turn's saved states carry:
// the newest are kept, and a fetch of an older one after the turn resumes says it is gone. A
// long turn that must keep them all sets [Config.Store].
const maxCarriedOriginals = 256 << 10

// carry puts the turn's State in its saved states, so that it goes on wherever the turn resumes
// (another process, a durable turn's next run) without the runtime knowing of compaction.
func (c *Compactor) carry(t *client.Turn) {
	if t == nil { // a request compacted outside a turn (the command's /compact)
		return
	}
	st, _ := t.Value(stateKey{}).(*turnState)
	if st == nil {
		return
	}
	s := State{Budget: st.budget, Scale: st.scale, Cut: st.order}
	if (st.store == nil || st.conv == "") && len(st.originals) > 0 {
		s.Originals = make(map[string]string)
		n := 0
		for i := len(st.order) - 1; i >= 0; i-- {
			text, ok := st.originals[st.order[i]]
			if !ok {
				continue
			}
			if n += len(text); n > maxCarriedOriginals {
				break
			}
			s.Originals[st.order[i]] = text
		}
	}
	b, err := json.Marshal(s)
	if err != nil {
		return // strings and numbers: not reached
	}
	t.SetCarried(carriedName, b)
}

// WithState returns ctx carrying s: a turn whose tool loop starts under it, compacted by a
// [Compactor] of the same configuration, continues from s (its fetch tool finds what s holds,
// its budget is s's). Every turn started under ctx does, sub-agents' too.
func WithState(ctx context.Context, s *State) context.Context {
	return context.WithValue(ctx, carriedKey{}, s)
}

// init continues a turn from the compacted state it carries: a State from its context, or, with
// a Store, messages holding a compacted form (a resumed turn, a history stored compacted), whose
// originals the fetch tool then reads from the Store.
func (c *Compactor) init(ctx context.Context, req *client.Request) (*client.Request, error) {
	s, _ := ctx.Value(carriedKey{}).(*State)
	if s == nil && req.Turn != nil {
		if raw := req.Turn.Carried(carriedName); raw != nil {
			s = new(State)
			if err := json.Unmarshal(raw, s); err != nil {
				return nil, fmt.Errorf("compact: the turn's carried state: %w", err)
			}
		}
	}
	if s != nil {
		st := c.stateOf(req)
		if s.Budget > 0 {
			st.budget = s.Budget
		}
		if s.Scale > 0 {
			st.scale = min(max(s.Scale, 250), 4000)
		}
		for _, id := range s.Cut {
			if text, ok := s.Originals[id]; ok {
				st.keepText(id, text)
			} else if !slices.Contains(st.order, id) {
				st.order = append(st.order, id)
			}
		}
		st.carried = len(s.Cut) > 0
		return req, nil
	}
	if c.cfg.Store != nil && compacted(req.Prompt.Messages) {
		c.stateOf(req).carried = true
	}
	return req, nil
}

// compacted reports whether msgs hold an excerpt, a cleared stub or a summary.
func compacted(msgs []chat.Message) bool {
	for i := range msgs {
		m := &msgs[i]
		if m.Role == chat.RoleUser && strings.HasPrefix(m.Content, summaryMark) {
			return true
		}
		for j := range m.ToolResults {
			if s := m.ToolResults[j].Content; strings.HasPrefix(s, cutMark) || strings.HasPrefix(s, clearedMark) {
				return true
			}
		}
	}
	return false
}

// stored reads the original of id from the Store: a cut result's text, or the transcript of what
// a summary replaced.
func (s *turnState) stored(ctx context.Context, id string) (string, bool, error) {
	if s.store == nil || s.conv == "" {
		return "", false, nil
	}
	// A recorded step: in a durable turn the fetch tool runs in the workflow, as advisor code.
	type read struct {
		Originals []chat.Message `json:"originals,omitempty"`
		OK        bool           `json:"ok,omitempty"`
	}
	r, err := engine.Effect(ctx, "compact.fetch", func(ctx context.Context) (read, error) {
		_, originals, ok, err := s.store.Replaced(ctx, s.conv, id)
		return read{originals, ok}, err
	})
	if err != nil {
		return "", false, fmt.Errorf("reading %q: %w", id, err)
	}
	if !r.OK {
		return "", false, nil
	}
	originals := r.Originals
	if len(originals) == 1 && originals[0].Role == chat.RoleTool && len(originals[0].ToolResults) == 1 && originals[0].ToolResults[0].ID == id {
		return originals[0].ToolResults[0].Content, true, nil
	}
	var b strings.Builder
	for i := range originals {
		writeMessage(&b, &originals[i], nil)
	}
	return b.String(), true, nil
}
