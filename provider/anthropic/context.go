package anthropic

import (
	"encoding/json"
	"fmt"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"

	"github.com/wield-ai/wield/chat"
)

// ExtraContextEditing ([ContextEditing], *ContextEditing, or nil to turn it off) sets the call's
// context editing, replacing [Config.ContextEditing].
const ExtraContextEditing = "anthropic.context_editing"

// extraNative is the key by which a compactor asks for the provider's own context management
// (compact.ExtraNative): a map[string]int with "trigger" and "keep".
const extraNative = "context.native"

// contextBeta is the beta that context editing needs.
const contextBeta = "context-management-2025-06-27"

// contextStep names the server step by which an answer reports the tool results the API cleared
// from its request (compact.NativeCleared).
const contextStep = "context_management"

// ContextEditing configures Anthropic's context editing: once a request's input exceeds Trigger
// tokens, the API clears the oldest tool results in it, leaving the newest Keep, before the model
// reads it (the clear_tool_uses_20250919 edit, under the context-management-2025-06-27 beta). The
// conversation sent is not changed; the answer reports the results cleared in a
// [chat.ServerTool] step named "context_management", whose Data holds their call ids
// ("cleared", oldest first), the input tokens saved ("cleared_input_tokens") and the API's own
// report ("context_management"), so that a compactor (package compact) makes the history show
// the same on the next call. The step is never sent back.
type ContextEditing struct {
	// Trigger is the input tokens above which results are cleared; 0 is the API's default
	// (100,000).
	Trigger int
	// Keep is how many of the newest tool uses keep their results; 0 is the API's default (3).
	Keep int
	// ClearAtLeast, when positive, is the fewest input tokens a clearing must save, so that it is
	// worth the prompt cache it breaks.
	ClearAtLeast int
	// ExcludeTools names the tools whose results are never cleared.
	ExcludeTools []string
}

func (ce *ContextEditing) check() error {
	if ce == nil {
		return nil
	}
	if ce.Trigger < 0 || ce.Keep < 0 || ce.ClearAtLeast < 0 {
		return fmt.Errorf("anthropic: context editing: Trigger %d, Keep %d and ClearAtLeast %d may not be negative", ce.Trigger, ce.Keep, ce.ClearAtLeast)
	}
	return nil
}

// contextEditing returns the call's context editing: the call's own, else a compactor's request
// for it (unless compaction answers it: compacted), else the configured one; nil when none.
func contextEditing(extra map[string]any, configured *ContextEditing, compacted bool) (*ContextEditing, error) {
	if ce, set, err := extraSetting[ContextEditing](extra, ExtraContextEditing); set {
		if err != nil {
			return nil, err
		}
		return ce, ce.check()
	}
	if configured == nil && !compacted {
		m, asked, err := nativeRequest(extra)
		if err != nil {
			return nil, err
		}
		if asked {
			ce := &ContextEditing{Trigger: m["trigger"], Keep: m["keep"]}
			return ce, ce.check()
		}
	}
	return configured, configured.check()
}

// extraSetting reads the call's setting of type T from extra[key]: a T or a *T, nil turning it
// off. set reports whether the call has the key.
func extraSetting[T any](extra map[string]any, key string) (s *T, set bool, err error) {
	v, set := extra[key]
	switch v := v.(type) {
	case nil:
		return nil, set, nil
	case T:
		return &v, true, nil
	case *T:
		return v, true, nil
	}
	var want T
	return nil, true, fmt.Errorf("anthropic: %s is a %T, want %T", key, v, want)
}

// nativeRequest returns a compactor's request for the provider's own context management, its
// numbers by name; asked reports whether the call has one.
func nativeRequest(extra map[string]any) (m map[string]int, asked bool, err error) {
	v, asked := extra[extraNative]
	if !asked {
		return nil, false, nil
	}
	if m, ok := v.(map[string]int); ok {
		return m, true, nil
	}
	return nil, true, fmt.Errorf("anthropic: %s is a %T, want map[string]int", extraNative, v)
}

// contextEditing asks the API to clear old tool results from the request, as ce says, and
// remembers which results it could clear, oldest first, to name those it reports cleared.
func (r *request) contextEditing(ce *ContextEditing, msgs []chat.Message) {
	if ce == nil {
		return
	}
	edit := sdk.BetaClearToolUses20250919EditParam{}
	if ce.Trigger > 0 {
		edit.Trigger.OfInputTokens = &sdk.BetaInputTokensTriggerParam{Value: int64(ce.Trigger)}
	}
	if ce.Keep > 0 {
		edit.Keep = sdk.BetaToolUsesKeepParam{Value: int64(ce.Keep)}
	}
	if ce.ClearAtLeast > 0 {
		edit.ClearAtLeast = sdk.BetaInputTokensClearAtLeastParam{Value: int64(ce.ClearAtLeast)}
	}
	for _, name := range ce.ExcludeTools {
		edit.ExcludeTools = append(edit.ExcludeTools, r.names.Wire(name))
	}
	cm := sdk.BetaContextManagementConfigParam{Edits: []sdk.BetaContextManagementConfigEditUnionParam{{OfClearToolUses20250919: &edit}}}
	r.opts = append(r.opts, option.WithJSONSet("context_management", cm), option.WithHeaderAdd("anthropic-beta", contextBeta))
	r.editing = true
	for i := range msgs {
		for _, res := range msgs[i].ToolResults {
			if !slices.Contains(ce.ExcludeTools, res.Name) {
				r.clearable = append(r.clearable, res.ID)
			}
		}
	}
}

// appliedEdits is the context_management object of an answer (whole, or a stream's
// message_delta).
type appliedEdits struct {
	ContextManagement *struct {
		AppliedEdits []struct {
			Type               string `json:"type"`
			ClearedToolUses    int    `json:"cleared_tool_uses"`
			ClearedInputTokens int    `json:"cleared_input_tokens"`
		} `json:"applied_edits"`
	} `json:"context_management"`
}

// reportEdits adds to resp the step reporting the tool results the API cleared, read from raw,
// the answer's JSON (or its message_delta event's). The API clears the oldest results it may, so
// the ones it cleared are the first of those the request held.
func (r *request) reportEdits(resp *chat.Response, raw string) (*chat.Response, error) {
	if resp == nil || !r.editing {
		return resp, nil
	}
	var a appliedEdits
	if err := json.Unmarshal([]byte(raw), &a); err != nil {
		return nil, fmt.Errorf("anthropic: malformed context_management: %w", err)
	}
	if a.ContextManagement == nil {
		return resp, nil
	}
	n, saved := 0, 0
	for _, e := range a.ContextManagement.AppliedEdits {
		if e.Type == "clear_tool_uses_20250919" {
			n += e.ClearedToolUses
			saved += e.ClearedInputTokens
		}
	}
	if n == 0 {
		return resp, nil
	}
	if n > len(r.clearable) {
		return nil, fmt.Errorf("anthropic: the API reports %d tool results cleared, but the request held %d it could clear", n, len(r.clearable))
	}
	cm, err := json.Marshal(a.ContextManagement)
	if err != nil {
		return nil, err
	}
	data, err := json.Marshal(struct {
		Cleared      []string        `json:"cleared"`
		ClearedInput int             `json:"cleared_input_tokens"`
		Report       json.RawMessage `json:"context_management"`
	}{r.clearable[:n], saved, cm})
	if err != nil {
		return nil, err
	}
	if len(resp.Generations) == 0 {
		resp.Generations = []chat.Generation{{Message: chat.Message{Role: chat.RoleAssistant}}}
	}
	msg := &resp.Generations[0].Message
	msg.ServerTools = append(msg.ServerTools, chat.ServerTool{Provider: ProviderName, Name: contextStep, Result: true, Data: data})
	return resp, nil
}
