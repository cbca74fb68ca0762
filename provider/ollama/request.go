package ollama

import (
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strings"
	"time"

	"github.com/ollama/ollama/api"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/internal/wire"
)

// The chat.Options.Extra keys this package reads. Values of the wrong type are an error.
const (
	// ExtraThink turns thinking on or off (a bool) or sets its level ("low", "medium", "high")
	// for models that think. The thinking arrives as chat.Reasoning items with Provider "ollama".
	ExtraThink = "ollama.think"
	// ExtraOptions adds model options to the request's "options" (a map[string]any, e.g.
	// {"num_ctx": 8192, "top_k": 40}); its keys win over those wield sets.
	ExtraOptions = "ollama.options"
	// ExtraKeepAlive says how long the model stays loaded after the request (a time.Duration or
	// a duration string such as "10m"; negative keeps it loaded).
	ExtraKeepAlive = "ollama.keep_alive"
	// ExtraConfigure is a func(*api.ChatRequest) that may change anything in the request; it runs
	// last, after [Config.Configure].
	ExtraConfigure = "ollama.configure"
)

// syntheticIDPrefix marks tool-call ids made up for calls the server sent without one. They are
// never sent back: Ollama matches results to calls by tool name and order.
const syntheticIDPrefix = "ollama-call-"

func (m *Model) request(p *chat.Prompt, stream bool) (*api.ChatRequest, error) {
	opts, err := wire.Options("ollama", p)
	if err != nil {
		return nil, err
	}
	if err := chat.RefuseToolSearch("ollama", opts); err != nil {
		return nil, err
	}
	if opts.N > 1 {
		return nil, fmt.Errorf("ollama: N=%d: Ollama returns one generation per request", opts.N)
	}
	req := &api.ChatRequest{Model: m.cfg.Model, Stream: &stream, Options: map[string]any{}}
	if opts.Model != "" {
		req.Model = opts.Model
	}
	if req.Model == "" {
		return nil, errors.New("ollama: no model: set Config.Model or chat.Options.Model")
	}
	temperature := opts.Temperature
	if temperature == nil {
		temperature = m.cfg.Temperature
	}
	if temperature != nil {
		req.Options["temperature"] = *temperature
	}
	if opts.TopP != nil {
		req.Options["top_p"] = *opts.TopP
	}
	if opts.Seed != nil {
		req.Options["seed"] = *opts.Seed
	}
	maxTokens := opts.MaxTokens
	if maxTokens == 0 {
		maxTokens = m.cfg.MaxTokens
	}
	if maxTokens > 0 {
		req.Options["num_predict"] = maxTokens
	}
	if len(opts.Stop) > 0 {
		req.Options["stop"] = opts.Stop
	}

	switch opts.ToolChoice {
	case "", "auto":
		tools, err := toolDefinitions(opts)
		if err != nil {
			return nil, err
		}
		req.Tools = tools
	case "none":
		// Ollama has no tool_choice: a model that must not call tools is not offered any.
	default:
		return nil, fmt.Errorf("ollama: tool choice %q: Ollama cannot force a tool call (use \"auto\" or \"none\")", opts.ToolChoice)
	}
	// Ollama has no switch for parallel calls; ParallelToolCalls is not sent.

	if rf := opts.ResponseFormat; rf != nil {
		if len(rf.Schema) > 0 {
			if !json.Valid(rf.Schema) {
				return nil, errors.New("ollama: response format schema is not valid JSON")
			}
			req.Format = rf.Schema
		} else {
			req.Format = json.RawMessage(`"json"`)
		}
	}
	msgs, err := messages(p.Messages)
	if err != nil {
		return nil, err
	}
	req.Messages = msgs
	wireNames(req, promptNames(p))
	configure, err := applyExtra(req, opts.Extra)
	if err != nil {
		return nil, err
	}
	wire.Configure(req, m.cfg.Configure, configure)
	return req, nil
}

func toolDefinitions(opts *chat.Options) (api.Tools, error) {
	var tools api.Tools
	seen := map[string]bool{}
	for i, t := range opts.Tools {
		if t == nil {
			return nil, fmt.Errorf("ollama: tool %d is nil", i)
		}
		def := t.Definition()
		if def.Name == "" {
			return nil, fmt.Errorf("ollama: tool %d has no name", i)
		}
		if seen[def.Name] {
			return nil, fmt.Errorf("ollama: two tools are named %q", def.Name)
		}
		seen[def.Name] = true
		params, err := toolParameters(def.InputSchema)
		if err != nil {
			return nil, fmt.Errorf("ollama: tool %q: %w", def.Name, err)
		}
		tools = append(tools, api.Tool{Type: "function", Function: api.ToolFunction{
			Name: def.Name, Description: def.Description, Parameters: params,
		}})
	}
	return tools, nil
}

// messages maps the conversation one message to one, except tool messages: each result becomes
// a "tool" message naming the tool (tool_name) and the call it answers (tool_call_id).
func messages(msgs []chat.Message) ([]api.Message, error) {
	out := make([]api.Message, 0, len(msgs))
	names := map[string]string{} // call id → tool name
	for i, msg := range msgs {
		switch msg.Role {
		case chat.RoleSystem, chat.RoleUser:
			text, images, err := messageContent(msg.AllParts())
			if err != nil {
				return nil, wire.MessageError(providerName, i, err)
			}
			out = append(out, api.Message{Role: string(msg.Role), Content: text, Images: images})
		case chat.RoleAssistant:
			text, images, err := messageContent(msg.AllParts())
			if err != nil {
				return nil, wire.MessageError(providerName, i, err)
			}
			am := api.Message{Role: "assistant", Content: text, Images: images}
			var thinking []string
			for _, r := range msg.Reasoning {
				if r.Provider == providerName && r.Text != "" {
					thinking = append(thinking, r.Text)
				}
			}
			am.Thinking = strings.Join(thinking, "")
			for j, tc := range msg.ToolCalls {
				if tc.Name == "" {
					return nil, fmt.Errorf("ollama: message %d: tool call %q has no name", i, tc.ID)
				}
				args := api.NewToolCallFunctionArguments()
				if strings.TrimSpace(tc.Arguments) != "" {
					if err := json.Unmarshal([]byte(tc.Arguments), &args); err != nil || !strings.HasPrefix(strings.TrimSpace(tc.Arguments), "{") {
						return nil, fmt.Errorf("ollama: message %d: tool call %q (%s): arguments are not a JSON object: %q", i, tc.ID, tc.Name, tc.Arguments)
					}
				}
				if tc.ID != "" {
					names[tc.ID] = tc.Name
				}
				am.ToolCalls = append(am.ToolCalls, api.ToolCall{
					ID:       wireID(tc.ID),
					Function: api.ToolCallFunction{Index: j, Name: tc.Name, Arguments: args},
				})
			}
			out = append(out, am)
		case chat.RoleTool:
			for _, r := range msg.ToolResults {
				name := r.Name
				if name == "" {
					name = names[r.ID]
				}
				if name == "" {
					return nil, fmt.Errorf("ollama: message %d: tool result %q names no tool and answers no earlier call", i, r.ID)
				}
				text, images, err := messageContent(r.AllParts())
				if err != nil {
					return nil, wire.MessageError(providerName, i, err)
				}
				if r.IsError {
					// Ollama has no error flag on tool messages; say it in the text.
					text = "Error: " + text
				}
				// The server reads a message's images whatever its role, so a tool's image
				// stays on its result.
				out = append(out, api.Message{Role: "tool", Content: text, Images: images, ToolName: name, ToolCallID: wireID(r.ID)})
			}
		default:
			return nil, fmt.Errorf("ollama: message %d: unknown role %q", i, msg.Role)
		}
	}
	return out, nil
}

// wireID is the id sent to the server: made-up ids are left out, as the server never saw them.
func wireID(id string) string {
	if strings.HasPrefix(id, syntheticIDPrefix) {
		return ""
	}
	return id
}

func applyExtra(req *api.ChatRequest, extra map[string]any) (func(*api.ChatRequest), error) {
	if len(extra) == 0 {
		return nil, nil
	}
	if v, ok := extra[ExtraThink]; ok {
		switch t := v.(type) {
		case bool:
			req.Think = &api.ThinkValue{Value: t}
		case string:
			tv := &api.ThinkValue{Value: t}
			if !tv.IsValid() {
				return nil, fmt.Errorf("ollama: Extra[%q] = %q: want true, false, \"low\", \"medium\" or \"high\"", ExtraThink, t)
			}
			req.Think = tv
		default:
			return nil, fmt.Errorf("ollama: Extra[%q] must be a bool or a string, not %T", ExtraThink, v)
		}
	}
	if v, ok := extra[ExtraOptions]; ok {
		o, isMap := v.(map[string]any)
		if !isMap {
			return nil, fmt.Errorf("ollama: Extra[%q] must be a map[string]any, not %T", ExtraOptions, v)
		}
		maps.Copy(req.Options, o)
	}
	if v, ok := extra[ExtraKeepAlive]; ok {
		var d time.Duration
		switch k := v.(type) {
		case time.Duration:
			d = k
		case string:
			var err error
			if d, err = time.ParseDuration(k); err != nil {
				return nil, fmt.Errorf("ollama: Extra[%q]: %w", ExtraKeepAlive, err)
			}
		default:
			return nil, fmt.Errorf("ollama: Extra[%q] must be a time.Duration or a duration string, not %T", ExtraKeepAlive, v)
		}
		req.KeepAlive = &api.Duration{Duration: d}
	}
	return wire.ExtraFunc[*api.ChatRequest](providerName, extra, ExtraConfigure)
}
