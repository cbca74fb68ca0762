package anthropic

import (
	"encoding/json"
	"fmt"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/wield-ai/wield/chat"
)

// ExtraCompaction ([Compaction], *Compaction, or nil to turn it off) sets the call's server-side
// compaction, replacing [Config.Compaction] and what a compactor asks for.
const ExtraCompaction = "anthropic.compaction"

// compactionBeta is the beta that compaction needs.
const compactionBeta = "compact-2026-01-12"

// compactionStep names the step holding a compaction block (compact.NativeCompaction).
const compactionStep = "compaction"

// minCompactionTrigger is the least trigger the API takes.
const minCompactionTrigger = 50000

// compactionModels are the models Anthropic's compaction documentation lists, by name prefix (so
// that dated snapshots match): a compactor's request for the provider's own context management
// ([Config.ContextEditing]'s neutral key) gets compaction on these, and context editing's clearing
// on others. [Config.Compaction] and [ExtraCompaction] turn it on for any model.
var compactionModels = []string{"claude-opus-4-6", "claude-sonnet-4-6", "claude-opus-4-7", "claude-mythos-preview"}

// Compaction configures Anthropic's server-side compaction (the compact_20260112 edit, under the
// compact-2026-01-12 beta): once a request's input exceeds Trigger tokens, the API summarises the
// conversation, begins its answer with a compaction block holding the summary, and answers from
// that. The block is kept in the answer's [chat.Message.ServerTools] as a step named
// "compaction" (Data: the block as it came) and goes back in its place, first in its assistant
// turn: the API drops everything before it from later requests. A compactor (package compact)
// makes the history show that on the next call, as a summary whose originals stay readable by
// id. A block whose compaction failed (no summary) is not kept, since the API treats it as
// nothing.
type Compaction struct {
	// Trigger is the input tokens above which the API compacts: 0 is the API's default
	// (150,000); else at least 50,000.
	Trigger int
	// Instructions, when set, are the API's instructions for the summary.
	Instructions string
}

func (c *Compaction) check() error {
	if c != nil && c.Trigger != 0 && c.Trigger < minCompactionTrigger {
		return fmt.Errorf("anthropic: compaction: Trigger %d; the API compacts at %d tokens at the least", c.Trigger, minCompactionTrigger)
	}
	return nil
}

// compactionOf returns the call's compaction: the call's own, else the configured one, else,
// when a compactor asks for the provider's context management on a model the documentation
// lists, one at the compactor's trigger (raised to the API's least). native reports that the
// compactor's request is answered by it, so that it does not also turn context editing on.
func compactionOf(extra map[string]any, configured *Compaction, platform string, model sdk.Model) (c *Compaction, native bool, err error) {
	_, asked := extra[extraNative]
	if c, set, err := extraSetting[Compaction](extra, ExtraCompaction); set {
		if err != nil {
			return nil, false, err
		}
		return c, asked && c != nil, c.check()
	}
	if configured != nil {
		return configured, asked, configured.check()
	}
	if !asked || platform != ProviderName || !documentedCompaction(string(model)) {
		return nil, false, nil
	}
	m, _, err := nativeRequest(extra)
	if err != nil {
		return nil, false, err
	}
	return &Compaction{Trigger: max(m["trigger"], minCompactionTrigger)}, true, nil
}

func documentedCompaction(model string) bool {
	for _, p := range compactionModels {
		if strings.HasPrefix(model, p) {
			return true
		}
	}
	return false
}

// compaction asks the API to compact the request as c says, after any other edit, and asks for
// the beta when c is set or the conversation holds a compaction block to send back.
func (r *request) compaction(c *Compaction, msgs []chat.Message) {
	if c != nil {
		edit := sdk.BetaCompact20260112EditParam{}
		if c.Trigger > 0 {
			edit.Trigger = sdk.BetaInputTokensTriggerParam{Value: int64(c.Trigger)}
		}
		if c.Instructions != "" {
			edit.Instructions = sdk.String(c.Instructions)
		}
		// Appended, so that context editing's edit, set before, stays.
		r.opts = append(r.opts, option.WithJSONSet("context_management.edits.-1", edit))
	}
	if c != nil || holdsCompaction(msgs) {
		r.opts = append(r.opts, option.WithHeaderAdd("anthropic-beta", compactionBeta))
	}
}

func holdsCompaction(msgs []chat.Message) bool {
	for i := range msgs {
		for _, st := range msgs[i].ServerTools {
			if st.Provider == ProviderName && st.Name == compactionStep {
				return true
			}
		}
	}
	return false
}

// compactionBlock is what a compaction block holds.
type compactionBlock struct {
	Content          *string         `json:"content"`
	EncryptedContent string          `json:"encrypted_content"`
	Signature        *string         `json:"signature,omitempty"`
	ToolChanges      json.RawMessage `json:"tool_changes,omitempty"`
}

// compactionStepOf returns the step keeping a compaction block of an answer, raw as it came; ok
// is false for a failed compaction (no summary), which is not kept.
func compactionStepOf(raw string) (st chat.ServerTool, ok bool, err error) {
	var b compactionBlock
	if err := json.Unmarshal([]byte(raw), &b); err != nil {
		return st, false, fmt.Errorf("compaction block: %w", err)
	}
	if b.Content == nil || *b.Content == "" {
		return st, false, nil
	}
	return chat.ServerTool{Provider: ProviderName, Name: compactionStep, Result: true, Data: json.RawMessage(raw)}, true, nil
}

// compactionBlocks returns the compaction blocks a message keeps, as blocks to send back: the
// summary, encrypted content, signature and tool changes as the API gave them.
func compactionBlocks(msg *chat.Message) ([]sdk.ContentBlockParamUnion, error) {
	var out []sdk.ContentBlockParamUnion
	for _, st := range msg.ServerTools {
		if st.Provider != ProviderName || st.Name != compactionStep {
			continue
		}
		var b compactionBlock
		if err := json.Unmarshal(st.Data, &b); err != nil || b.Content == nil {
			return nil, fmt.Errorf("the compaction block kept is not valid: %s", st.Data)
		}
		if string(b.ToolChanges) == "null" {
			b.ToolChanges = nil
		}
		if b.Signature != nil && *b.Signature == "" {
			b.Signature = nil
		}
		data, err := json.Marshal(struct {
			Type string `json:"type"`
			compactionBlock
		}{"compaction", b})
		if err != nil {
			return nil, err
		}
		// The Messages API's block types have none for compaction: the block goes as its JSON.
		out = append(out, param.Override[sdk.ContentBlockParamUnion](json.RawMessage(data)))
	}
	return out, nil
}

// compactionParts is a streamed compaction block's summary and encrypted content, as its deltas
// bring them (the API sends each whole in one delta; several are joined).
type compactionParts struct {
	content, encrypted strings.Builder
}

// compactionDelta adds a compaction_delta event, raw as it came, to b.
func (b *block) compactionDelta(raw string) error {
	var ev struct {
		Delta struct {
			Content          *string `json:"content"`
			EncryptedContent string  `json:"encrypted_content"`
		} `json:"delta"`
	}
	if err := json.Unmarshal([]byte(raw), &ev); err != nil {
		return malformed("compaction_delta: %v", err)
	}
	if b.compaction == nil {
		b.compaction = new(compactionParts)
	}
	if ev.Delta.Content != nil {
		b.compaction.content.WriteString(*ev.Delta.Content)
	}
	b.compaction.encrypted.WriteString(ev.Delta.EncryptedContent)
	return nil
}

// compactionStop ends a streamed compaction block: the block as it started, with what its deltas
// brought, becomes the block of the whole answer (b.start) and the delta's step.
func (s *streamState) compactionStop(i int64, b *block) (*chat.Response, error) {
	if b.compaction != nil {
		var fields map[string]json.RawMessage
		if err := json.Unmarshal([]byte(b.start), &fields); err != nil {
			return nil, malformed("compaction %d: %v", i, err)
		}
		content, _ := json.Marshal(b.compaction.content.String())
		encrypted, _ := json.Marshal(b.compaction.encrypted.String())
		fields["content"], fields["encrypted_content"] = content, encrypted
		whole, err := json.Marshal(fields)
		if err != nil {
			return nil, malformed("compaction %d: %v", i, err)
		}
		b.start = string(whole)
	}
	st, ok, err := compactionStepOf(b.start)
	if err != nil {
		return nil, malformed("%v", err)
	}
	if !ok {
		return nil, nil
	}
	return chat.Delta(0, chat.Message{Role: chat.RoleAssistant, ServerTools: []chat.ServerTool{st}}, ""), nil
}

// wholeCompaction puts the streamed compaction blocks, whole, into msg: the SDK's accumulator
// knows no compaction_delta.
func (s *streamState) wholeCompaction(msg *sdk.Message) error {
	for i, b := range s.blocks {
		if b != nil && b.kind == "compaction" && i < len(msg.Content) {
			if err := msg.Content[i].UnmarshalJSON([]byte(b.start)); err != nil {
				return malformed("compaction %d: %v", i, err)
			}
		}
	}
	return nil
}
