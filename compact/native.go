package compact

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"github.com/wield-ai/wield/budget"
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
)

// ExtraNative is the key of [chat.Options.Extra] under which a compactor with [Config.Native]
// asks the provider for its own context management; providers without it ignore the key. The
// value is a map[string]int: "trigger", the input tokens above which the provider acts, and
// "keep", how many of the newest tool results it leaves whole. Anthropic's provider compacts the
// conversation on the models that offer it and clears the oldest tool results (context editing)
// on others; OpenAI's Responses API compacts the conversation.
const ExtraNative = "context.native"

// Names of the [chat.ServerTool] steps by which a provider reports what its context management
// did to a request, in the answer's message. The compactor's next call makes the loop's history
// show the same (see [Config.Native]).
const (
	// NativeCleared reports tool results the provider cleared. Its Data is a JSON object whose
	// "cleared" lists the call ids of the results, oldest first, and whose
	// "cleared_input_tokens" says how many input tokens that saved; the rest is the provider's
	// own report.
	NativeCleared = "context_management"
	// NativeCompaction is the provider's compaction item or block (Data: as it came), which
	// stands for the whole conversation before it and goes back to the provider in its place.
	// Where Data holds a readable summary ("content", as Anthropic's block does), the history's
	// summary message shows it too.
	NativeCompaction = "compaction"
)

// nativeFraction is the part of the budget at which a provider's own context management is asked
// to act, so that it acts before the compactor's own policies would.
const nativeFraction = 3 // quarters

// native asks the provider of req for its context management, against budget b.
func (c *Compactor) native(req *client.Request, b int) *client.Request {
	if !c.cfg.Native || b <= 0 {
		return req
	}
	o := req.Prompt.Options
	if o != nil {
		if _, set := o.Extra[ExtraNative]; set {
			return req
		}
	}
	o = o.Clone()
	if o.Extra == nil {
		o.Extra = make(map[string]any, 1)
	}
	o.Extra[ExtraNative] = map[string]int{"trigger": b * nativeFraction / 4, "keep": max(c.cfg.KeepResults, 1)}
	return req.WithOptions(o)
}

// clearedStep is what a [NativeCleared] step's Data holds for the compactor.
type clearedStep struct {
	Cleared      []string `json:"cleared"`
	ClearedInput int      `json:"cleared_input_tokens"`
}

// hasNative reports whether msgs hold a provider's report of its context management.
func hasNative(msgs []chat.Message) bool {
	for i := range msgs {
		for j := range msgs[i].ServerTools {
			if n := msgs[i].ServerTools[j].Name; n == NativeCleared || n == NativeCompaction {
				return true
			}
		}
	}
	return false
}

// mirror makes msgs show what the provider's context management did to the request before them:
// results it cleared become the compactor's stubs, and a compaction item takes the place of the
// conversation it stands for (after the leading system messages), as a summary whose originals
// stay readable by the item's id. The reports are taken out, so each is applied once. ev records
// what changed.
func (c *Compactor) mirror(ctx context.Context, msgs []chat.Message, st *turnState, e budget.Estimator, ev *client.Compaction) ([]chat.Message, error) {
	msgs = slices.Clone(msgs)
	for i := 0; i < len(msgs); i++ {
		m := &msgs[i]
		if len(m.ServerTools) == 0 || m.Role != chat.RoleAssistant {
			continue
		}
		var kept []chat.ServerTool
		var compaction *chat.ServerTool
		for _, s := range m.ServerTools {
			switch s.Name {
			case NativeCleared:
				var step clearedStep
				if err := json.Unmarshal(s.Data, &step); err != nil {
					return nil, fmt.Errorf("compact: the provider's report of cleared results: %w", err)
				}
				if err := c.clearNative(ctx, msgs[:i], step.Cleared, st, e, ev); err != nil {
					return nil, err
				}
			case NativeCompaction:
				compaction = &s
			default:
				kept = append(kept, s)
			}
		}
		m.ServerTools = kept
		if compaction != nil {
			var err error
			if msgs, i, err = c.foldNative(ctx, msgs, i, *compaction, st, ev); err != nil {
				return nil, err
			}
		}
	}
	return msgs, nil
}

// clearNative replaces the results with the ids given, in msgs, by the compactor's stubs.
func (c *Compactor) clearNative(ctx context.Context, msgs []chat.Message, ids []string, st *turnState, e budget.Estimator, ev *client.Compaction) error {
	for _, id := range ids {
		for i := len(msgs) - 1; i >= 0; i-- { // the newest result of a reused id is the one sent
			j := slices.IndexFunc(msgs[i].ToolResults, func(r chat.ToolResult) bool { return r.ID == id })
			if j < 0 {
				continue
			}
			r := &msgs[i].ToolResults[j]
			if strings.HasPrefix(r.Content, clearedMark) {
				break // cleared already
			}
			msgs[i] = cloneResults(msgs[i])
			r = &msgs[i].ToolResults[j]
			orig := *r
			fid, capped := "", strings.HasPrefix(r.Content, cutMark)
			if capped {
				fid, capped = markedID(r.Content)
			}
			if !capped {
				fid = st.fetchID(r.ID, r.Content)
			}
			r.Content = fmt.Sprintf("%s %s result, id %q, %d tokens, cleared by the provider; %s reads it]", clearedMark, r.Name, fid, e.Result(&orig), FetchToolName)
			r.Parts = nil
			if !capped {
				if err := c.keep(ctx, st, fid, &orig, r); err != nil {
					return err
				}
			}
			ev.Cleared = append(ev.Cleared, id)
			break
		}
	}
	return nil
}

// foldNative replaces the messages before msgs[at] (after the leading system messages) by one
// summary message holding the compaction item, whose originals are kept under the item's id. It
// returns the messages and the new index of the message that held the item.
func (c *Compactor) foldNative(ctx context.Context, msgs []chat.Message, at int, item chat.ServerTool, st *turnState, ev *client.Compaction) ([]chat.Message, int, error) {
	start := 0
	for start < at && msgs[start].Role == chat.RoleSystem {
		start++
	}
	// Anthropic's block holds a readable summary (content), the Responses API's item an id.
	var it struct {
		ID      string `json:"id"`
		Content string `json:"content"`
	}
	_ = json.Unmarshal(item.Data, &it) // an item without an id is named by its place
	id := item.ID
	if id == "" {
		if id = it.ID; id == "" {
			id = fmt.Sprintf("compaction-%d", len(st.order)+1)
		}
	}
	old := slices.Clone(msgs[start:at])
	var b strings.Builder
	for i := range old {
		writeMessage(&b, &old[i], st)
	}
	text := fmt.Sprintf("%s, id %q, compacted by the provider; %s reads what it replaced]", summaryMark, id, FetchToolName)
	if it.Content != "" {
		// Shown where the provider's block means nothing: another provider, a stored history.
		text += "\n" + it.Content
	}
	summary := chat.Message{Role: chat.RoleUser, Content: text, ServerTools: []chat.ServerTool{item}}
	if len(old) > 0 {
		st.keepText(id, b.String())
		if err := c.store(ctx, st, id, summary, old); err != nil {
			return nil, 0, err
		}
	}
	out := make([]chat.Message, 0, len(msgs)-len(old)+1)
	out = append(out, msgs[:start]...)
	out = append(out, summary)
	out = append(out, msgs[at:]...)
	ev.Summarized += len(old)
	ev.SummaryID = id
	return out, start + 1, nil
}

// nativeSaved returns the input tokens the provider's context management took out of the request
// that resp answers, and whether it compacted it (then its usage says nothing of the request).
func nativeSaved(resp *chat.Response) (cleared int, compacted bool) {
	if resp == nil || len(resp.Generations) == 0 {
		return 0, false
	}
	for _, s := range resp.Generations[0].Message.ServerTools {
		switch s.Name {
		case NativeCleared:
			var step clearedStep
			if json.Unmarshal(s.Data, &step) == nil {
				cleared += step.ClearedInput
			}
		case NativeCompaction:
			compacted = true
		}
	}
	return cleared, compacted
}
