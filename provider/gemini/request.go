package gemini

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strings"

	"google.golang.org/genai"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/content"
	"github.com/wield-ai/wield/provider/internal/splice"
	"github.com/wield-ai/wield/provider/internal/toolname"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// The chat.Options.Extra keys this package reads. Values of the wrong type are an error.
const (
	// ExtraTopK sets top-k sampling (a number).
	ExtraTopK = "gemini.top_k"
	// ExtraThinkingBudget sets the thinking budget in tokens (an integer; 0 turns thinking off
	// on models that allow it, -1 lets the model decide).
	ExtraThinkingBudget = "gemini.thinking_budget"
	// ExtraThinkingLevel sets the thinking level of Gemini 3 models ("minimal", "low",
	// "medium", "high"; a string or a genai.ThinkingLevel).
	ExtraThinkingLevel = "gemini.thinking_level"
	// ExtraIncludeThoughts asks for thought summaries (a bool); they arrive as chat.Reasoning
	// items with Provider "gemini".
	ExtraIncludeThoughts = "gemini.include_thoughts"
	// ExtraSafetySettings sets safety thresholds ([]*genai.SafetySetting).
	ExtraSafetySettings = "gemini.safety_settings"
	// ExtraCachedContent names cached content to use as a prefix (a string, "cachedContents/…").
	ExtraCachedContent = "gemini.cached_content"
	// ExtraConfigure is a func(*genai.GenerateContentConfig) that may change anything in the
	// request's SDK configuration; it runs last, after [Config.Configure].
	ExtraConfigure = "gemini.configure"
)

// syntheticIDPrefix marks tool-call ids made up for calls the API sent without one. Such ids are
// never sent back: the API matches those calls' responses by name and order.
const syntheticIDPrefix = "gemini-call-"

const providerName = "gemini"

// afterCallsID marks a reasoning item that holds a signature which came on its own empty part
// after the answer's function calls: a message keeps its content before its calls, so the
// signature waits there to go back after the calls, where it came.
const afterCallsID = "after-calls"

type request struct {
	model    string
	contents []*genai.Content
	config   *genai.GenerateContentConfig
	// names maps tool names to the wire names sent and back.
	names *toolname.Map
}

func (m *Model) request(p *chat.Prompt) (*request, error) {
	opts, err := wire.Options("gemini", p)
	if err != nil {
		return nil, err
	}
	if err := chat.RefuseToolSearch("gemini", opts); err != nil {
		return nil, err
	}
	r := &request{model: m.cfg.Model, config: &genai.GenerateContentConfig{}}
	if opts.Model != "" {
		r.model = opts.Model
	}
	cfg := r.config

	temperature := opts.Temperature
	if temperature == nil {
		temperature = m.cfg.Temperature
	}
	if temperature != nil {
		cfg.Temperature = genai.Ptr(float32(*temperature))
	}
	if opts.TopP != nil {
		cfg.TopP = genai.Ptr(float32(*opts.TopP))
	}
	if opts.Seed != nil {
		if *opts.Seed < math.MinInt32 || *opts.Seed > math.MaxInt32 {
			return nil, fmt.Errorf("gemini: seed %d does not fit the API's 32-bit seed", *opts.Seed)
		}
		cfg.Seed = genai.Ptr(int32(*opts.Seed))
	}
	maxTokens := opts.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.cfg.MaxTokens
	}
	if maxTokens < 0 || maxTokens > math.MaxInt32 {
		return nil, fmt.Errorf("gemini: max tokens %d out of range", maxTokens)
	}
	cfg.MaxOutputTokens = int32(maxTokens)
	cfg.StopSequences = opts.Stop
	if opts.N < 0 || opts.N > math.MaxInt32 {
		return nil, fmt.Errorf("gemini: N %d out of range", opts.N)
	}
	cfg.CandidateCount = int32(opts.N)

	if err := m.tools(cfg, opts); err != nil {
		return nil, err
	}
	if rf := opts.ResponseFormat; rf != nil {
		cfg.ResponseMIMEType = "application/json"
		if len(rf.Schema) > 0 {
			if m.cfg.SchemaMode == SchemaSubset {
				s, err := ConvertSchema(rf.Schema)
				if err != nil {
					return nil, fmt.Errorf("gemini: response format: %w", err)
				}
				cfg.ResponseSchema = s
			} else {
				var v any
				if err := json.Unmarshal(rf.Schema, &v); err != nil {
					return nil, fmt.Errorf("gemini: response format schema: %w", err)
				}
				cfg.ResponseJsonSchema = v
			}
		}
	}
	bk := backend{vertex: m.client.ClientConfig().Backend == genai.BackendVertexAI}
	cfg.SystemInstruction, r.contents, err = bk.contents(p.Messages)
	if err != nil {
		return nil, err
	}
	r.names = toolname.ForPrompt(toolname.Gemini, opts.Tools, p.Messages)
	wireNames(r, r.names)
	configure, err := applyExtra(cfg, opts.Extra)
	if err != nil {
		return nil, err
	}
	wire.Configure(cfg, m.cfg.Configure, configure)
	if hasBareSignature(r.contents) {
		m.restoreEmptyText(cfg)
	}
	return r, nil
}

// restoreEmptyText has the request's body pass through [keepEmptyText] before it is sent, after
// any body editor the caller or the client configured.
func (m *Model) restoreEmptyText(cfg *genai.GenerateContentConfig) {
	var opts genai.HTTPOptions
	if cfg.HTTPOptions != nil {
		opts = *cfg.HTTPOptions
	}
	then := opts.ExtrasRequestProvider
	if then == nil {
		then = m.client.ClientConfig().HTTPOptions.ExtrasRequestProvider
	}
	opts.ExtrasRequestProvider = func(body map[string]any) map[string]any {
		if then != nil {
			body = then(body)
		}
		return keepEmptyText(body)
	}
	cfg.HTTPOptions = &opts
}

func (m *Model) tools(cfg *genai.GenerateContentConfig, opts *chat.Options) error {
	var decls []*genai.FunctionDeclaration
	seen := map[string]bool{}
	for i, t := range opts.Tools {
		if t == nil {
			return fmt.Errorf("gemini: tool %d is nil", i)
		}
		def := t.Definition()
		if def.Name == "" {
			return fmt.Errorf("gemini: tool %d has no name", i)
		}
		if seen[def.Name] {
			return fmt.Errorf("gemini: two tools are named %q", def.Name)
		}
		seen[def.Name] = true
		fd := &genai.FunctionDeclaration{Name: def.Name, Description: def.Description}
		if m.cfg.SchemaMode == SchemaSubset {
			s, err := toolParameters(def.InputSchema)
			if err != nil {
				return fmt.Errorf("gemini: tool %q: %w", def.Name, err)
			}
			fd.Parameters = s
		} else if len(def.InputSchema) > 0 && string(def.InputSchema) != "null" {
			var v map[string]any
			if err := json.Unmarshal(def.InputSchema, &v); err != nil {
				return fmt.Errorf("gemini: tool %q: input schema must be a JSON object: %w", def.Name, err)
			}
			fd.ParametersJsonSchema = v
		}
		decls = append(decls, fd)
	}
	if len(decls) > 0 {
		cfg.Tools = []*genai.Tool{{FunctionDeclarations: decls}}
	}
	var fc *genai.FunctionCallingConfig
	switch choice := opts.ToolChoice; choice {
	case "":
	case "auto":
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAuto}
	case "none":
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeNone}
	case "required":
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny}
	default:
		if !seen[choice] {
			return fmt.Errorf("gemini: tool choice %q names no tool of the request", choice)
		}
		fc = &genai.FunctionCallingConfig{Mode: genai.FunctionCallingConfigModeAny, AllowedFunctionNames: []string{choice}}
	}
	if fc != nil {
		cfg.ToolConfig = &genai.ToolConfig{FunctionCallingConfig: fc}
	}
	// Gemini has no switch for parallel calls; ParallelToolCalls is not sent.
	return nil
}

// contents maps the conversation: system messages to the system instruction, user messages to
// user turns, assistant messages to model turns (with their thoughts, signatures and function
// calls), and tool messages to functionResponse parts of a user turn, consecutive results
// sharing one turn.
func (b backend) contents(msgs []chat.Message) (*genai.Content, []*genai.Content, error) {
	var system *genai.Content
	var out []*genai.Content
	names := map[string]string{} // call id → tool name, for results that carry only the id
	lastWasTool := false
	for i, msg := range msgs {
		isTool := false
		switch msg.Role {
		case chat.RoleSystem:
			parts, err := b.userParts(msg)
			if err == nil {
				err = textOnly(msg)
			}
			if err != nil {
				return nil, nil, wire.MessageError(providerName, i, err)
			}
			if len(parts) == 0 {
				continue
			}
			if system == nil {
				system = &genai.Content{Role: genai.RoleUser}
			}
			system.Parts = append(system.Parts, parts...)
		case chat.RoleUser:
			parts, err := b.userParts(msg)
			if err != nil {
				return nil, nil, wire.MessageError(providerName, i, err)
			}
			if len(parts) == 0 {
				return nil, nil, fmt.Errorf("gemini: message %d: empty user message", i)
			}
			out = append(out, &genai.Content{Role: genai.RoleUser, Parts: parts})
		case chat.RoleAssistant:
			parts, err := b.modelParts(msg, names)
			if err != nil {
				return nil, nil, wire.MessageError(providerName, i, err)
			}
			if len(parts) > 0 {
				out = append(out, &genai.Content{Role: genai.RoleModel, Parts: parts})
			}
		case chat.RoleTool:
			isTool = true
			parts, err := b.responseParts(msg.ToolResults, names)
			if err != nil {
				return nil, nil, wire.MessageError(providerName, i, err)
			}
			if lastWasTool {
				prev := out[len(out)-1]
				prev.Parts = append(prev.Parts, parts...)
			} else if len(parts) > 0 {
				out = append(out, &genai.Content{Role: genai.RoleUser, Parts: parts})
			} else {
				isTool = false
			}
		default:
			return nil, nil, fmt.Errorf("gemini: message %d: unknown role %q", i, msg.Role)
		}
		lastWasTool = isTool
	}
	return system, out, nil
}

func (b backend) modelParts(msg chat.Message, names map[string]string) ([]*genai.Part, error) {
	var parts []*genai.Part
	var textSig []byte
	var afterCalls [][]byte
	for _, r := range msg.Reasoning {
		if r.Provider != providerName {
			continue // another provider's reasoning means nothing to Gemini
		}
		sig, err := decodeSignature(r.Signature)
		if err != nil {
			return nil, err
		}
		if r.ID == afterCallsID {
			if sig != nil {
				afterCalls = append(afterCalls, sig)
			}
			continue
		}
		if r.Text != "" {
			parts = append(parts, &genai.Part{Text: r.Text, Thought: true, ThoughtSignature: sig})
		} else if sig != nil {
			textSig = sig
		}
	}
	// Each part goes back with its own signature, where it was; a text signature kept as a
	// reasoning item (conversations stored before messages had parts) goes on the text.
	for p := range msg.AllParts() {
		gp, err := b.part(p)
		if err != nil {
			return nil, err
		}
		if p.Kind == content.KindText && p.Signature == "" && textSig != nil {
			gp.ThoughtSignature, textSig = textSig, nil
		}
		parts = append(parts, gp)
	}
	if textSig != nil {
		parts = append(parts, &genai.Part{ThoughtSignature: textSig})
	}
	for _, tc := range msg.ToolCalls {
		if tc.Name == "" {
			return nil, fmt.Errorf("tool call %q has no name", tc.ID)
		}
		args := map[string]any{}
		if strings.TrimSpace(tc.Arguments) != "" {
			if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil || args == nil {
				return nil, fmt.Errorf("tool call %q (%s): arguments are not a JSON object: %q", tc.ID, tc.Name, tc.Arguments)
			}
		}
		sig, err := decodeSignature(tc.Signature)
		if err != nil {
			return nil, fmt.Errorf("tool call %q (%s): %w", tc.ID, tc.Name, err)
		}
		if tc.ID != "" {
			names[tc.ID] = tc.Name
		}
		parts = append(parts, &genai.Part{
			FunctionCall:     &genai.FunctionCall{ID: wireID(tc.ID), Name: tc.Name, Args: args},
			ThoughtSignature: sig,
		})
	}
	for _, sig := range afterCalls {
		parts = append(parts, &genai.Part{ThoughtSignature: sig})
	}
	return parts, nil
}

func (b backend) responseParts(results []chat.ToolResult, names map[string]string) ([]*genai.Part, error) {
	parts := make([]*genai.Part, 0, len(results))
	for _, r := range results {
		name := r.Name
		if name == "" {
			name = names[r.ID]
		}
		if name == "" {
			return nil, fmt.Errorf("tool result %q names no tool and answers no earlier call", r.ID)
		}
		fr := &genai.FunctionResponse{ID: wireID(r.ID), Name: name, Response: resultObject(r.Text(), r.IsError)}
		for _, p := range r.Parts {
			if p.Kind == content.KindText {
				if err := p.Validate(); err != nil {
					return nil, err
				}
				continue // in Response, with the rest of the text
			}
			frp, err := b.functionResponsePart(p)
			if err != nil {
				return nil, err
			}
			fr.Parts = append(fr.Parts, frp)
		}
		parts = append(parts, &genai.Part{FunctionResponse: fr})
	}
	return parts, nil
}

// textOnly refuses media in a system message: the system instruction is text only.
func textOnly(msg chat.Message) error {
	for _, p := range msg.Parts {
		if p.Kind != content.KindText {
			return unsupported(p, "the system instruction is text only; put media in a user message")
		}
	}
	return nil
}

// wireID is the id sent to the API: made-up ids are left out, as the API never saw them.
func wireID(id string) string {
	if strings.HasPrefix(id, syntheticIDPrefix) {
		return ""
	}
	return id
}

// resultObject wraps a tool's result in the JSON object functionResponse.response must be: a
// JSON object result is sent as it is, anything else as {"result": …}; a failed call's content
// goes under "error", as the API documents for errors.
func resultObject(content string, isError bool) map[string]any {
	trimmed := strings.TrimSpace(content)
	if !isError && strings.HasPrefix(trimmed, "{") {
		var obj map[string]any
		if json.Unmarshal([]byte(trimmed), &obj) == nil && obj != nil {
			return obj
		}
	}
	key := "result"
	if isError {
		key = "error"
	}
	if strings.HasPrefix(trimmed, "{") || strings.HasPrefix(trimmed, "[") {
		var v any
		if json.Unmarshal([]byte(trimmed), &v) == nil && v != nil {
			return map[string]any{key: v}
		}
	}
	return map[string]any{key: splice.Text(content)}
}

func decodeSignature(s string) ([]byte, error) {
	if s == "" {
		return nil, nil
	}
	b, err := base64.StdEncoding.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("thought signature is not base64: %w", err)
	}
	return b, nil
}

func encodeSignature(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return base64.StdEncoding.EncodeToString(b)
}

// applyExtra reads the Extra keys and returns the per-call configure function, if any.
func applyExtra(cfg *genai.GenerateContentConfig, extra map[string]any) (func(*genai.GenerateContentConfig), error) {
	if len(extra) == 0 {
		return nil, nil
	}
	thinking := func() *genai.ThinkingConfig {
		if cfg.ThinkingConfig == nil {
			cfg.ThinkingConfig = &genai.ThinkingConfig{}
		}
		return cfg.ThinkingConfig
	}
	if v, ok := extra[ExtraTopK]; ok {
		f, err := number(ExtraTopK, v)
		if err != nil {
			return nil, err
		}
		cfg.TopK = genai.Ptr(float32(f))
	}
	if v, ok := extra[ExtraThinkingBudget]; ok {
		n, err := integer(ExtraThinkingBudget, v)
		if err != nil {
			return nil, err
		}
		thinking().ThinkingBudget = genai.Ptr(int32(n))
	}
	if v, ok := extra[ExtraThinkingLevel]; ok {
		switch l := v.(type) {
		case string:
			thinking().ThinkingLevel = genai.ThinkingLevel(strings.ToUpper(l))
		case genai.ThinkingLevel:
			thinking().ThinkingLevel = l
		default:
			return nil, fmt.Errorf("gemini: Extra[%q] must be a string, not %T", ExtraThinkingLevel, v)
		}
	}
	if v, ok := extra[ExtraIncludeThoughts]; ok {
		b, isBool := v.(bool)
		if !isBool {
			return nil, fmt.Errorf("gemini: Extra[%q] must be a bool, not %T", ExtraIncludeThoughts, v)
		}
		thinking().IncludeThoughts = b
	}
	if v, ok := extra[ExtraSafetySettings]; ok {
		s, isSettings := v.([]*genai.SafetySetting)
		if !isSettings {
			return nil, fmt.Errorf("gemini: Extra[%q] must be []*genai.SafetySetting, not %T", ExtraSafetySettings, v)
		}
		cfg.SafetySettings = s
	}
	if v, ok := extra[ExtraCachedContent]; ok {
		s, isString := v.(string)
		if !isString {
			return nil, fmt.Errorf("gemini: Extra[%q] must be a string, not %T", ExtraCachedContent, v)
		}
		cfg.CachedContent = s
	}
	return wire.ExtraFunc[*genai.GenerateContentConfig](providerName, extra, ExtraConfigure)
}

func number(key string, v any) (float64, error) {
	switch n := v.(type) {
	case int:
		return float64(n), nil
	case int32:
		return float64(n), nil
	case int64:
		return float64(n), nil
	case float32:
		return float64(n), nil
	case float64:
		return n, nil
	case json.Number:
		return n.Float64()
	}
	return 0, fmt.Errorf("gemini: Extra[%q] must be a number, not %T", key, v)
}

func integer(key string, v any) (int64, error) {
	f, err := number(key, v)
	if err != nil {
		return 0, err
	}
	if f != math.Trunc(f) || f < math.MinInt32 || f > math.MaxInt32 {
		return 0, fmt.Errorf("gemini: Extra[%q] must be a 32-bit integer, not %v", key, v)
	}
	return int64(f), nil
}

// marshalArgs renders function-call arguments as the JSON object text of chat.ToolCall.Arguments,
// without HTML escaping so the text reads as the model wrote it.
func marshalArgs(args map[string]any) string {
	if len(args) == 0 {
		return "{}"
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(args); err != nil {
		return "{}"
	}
	return strings.TrimSuffix(buf.String(), "\n")
}
