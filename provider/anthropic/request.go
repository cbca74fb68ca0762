package anthropic

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"

	sdk "github.com/anthropics/anthropic-sdk-go"
	"github.com/anthropics/anthropic-sdk-go/option"
	"github.com/anthropics/anthropic-sdk-go/packages/param"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/provider/internal/wire"
	"github.com/wield-ai/wield/tool"
)

// Keys of [chat.Options.Extra] this package reads; see the package documentation.
const (
	// ExtraThinkingBudget (int) turns on extended thinking with this budget in tokens; 0 turns
	// it off for the call.
	ExtraThinkingBudget = "anthropic.thinking_budget"
	// ExtraAdaptiveThinking (bool) turns adaptive thinking on or off for the call.
	ExtraAdaptiveThinking = "anthropic.adaptive_thinking"
	// ExtraTopK (int) sets top_k sampling.
	ExtraTopK = "anthropic.top_k"
	// ExtraBody (map[string]any) sets fields of the JSON request body, overriding fields of the
	// same name: API fields this package does not map.
	ExtraBody = "anthropic.body"
	// ExtraRequestOptions ([]option.RequestOption, or one option.RequestOption) adds SDK request
	// options to the call.
	ExtraRequestOptions = "anthropic.request_options"
	// ExtraParams (func(*anthropic.MessageNewParams)) edits the SDK request after wield built it.
	ExtraParams = "anthropic.params"
	// ExtraCache ([Cache], *Cache or bool) sets the call's prompt-caching breakpoints, replacing
	// [Config.Cache]: true means [CacheAuto], false or a nil *Cache none.
	ExtraCache = "anthropic.cache"
)

// ErrUnsupported is returned, wrapped with the setting's name, for a [chat.Options] setting the
// Messages API cannot honour (N above 1).
var ErrUnsupported = errors.New("unsupported setting")

// request is one Messages API request: the SDK parameters and per-call request options.
type request struct {
	params sdk.MessageNewParams
	opts   []option.RequestOption
	// names maps tool names to the wire names sent and back.
	names *toolname.Map
	// editing: the API may clear tool results of the request ([ContextEditing]); clearable
	// lists the call ids of those it may clear, oldest first.
	editing   bool
	clearable []string
}

// request builds the SDK request for a prompt, applying the call's options over the Model's
// defaults.
func (m *Model) request(p *chat.Prompt) (*request, error) {
	o, err := wire.Options("anthropic", p)
	if err != nil {
		return nil, err
	}
	if o.N > 1 {
		return nil, fmt.Errorf("anthropic: N=%d: %w: the Messages API returns one generation per request", o.N, ErrUnsupported)
	}
	if o.MaxTokens < 0 {
		return nil, fmt.Errorf("anthropic: MaxTokens %d is negative", o.MaxTokens)
	}
	if err := checkParts(m.platform, p.Messages); err != nil {
		return nil, err
	}

	var r request
	params := &r.params
	params.Model = m.cfg.Model
	if o.Model != "" {
		params.Model = o.Model
	}

	if err := m.sampling(params, o); err != nil {
		return nil, err
	}

	system, msgs, err := messages(p.Messages, o.ToolSearch.Server())
	if err != nil {
		return nil, err
	}
	params.System = system
	params.Messages = msgs

	if params.Tools, err = tools(o.Tools); err != nil {
		return nil, err
	}
	if params.ToolChoice, err = toolChoice(o); err != nil {
		return nil, err
	}
	r.names = toolname.ForPrompt(toolname.Anthropic, o.Tools, p.Messages)
	wireNames(params, r.names)
	if err := m.toolSearch(&r, p, o); err != nil {
		return nil, err
	}
	cache, err := extraCache(o.Extra, m.cfg.Cache)
	if err != nil {
		return nil, err
	}
	cache.apply(params)

	cp, native, err := compactionOf(o.Extra, m.cfg.Compaction, m.platform, params.Model)
	if err != nil {
		return nil, err
	}
	ce, err := contextEditing(o.Extra, m.cfg.ContextEditing, native)
	if err != nil {
		return nil, err
	}
	r.contextEditing(ce, p.Messages)
	r.compaction(cp, p.Messages)

	if rf := o.ResponseFormat; rf != nil {
		var schema map[string]any
		if err := json.Unmarshal(rf.Schema, &schema); err != nil || schema == nil {
			return nil, fmt.Errorf("anthropic: response format %q: schema is not a JSON object", rf.Name)
		}
		params.OutputConfig.Format = sdk.JSONOutputFormatParam{Schema: schema}
	}

	if err := r.extras(o.Extra); err != nil {
		return nil, err
	}
	return &r, nil
}

// sampling sets the request's temperature, top_p, top_k, stop sequences, thinking and max_tokens: the
// call's options over the Model's defaults.
func (m *Model) sampling(params *sdk.MessageNewParams, o *chat.Options) error {
	maxTokens, explicitMax := o.MaxTokens, true
	if maxTokens == 0 {
		maxTokens = m.cfg.MaxTokens
	}
	if maxTokens == 0 {
		maxTokens, explicitMax = DefaultMaxTokens, false
	}

	if t := o.Temperature; t != nil {
		params.Temperature = sdk.Float(*t)
	} else if t := m.cfg.Temperature; t != nil {
		params.Temperature = sdk.Float(*t)
	}
	if o.TopP != nil {
		params.TopP = sdk.Float(*o.TopP)
	}
	if len(o.Stop) > 0 {
		params.StopSequences = slices.Clone(o.Stop)
	}

	budget, adaptive := m.cfg.ThinkingBudget, m.cfg.AdaptiveThinking
	if v, ok, err := extraInt(o.Extra, ExtraThinkingBudget); err != nil {
		return err
	} else if ok {
		if v < 0 {
			return fmt.Errorf("anthropic: %s %d is negative", ExtraThinkingBudget, v)
		}
		budget = v
	}
	if v, ok, err := extraBool(o.Extra, ExtraAdaptiveThinking); err != nil {
		return err
	} else if ok {
		adaptive = v
	}
	switch {
	case budget > 0:
		if maxTokens <= budget {
			if explicitMax {
				return fmt.Errorf("anthropic: max tokens %d must exceed the thinking budget %d", maxTokens, budget)
			}
			maxTokens = budget + DefaultMaxTokens
		}
		params.Thinking = sdk.ThinkingConfigParamOfEnabled(int64(budget))
	case adaptive:
		params.Thinking = sdk.ThinkingConfigParamUnion{OfAdaptive: &sdk.ThinkingConfigAdaptiveParam{}}
	}
	params.MaxTokens = int64(maxTokens)

	if v, ok, err := extraInt(o.Extra, ExtraTopK); err != nil {
		return err
	} else if ok {
		params.TopK = sdk.Int(int64(v))
	}
	return nil
}

// extras applies the call's escape hatches: body fields, SDK request options and a hook on the
// SDK's parameters, in that order, after wield built the request.
func (r *request) extras(extra map[string]any) error {
	if v, ok := extra[ExtraBody]; ok {
		body, ok := v.(map[string]any)
		if !ok {
			return fmt.Errorf("anthropic: %s is a %T, want map[string]any", ExtraBody, v)
		}
		for _, k := range slices.Sorted(maps.Keys(body)) {
			r.opts = append(r.opts, option.WithJSONSet(k, body[k]))
		}
	}
	if v, ok := extra[ExtraRequestOptions]; ok {
		switch v := v.(type) {
		case []option.RequestOption:
			r.opts = append(r.opts, v...)
		case option.RequestOption:
			r.opts = append(r.opts, v)
		default:
			return fmt.Errorf("anthropic: %s is a %T, want []option.RequestOption", ExtraRequestOptions, v)
		}
	}
	if v, ok := extra[ExtraParams]; ok {
		f, ok := v.(func(*sdk.MessageNewParams))
		if !ok {
			return fmt.Errorf("anthropic: %s is a %T, want func(*anthropic.MessageNewParams)", ExtraParams, v)
		}
		f(&r.params)
	}
	return nil
}

// messages maps a conversation onto the system prompt and the user/assistant turns, merging
// consecutive messages of the same role, as the API requires. serverTools keeps Anthropic's
// tool-search steps in the assistant turns, for a request that searches on the server.
func messages(in []chat.Message, serverTools bool) ([]sdk.TextBlockParam, []sdk.MessageParam, error) {
	var system []sdk.TextBlockParam
	out := make([]sdk.MessageParam, 0, len(in))
	for i := range in {
		msg := &in[i]
		var role sdk.MessageParamRole
		var blocks []sdk.ContentBlockParamUnion
		switch msg.Role {
		case chat.RoleSystem:
			for p := range msg.AllParts() {
				if p.Kind != content.KindText {
					return nil, nil, wire.MessageError(ProviderName, i, unsupported(p, "a system prompt is text only; put media in a user message"))
				}
				if p.Text != "" {
					system = append(system, sdk.TextBlockParam{Text: p.Text})
				}
			}
			continue
		case chat.RoleUser:
			role = sdk.MessageParamRoleUser
			var err error
			if blocks, err = partBlocks(blocks, msg); err != nil {
				return nil, nil, wire.MessageError(ProviderName, i, err)
			}
		case chat.RoleAssistant:
			role = sdk.MessageParamRoleAssistant
			var err error
			if blocks, err = assistantBlocks(msg, serverTools); err != nil {
				return nil, nil, wire.MessageError(ProviderName, i, err)
			}
		case chat.RoleTool:
			role = sdk.MessageParamRoleUser
			for _, res := range msg.ToolResults {
				if res.ID == "" {
					return nil, nil, fmt.Errorf("anthropic: message %d: result of tool %q has no call id", i, res.Name)
				}
				b, err := toolResultBlock(res)
				if err != nil {
					return nil, nil, wire.MessageError(ProviderName, i, err)
				}
				blocks = append(blocks, b)
			}
			var err error
			if blocks, err = partBlocks(blocks, msg); err != nil {
				return nil, nil, wire.MessageError(ProviderName, i, err)
			}
		default:
			return nil, nil, fmt.Errorf("anthropic: message %d: unknown role %q", i, msg.Role)
		}
		// A compaction block opens an assistant turn: the one it came in, or, kept on another
		// message (a compactor's summary), the one that follows.
		compacted, err := compactionBlocks(msg)
		if err != nil {
			return nil, nil, wire.MessageError(ProviderName, i, err)
		}
		if role == sdk.MessageParamRoleAssistant && len(compacted) > 0 {
			blocks = append(compacted, blocks...)
		}
		out = appendTurn(out, role, blocks)
		if role != sdk.MessageParamRoleAssistant {
			out = appendTurn(out, sdk.MessageParamRoleAssistant, compacted)
		}
	}
	return system, out, nil
}

// appendTurn appends blocks to the conversation as a turn of role, merged into the last turn when
// it has the same role, as the API requires.
func appendTurn(out []sdk.MessageParam, role sdk.MessageParamRole, blocks []sdk.ContentBlockParamUnion) []sdk.MessageParam {
	if len(blocks) == 0 {
		return out
	}
	if n := len(out); n > 0 && out[n-1].Role == role {
		out[n-1].Content = append(out[n-1].Content, blocks...)
		return out
	}
	return append(out, sdk.MessageParam{Role: role, Content: blocks})
}

// assistantBlocks returns an assistant message's thinking, tool-search (with serverTools), text
// and tool_use blocks, in the order the API requires.
func assistantBlocks(msg *chat.Message, serverTools bool) ([]sdk.ContentBlockParamUnion, error) {
	blocks := make([]sdk.ContentBlockParamUnion, 0, len(msg.Reasoning)+1+len(msg.ToolCalls))
	for _, r := range msg.Reasoning {
		switch {
		case r.Provider != ProviderName:
			// Other providers' reasoning means nothing to Anthropic.
		case r.Encrypted != "":
			blocks = append(blocks, sdk.NewRedactedThinkingBlock(r.Encrypted))
		case r.Signature != "":
			blocks = append(blocks, sdk.NewThinkingBlock(r.Signature, r.Text))
		}
		// Thinking without a signature cannot be verified by the API, so it is not sent.
	}
	var err error
	if serverTools {
		if blocks, err = serverToolBlocks(blocks, msg); err != nil {
			return nil, err
		}
	}
	blocks, err = partBlocks(blocks, msg)
	if err != nil {
		return nil, err
	}
	for _, c := range msg.ToolCalls {
		input, err := wire.CallInput(c, validJSON)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, sdk.ContentBlockParamUnion{OfToolUse: &sdk.ToolUseBlockParam{ID: c.ID, Name: c.Name, Input: input}})
	}
	return blocks, nil
}

// validJSON passes JSON text on as tool_use.input, checked only: the SDK sends it as it is.
func validJSON(data []byte) (json.RawMessage, error) {
	if !json.Valid(data) {
		return nil, errors.New("invalid JSON")
	}
	return data, nil
}

// toolResultBlock maps a tool result onto a tool_result block: its text, images and documents as
// blocks of its content, in order.
func toolResultBlock(res chat.ToolResult) (sdk.ContentBlockParamUnion, error) {
	b := &sdk.ToolResultBlockParam{ToolUseID: res.ID}
	var err error
	if b.Content, err = wire.AppendParts(b.Content, res.AllParts(), toolResultPart); err != nil {
		return sdk.ContentBlockParamUnion{}, err
	}
	if res.IsError {
		b.IsError = sdk.Bool(true)
	}
	return sdk.ContentBlockParamUnion{OfToolResult: b}, nil
}

// partBlocks appends a message's content, Content then Parts, as blocks.
func partBlocks(blocks []sdk.ContentBlockParamUnion, msg *chat.Message) ([]sdk.ContentBlockParamUnion, error) {
	return wire.AppendParts(blocks, msg.AllParts(), partBlock)
}

// tools maps tool definitions onto custom tools.
func tools(ts []tool.Tool) ([]sdk.ToolUnionParam, error) {
	if len(ts) == 0 {
		return nil, nil
	}
	out := make([]sdk.ToolUnionParam, 0, len(ts))
	for _, t := range ts {
		def := t.Definition()
		schema, err := InputSchema(def.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("anthropic: tool %q: %w", def.Name, err)
		}
		p := &sdk.ToolParam{Name: def.Name, InputSchema: schema}
		if def.Description != "" {
			p.Description = sdk.String(def.Description)
		}
		out = append(out, sdk.ToolUnionParam{OfTool: p})
	}
	return out, nil
}

// InputSchema converts a tool's JSON Schema into Anthropic's input_schema, whose root must be an
// object: an empty schema becomes {"type":"object","properties":{}}, a schema without a type gets
// "type":"object", and a root of any other type is an error. Every other keyword is kept as
// written.
func InputSchema(schema json.RawMessage) (sdk.ToolInputSchemaParam, error) {
	var out sdk.ToolInputSchemaParam
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || string(trimmed) == "null" || string(trimmed) == "true" {
		out.Properties = map[string]any{}
		return out, nil
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(trimmed, &fields); err != nil {
		return out, fmt.Errorf("input schema is not a JSON object: %w", err)
	}
	if t, ok := fields["type"]; ok && !schemaTypeIsObject(t) {
		return out, fmt.Errorf("input schema has type %s; Anthropic requires an object at the root", t)
	}
	if p, ok := fields["properties"]; ok {
		out.Properties = p
	} else {
		out.Properties = map[string]any{}
	}
	if r, ok := fields["required"]; ok {
		if err := json.Unmarshal(r, &out.Required); err != nil {
			return out, fmt.Errorf("input schema: required is not a list of names: %w", err)
		}
	}
	for k, v := range fields {
		switch k {
		case "type", "properties", "required":
			continue
		}
		if out.ExtraFields == nil {
			out.ExtraFields = make(map[string]any, len(fields))
		}
		out.ExtraFields[k] = v
	}
	return out, nil
}

// schemaTypeIsObject reports whether a schema's "type" is "object", alone or among others (as in
// ["object","null"]).
func schemaTypeIsObject(t json.RawMessage) bool {
	var one string
	if json.Unmarshal(t, &one) == nil {
		return one == "object"
	}
	var many []string
	if json.Unmarshal(t, &many) == nil {
		return slices.Contains(many, "object")
	}
	return false
}

// toolChoice maps ToolChoice and ParallelToolCalls onto tool_choice.
func toolChoice(o *chat.Options) (sdk.ToolChoiceUnionParam, error) {
	var disable param.Opt[bool]
	if o.ParallelToolCalls != nil {
		disable = sdk.Bool(!*o.ParallelToolCalls)
	}
	switch o.ToolChoice {
	case "":
		if o.ParallelToolCalls == nil {
			return sdk.ToolChoiceUnionParam{}, nil
		}
		return sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{DisableParallelToolUse: disable}}, nil
	case "auto":
		return sdk.ToolChoiceUnionParam{OfAuto: &sdk.ToolChoiceAutoParam{DisableParallelToolUse: disable}}, nil
	case "none":
		return sdk.ToolChoiceUnionParam{OfNone: &sdk.ToolChoiceNoneParam{}}, nil
	case "required", "any":
		return sdk.ToolChoiceUnionParam{OfAny: &sdk.ToolChoiceAnyParam{DisableParallelToolUse: disable}}, nil
	}
	for _, t := range o.Tools {
		if t.Definition().Name == o.ToolChoice {
			return sdk.ToolChoiceUnionParam{OfTool: &sdk.ToolChoiceToolParam{Name: o.ToolChoice, DisableParallelToolUse: disable}}, nil
		}
	}
	return sdk.ToolChoiceUnionParam{}, fmt.Errorf("anthropic: tool choice %q names none of the request's tools", o.ToolChoice)
}

// extraInt reads an integer from Extra, accepting Go integers and integral floats (as decoded
// from JSON).
func extraInt(extra map[string]any, key string) (int, bool, error) {
	v, ok := extra[key]
	if !ok || v == nil {
		return 0, false, nil
	}
	switch n := v.(type) {
	case int:
		return n, true, nil
	case int32:
		return int(n), true, nil
	case int64:
		return int(n), true, nil
	case float64:
		if n == math.Trunc(n) && math.Abs(n) < 1<<31 {
			return int(n), true, nil
		}
	case json.Number:
		if i, err := n.Int64(); err == nil {
			return int(i), true, nil
		}
	}
	return 0, false, fmt.Errorf("anthropic: %s is %v (%T), want an integer", key, v, v)
}

// extraBool reads a boolean from Extra.
func extraBool(extra map[string]any, key string) (bool, bool, error) {
	v, ok := extra[key]
	if !ok || v == nil {
		return false, false, nil
	}
	b, ok := v.(bool)
	if !ok {
		return false, false, fmt.Errorf("anthropic: %s is %v (%T), want a bool", key, v, v)
	}
	return b, true, nil
}
