package agui

import (
	"encoding/json"
	"errors"
	"fmt"

	"github.com/google/jsonschema-go/jsonschema"

	"github.com/wield-ai/wield/client"
)

// ReasonElicitation: an MCP server asked for input during a tool call (the interrupt data of mcp.Elicitation, with
// the client's InterruptOnElicitation). The interrupt's message is the server's, its metadata
// holds "server", "mode" ("form" or "url"), "url" and "requestedSchema", and its responseSchema
// is that of the answer: {"action": "accept" | "decline" | "cancel", "content": {...}}, the
// content (accept only) following the requested schema. The call is made again with the answer,
// which goes to the server. A resume entry with status "cancelled" answers "cancel".
const ReasonElicitation = "mcp_elicitation"

// maxElicitationFields bounds the fields of a requested schema: a form, not a database.
const maxElicitationFields = 64

// elicitationData and elicitationAnswerData are the JSON of mcp.Elicitation (an interrupt's data)
// and mcp.ElicitationAnswer (its answer), read and written here without importing mcp, whose SDK
// a front end without MCP servers should not link; the tests check them against mcp's.
type elicitationData struct {
	Server          string          `json:"server"`
	Mode            string          `json:"mode,omitempty"`
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
}

type elicitationAnswerData struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// maxElicitationSchemaBytes is mcp.MaxElicitationSchemaBytes.
const maxElicitationSchemaBytes = 64 << 10

// elicitation returns what the server of a pending call asked, or nil if the call did not stop
// for an MCP elicitation.
func elicitation(pc client.PendingCall) *elicitationData {
	if pc.Status == client.CallApproval || pc.Interrupt == nil || len(pc.Interrupt.Data) == 0 {
		return nil
	}
	var e elicitationData
	if json.Unmarshal(pc.Interrupt.Data, &e) != nil || e.Server == "" || e.Message == "" {
		return nil
	}
	return &e
}

// elicitationSchema checks a requested schema as MCP restricts it (an object of at most
// maxElicitationFields flat fields of primitive types, or lists of strings) and resolves it for
// validating answers. The MCP client checks it too, but a stopped turn's state may come from a
// store the handler does not trust more than its input.
func elicitationSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	if len(raw) > maxElicitationSchemaBytes {
		return nil, fmt.Errorf("the requested schema is %d bytes, over %d", len(raw), maxElicitationSchemaBytes)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, errors.New("the requested schema is not a JSON schema")
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("the requested schema is of type %q, not object", s.Type)
	}
	if len(s.Properties) > maxElicitationFields {
		return nil, fmt.Errorf("the requested schema has %d fields, over %d", len(s.Properties), maxElicitationFields)
	}
	if s.Ref != "" || len(s.Defs) > 0 || len(s.Definitions) > 0 {
		return nil, errors.New("the requested schema uses references")
	}
	for name, p := range s.Properties {
		if p == nil || p.Ref != "" || p.Properties != nil || len(p.AllOf)+len(p.AnyOf)+len(p.OneOf) > 0 && p.Type != "string" {
			return nil, fmt.Errorf("the requested schema's field %q is not a flat primitive", name)
		}
		switch p.Type {
		case "string", "number", "integer", "boolean":
		case "array":
			if it := p.Items; it == nil || it.Ref != "" || it.Properties != nil || it.Items != nil || (it.Type != "" && it.Type != "string") {
				return nil, fmt.Errorf("the requested schema's field %q is a list of other than strings", name)
			}
		default:
			return nil, fmt.Errorf("the requested schema's field %q has type %q", name, p.Type)
		}
	}
	return s.Resolve(nil)
}

// elicitationAnswer is the decision of a call stopped by e: the call made again with the answer.
func elicitationAnswer(pc client.PendingCall, e *elicitationData, status string, payload json.RawMessage) (client.Decision, error) {
	a := elicitationAnswerData{Action: "cancel"}
	if status == "resolved" {
		var in struct {
			Action  string          `json:"action"`
			Content json.RawMessage `json:"content"`
		}
		if err := json.Unmarshal(payload, &in); err != nil {
			return client.Decision{}, errors.New(`the payload is not an answer {"action", "content"}`)
		}
		a.Action = in.Action
		switch in.Action {
		case "decline", "cancel":
		case "accept":
			content := map[string]any{}
			if len(in.Content) > 0 && string(in.Content) != "null" {
				if err := json.Unmarshal(in.Content, &content); err != nil {
					return client.Decision{}, errors.New(`"content" is not a JSON object`)
				}
			}
			if e.Mode != "url" && len(e.RequestedSchema) > 0 {
				rs, err := elicitationSchema(e.RequestedSchema)
				if err != nil {
					return client.Decision{}, fmt.Errorf("cannot accept: %w", err)
				}
				if err := rs.Validate(content); err != nil {
					return client.Decision{}, fmt.Errorf("the content does not follow the requested schema: %w", err)
				}
			}
			if e.Mode != "url" {
				a.Content = content
			}
		default:
			return client.Decision{}, fmt.Errorf(`"action" is accept, decline or cancel, not %q`, in.Action)
		}
	}
	data, err := json.Marshal(a)
	if err != nil {
		return client.Decision{}, err
	}
	return pc.Restart("", data), nil
}

// answerSchema is the responseSchema of an elicitation's interrupt.
func answerSchema(e *elicitationData) map[string]any {
	content := any(map[string]any{"type": "object"})
	if len(e.RequestedSchema) > 0 {
		content = e.RequestedSchema
	}
	return map[string]any{"type": "object", "required": []string{"action"}, "properties": map[string]any{
		"action":  map[string]any{"type": "string", "enum": []string{"accept", "decline", "cancel"}},
		"content": content,
	}}
}

// declineSchema answers a question whose requested schema the handler refuses: no content.
var declineSchema = json.RawMessage(`{"type":"object","properties":{"action":{"type":"string","enum":["decline","cancel"]}},"required":["action"]}`)
