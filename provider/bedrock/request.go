package bedrock

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"slices"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/document"
	"github.com/aws/aws-sdk-go-v2/service/bedrockruntime/types"
	smithydocument "github.com/aws/smithy-go/document"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/provider/internal/wire"
	"github.com/wield-ai/wield/tool"
)

// Keys of [chat.Options.Extra] this package reads; see the package documentation.
const (
	// ExtraAdditionalFields (map[string]any) is sent as additionalModelRequestFields: the
	// model's own parameters Converse does not name (top_k, Claude's thinking, Nova's
	// reasoningConfig, …).
	ExtraAdditionalFields = "bedrock.additional_fields"
	// ExtraCache ([Cache], *Cache or bool) sets the call's prompt-caching checkpoints, replacing
	// [Config.Cache]: true means [CacheAuto], false or a nil *Cache none.
	ExtraCache = "bedrock.cache"
	// ExtraInput (func(*bedrockruntime.ConverseInput)) edits the SDK request after wield built
	// it, for Call and Stream alike (ConverseStream gets the same fields).
	ExtraInput = "bedrock.input"
)

// ErrUnsupported is returned, wrapped with the setting's name, for a [chat.Options] setting the
// Converse API cannot honour (N above 1).
var ErrUnsupported = errors.New("unsupported setting")

// nameRule is what Converse accepts as a tool name: [a-zA-Z0-9_-]+, at most 64 characters
// (ToolSpecification in the Bedrock API reference).
var nameRule = toolname.Rule{Max: 64, Punct: "_-"}

// request is one Converse request and what reading its answer needs.
type request struct {
	input *bedrockruntime.ConverseInput
	names *toolname.Map
}

// request builds the Converse request for a prompt, applying the call's options over the Model's
// defaults.
func (m *Model) request(p *chat.Prompt) (*request, error) {
	o, err := wire.Options(ProviderName, p)
	if err != nil {
		return nil, err
	}
	// Converse has no tool search (Claude's is on InvokeModel: anthropic.NewBedrock).
	if err := chat.RefuseToolSearch(ProviderName, o); err != nil {
		return nil, err
	}
	if o.N > 1 {
		return nil, fmt.Errorf("bedrock: N=%d: %w: Converse returns one generation per request", o.N, ErrUnsupported)
	}
	if o.MaxTokens < 0 {
		return nil, fmt.Errorf("bedrock: MaxTokens %d is negative", o.MaxTokens)
	}
	for i, t := range o.Tools {
		if t == nil {
			return nil, fmt.Errorf("bedrock: tool %d is nil", i)
		}
	}
	r := &request{names: toolname.ForPrompt(nameRule, o.Tools, p.Messages)}
	in := &bedrockruntime.ConverseInput{ModelId: aws.String(m.cfg.Model)}
	r.input = in
	if o.Model != "" {
		in.ModelId = aws.String(o.Model)
	}

	var inf types.InferenceConfiguration
	if n := o.MaxTokens; n > 0 {
		inf.MaxTokens = aws.Int32(int32(min(n, 1<<31-1)))
	} else if n := m.cfg.MaxTokens; n > 0 {
		inf.MaxTokens = aws.Int32(int32(min(n, 1<<31-1)))
	}
	if t := o.Temperature; t != nil {
		inf.Temperature = aws.Float32(float32(*t))
	} else if t := m.cfg.Temperature; t != nil {
		inf.Temperature = aws.Float32(float32(*t))
	}
	if o.TopP != nil {
		inf.TopP = aws.Float32(float32(*o.TopP))
	}
	if len(o.Stop) > 0 {
		inf.StopSequences = slices.Clone(o.Stop)
	}
	if inf.MaxTokens != nil || inf.Temperature != nil || inf.TopP != nil || inf.StopSequences != nil {
		in.InferenceConfig = &inf
	}

	var used []string // tool names in the history
	if in.System, in.Messages, used, err = r.messages(p.Messages); err != nil {
		return nil, err
	}
	if in.ToolConfig, err = r.toolConfig(o, used); err != nil {
		return nil, err
	}
	if rf := o.ResponseFormat; rf != nil {
		if !json.Valid(rf.Schema) || len(bytes.TrimSpace(rf.Schema)) == 0 || bytes.TrimSpace(rf.Schema)[0] != '{' {
			return nil, fmt.Errorf("bedrock: response format %q: schema is not a JSON object", rf.Name)
		}
		def := types.JsonSchemaDefinition{Schema: aws.String(string(rf.Schema))}
		if rf.Name != "" {
			def.Name = aws.String(rf.Name)
		}
		in.OutputConfig = &types.OutputConfig{TextFormat: &types.OutputFormat{
			Type:      types.OutputFormatTypeJsonSchema,
			Structure: &types.OutputFormatStructureMemberJsonSchema{Value: def},
		}}
	}

	cache, err := extraCache(o.Extra, m.cfg.Cache)
	if err != nil {
		return nil, err
	}
	cache.apply(in)

	if v, ok := o.Extra[ExtraAdditionalFields]; ok && v != nil {
		fields, ok := v.(map[string]any)
		if !ok {
			return nil, fmt.Errorf("bedrock: %s is a %T, want map[string]any", ExtraAdditionalFields, v)
		}
		if in.AdditionalModelRequestFields, err = toDocument(fields); err != nil {
			return nil, fmt.Errorf("bedrock: %s: %w", ExtraAdditionalFields, err)
		}
	}
	if v, ok := o.Extra[ExtraInput]; ok && v != nil {
		f, ok := v.(func(*bedrockruntime.ConverseInput))
		if !ok {
			return nil, fmt.Errorf("bedrock: %s is a %T, want func(*bedrockruntime.ConverseInput)", ExtraInput, v)
		}
		f(in)
	}
	return r, nil
}

// messages maps a conversation onto the system prompt and the user/assistant turns, merging
// consecutive messages of the same role, as Converse requires. It returns the tool names the
// history's calls and results use.
func (r *request) messages(in []chat.Message) ([]types.SystemContentBlock, []types.Message, []string, error) {
	var system []types.SystemContentBlock
	var used []string
	out := make([]types.Message, 0, len(in))
	docs := 0
	for i := range in {
		msg := &in[i]
		var role types.ConversationRole
		var blocks []types.ContentBlock
		switch msg.Role {
		case chat.RoleSystem:
			for p := range msg.AllParts() {
				if p.Kind != content.KindText {
					return nil, nil, nil, wire.MessageError(ProviderName, i, unsupported(p, "a system prompt is text only"))
				}
				if p.Text != "" {
					system = append(system, &types.SystemContentBlockMemberText{Value: p.Text})
				}
			}
			continue
		case chat.RoleUser:
			role = types.ConversationRoleUser
			var err error
			if blocks, err = contentBlocks(blocks, msg.AllParts(), &docs); err != nil {
				return nil, nil, nil, wire.MessageError(ProviderName, i, err)
			}
		case chat.RoleAssistant:
			role = types.ConversationRoleAssistant
			var err error
			if blocks, err = r.assistantBlocks(msg, &docs); err != nil {
				return nil, nil, nil, wire.MessageError(ProviderName, i, err)
			}
			for _, c := range msg.ToolCalls {
				used = append(used, c.Name)
			}
		case chat.RoleTool:
			role = types.ConversationRoleUser
			for _, res := range msg.ToolResults {
				if res.ID == "" {
					return nil, nil, nil, fmt.Errorf("bedrock: message %d: result of tool %q has no call id", i, res.Name)
				}
				b, err := toolResultBlock(res, &docs)
				if err != nil {
					return nil, nil, nil, wire.MessageError(ProviderName, i, err)
				}
				blocks = append(blocks, b)
				used = append(used, res.Name)
			}
			var err error
			if blocks, err = contentBlocks(blocks, msg.AllParts(), &docs); err != nil {
				return nil, nil, nil, wire.MessageError(ProviderName, i, err)
			}
		default:
			return nil, nil, nil, fmt.Errorf("bedrock: message %d: unknown role %q", i, msg.Role)
		}
		if len(blocks) == 0 {
			continue
		}
		if n := len(out); n > 0 && out[n-1].Role == role {
			out[n-1].Content = append(out[n-1].Content, blocks...)
			continue
		}
		out = append(out, types.Message{Role: role, Content: blocks})
	}
	return system, out, used, nil
}

// assistantBlocks returns an assistant message's reasoning, text and toolUse blocks, in the order
// Converse requires when reasoning is on.
func (r *request) assistantBlocks(msg *chat.Message, docs *int) ([]types.ContentBlock, error) {
	blocks := make([]types.ContentBlock, 0, len(msg.Reasoning)+1+len(msg.ToolCalls))
	for _, rs := range msg.Reasoning {
		switch {
		case rs.Provider != ProviderName:
			// Other providers' reasoning means nothing to Bedrock.
		case rs.Encrypted != "":
			data, err := base64.StdEncoding.DecodeString(rs.Encrypted)
			if err != nil {
				return nil, fmt.Errorf("redacted reasoning is not base64: %w", err)
			}
			blocks = append(blocks, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberRedactedContent{Value: data}})
		case rs.Signature != "":
			blocks = append(blocks, &types.ContentBlockMemberReasoningContent{Value: &types.ReasoningContentBlockMemberReasoningText{
				Value: types.ReasoningTextBlock{Text: aws.String(rs.Text), Signature: aws.String(rs.Signature)},
			}})
		}
		// Reasoning without a signature cannot be verified by the model, so it is not sent.
	}
	blocks, err := contentBlocks(blocks, msg.AllParts(), docs)
	if err != nil {
		return nil, err
	}
	for _, c := range msg.ToolCalls {
		input, err := wire.CallInput(c, jsonDocument)
		if err != nil {
			return nil, err
		}
		blocks = append(blocks, &types.ContentBlockMemberToolUse{Value: types.ToolUseBlock{
			ToolUseId: aws.String(c.ID), Name: aws.String(r.names.Wire(c.Name)), Input: input,
		}})
	}
	return blocks, nil
}

// toolResultBlock maps a tool result onto a toolResult block: its text, images and documents in
// order, and a failed call marked with status "error".
func toolResultBlock(res chat.ToolResult, docs *int) (types.ContentBlock, error) {
	blocks, err := toolResultContent(res.AllParts(), docs)
	if err != nil {
		return nil, err
	}
	b := types.ToolResultBlock{ToolUseId: aws.String(res.ID), Content: blocks}
	if res.IsError {
		b.Status = types.ToolResultStatusError
	}
	return &types.ContentBlockMemberToolResult{Value: b}, nil
}

// toolConfig maps the tools and ToolChoice onto toolConfig. Converse refuses toolUse and
// toolResult blocks in a request without toolConfig, so when the history holds them and no tool
// is offered (none given, or ToolChoice "none", which Converse cannot express), the tools the
// history names are declared as unavailable instead.
func (r *request) toolConfig(o *chat.Options, used []string) (*types.ToolConfiguration, error) {
	switch o.ToolChoice {
	case "", "auto", "none", "required", "any":
	default:
		if !slices.ContainsFunc(o.Tools, func(t tool.Tool) bool { return t.Definition().Name == o.ToolChoice }) {
			return nil, fmt.Errorf("bedrock: tool choice %q names none of the request's tools", o.ToolChoice)
		}
	}
	offered := o.Tools
	if o.ToolChoice == "none" {
		offered = nil
	}
	if len(offered) == 0 {
		if len(used) == 0 {
			return nil, nil
		}
		return &types.ToolConfiguration{Tools: r.unavailable(used)}, nil
	}
	cfg := &types.ToolConfiguration{}
	for _, t := range offered {
		def := t.Definition()
		spec, err := r.toolSpec(def)
		if err != nil {
			return nil, err
		}
		cfg.Tools = append(cfg.Tools, &types.ToolMemberToolSpec{Value: spec})
	}
	switch o.ToolChoice {
	case "":
	case "auto":
		cfg.ToolChoice = &types.ToolChoiceMemberAuto{Value: types.AutoToolChoice{}}
	case "required", "any":
		cfg.ToolChoice = &types.ToolChoiceMemberAny{Value: types.AnyToolChoice{}}
	default:
		cfg.ToolChoice = &types.ToolChoiceMemberTool{Value: types.SpecificToolChoice{Name: aws.String(r.names.Wire(o.ToolChoice))}}
	}
	return cfg, nil
}

// toolSpec maps a tool definition onto a toolSpec whose inputSchema.json is the tool's schema,
// with an object root as Converse requires.
func (r *request) toolSpec(def tool.Definition) (types.ToolSpecification, error) {
	schema, err := inputSchema(def.InputSchema)
	if err != nil {
		return types.ToolSpecification{}, fmt.Errorf("bedrock: tool %q: %w", def.Name, err)
	}
	spec := types.ToolSpecification{
		Name:        aws.String(r.names.Wire(def.Name)),
		InputSchema: &types.ToolInputSchemaMemberJson{Value: schema},
	}
	if def.Description != "" {
		spec.Description = aws.String(def.Description)
	}
	return spec, nil
}

// unavailableDescription tells the model why a tool it used earlier is declared again.
const unavailableDescription = "Not available in this turn; answer without calling it."

// unavailable declares the tools a history names, with no parameters, for a request that offers
// none.
func (r *request) unavailable(used []string) []types.Tool {
	var tools []types.Tool
	seen := map[string]bool{}
	for _, name := range used {
		wire := r.names.Wire(name)
		if wire == "" || seen[wire] {
			continue
		}
		seen[wire] = true
		tools = append(tools, &types.ToolMemberToolSpec{Value: types.ToolSpecification{
			Name:        aws.String(wire),
			Description: aws.String(unavailableDescription),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{"type": "object", "properties": map[string]any{}})},
		}})
	}
	if len(tools) == 0 {
		// Results whose tools have no names: declare one stand-in.
		tools = append(tools, &types.ToolMemberToolSpec{Value: types.ToolSpecification{
			Name:        aws.String("unavailable_tool"),
			Description: aws.String(unavailableDescription),
			InputSchema: &types.ToolInputSchemaMemberJson{Value: document.NewLazyDocument(map[string]any{"type": "object", "properties": map[string]any{}})},
		}})
	}
	return tools
}

// inputSchema returns a tool's JSON Schema as the document inputSchema.json must be: an empty
// schema becomes {"type":"object","properties":{}}, a schema without a type gets "type":"object",
// and a root of another type is an error.
func inputSchema(schema json.RawMessage) (document.Interface, error) {
	trimmed := bytes.TrimSpace(schema)
	if len(trimmed) == 0 || string(trimmed) == "null" || string(trimmed) == "true" {
		return document.NewLazyDocument(map[string]any{"type": "object", "properties": map[string]any{}}), nil
	}
	v, err := decodeJSON(trimmed)
	if err != nil {
		return nil, fmt.Errorf("input schema is not JSON: %w", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, errors.New("input schema is not a JSON object")
	}
	switch t := obj["type"].(type) {
	case nil:
		obj["type"] = "object"
	case string:
		if t != "object" {
			return nil, fmt.Errorf("input schema has type %q; Converse requires an object at the root", t)
		}
	case []any:
		if !slices.Contains(t, any("object")) {
			return nil, fmt.Errorf("input schema has type %v; Converse requires an object at the root", t)
		}
	}
	if _, ok := obj["properties"]; !ok {
		obj["properties"] = map[string]any{}
	}
	return checked(obj)
}

// jsonDocument returns JSON text as a document, its numbers kept digit for digit.
func jsonDocument(data []byte) (document.Interface, error) {
	v, err := decodeJSON(data)
	if err != nil {
		return nil, err
	}
	return checked(v)
}

// toDocument returns a Go value (maps, slices, strings, numbers, bools) as a document.
func toDocument(v any) (document.Interface, error) {
	data, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonDocument(data)
}

// checked returns v as a document after encoding it once: the SDK's serializer drops a document
// it cannot encode without an error, which would send a broken request.
func checked(v any) (document.Interface, error) {
	doc := document.NewLazyDocument(v)
	if _, err := doc.MarshalSmithyDocument(); err != nil {
		return nil, err
	}
	return doc, nil
}

// decodeJSON decodes JSON text into maps, slices and scalars, numbers as document numbers so
// that 15.0 stays 15.0 on the wire.
func decodeJSON(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, errors.New("trailing data after the JSON value")
	}
	return numbers(v), nil
}

func numbers(v any) any {
	switch v := v.(type) {
	case json.Number:
		return smithydocument.Number(v)
	case map[string]any:
		for k, e := range v {
			v[k] = numbers(e)
		}
	case []any:
		for i, e := range v {
			v[i] = numbers(e)
		}
	}
	return v
}

// streamInput returns the ConverseStream request with the same fields as the Converse one.
func (r *request) streamInput() *bedrockruntime.ConverseStreamInput {
	in := r.input
	out := &bedrockruntime.ConverseStreamInput{
		ModelId:                           in.ModelId,
		AdditionalModelRequestFields:      in.AdditionalModelRequestFields,
		AdditionalModelResponseFieldPaths: in.AdditionalModelResponseFieldPaths,
		InferenceConfig:                   in.InferenceConfig,
		Messages:                          in.Messages,
		OutputConfig:                      in.OutputConfig,
		PerformanceConfig:                 in.PerformanceConfig,
		PromptVariables:                   in.PromptVariables,
		RequestMetadata:                   in.RequestMetadata,
		ServiceTier:                       in.ServiceTier,
		System:                            in.System,
		ToolConfig:                        in.ToolConfig,
	}
	if g := in.GuardrailConfig; g != nil {
		out.GuardrailConfig = &types.GuardrailStreamConfiguration{
			GuardrailIdentifier: g.GuardrailIdentifier, GuardrailVersion: g.GuardrailVersion, Trace: types.GuardrailTrace(g.Trace),
		}
	}
	return out
}
