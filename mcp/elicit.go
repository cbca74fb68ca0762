package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/toolcall"
)

// Elicitation is the data of the interrupt a server's elicitation request turns into
// ([toolcall.InterruptError.Data]): what the server asks and the schema the answer must follow.
type Elicitation struct {
	Server          string          `json:"server"`
	Mode            string          `json:"mode,omitempty"` // "form" or "url"
	Message         string          `json:"message"`
	RequestedSchema json.RawMessage `json:"requestedSchema,omitempty"`
	URL             string          `json:"url,omitempty"`
}

// ElicitationAnswer is the application's answer to an [Elicitation], sent as the resumption data
// of the interrupted call: Action is "accept" (with Content following the requested schema),
// "decline" or "cancel".
type ElicitationAnswer struct {
	Action  string         `json:"action"`
	Content map[string]any `json:"content,omitempty"`
}

// MaxElicitationSchemaBytes bounds a requested schema a server may send: a form's few flat fields
// fit many times over.
const MaxElicitationSchemaBytes = 64 << 10

// errElicited is the cancellation cause of a call whose server asked something: the turn stops.
var errElicited = errors.New("mcp: the server asked for input")

// elicitCall is a tool call in flight that an elicitation can interrupt or that brings an answer.
type elicitCall struct {
	mu        sync.Mutex
	cancel    context.CancelCauseFunc
	interrupt *toolcall.InterruptError // set once: the call stops
	answer    *ElicitationAnswer       // the resumed call's answer, for the question it had
	asked     *Elicitation             // the question answer is for
}

type elicitKey struct{}

// startElicitable registers a tool call that elicitations may interrupt, with the resumed
// answer when the call is a restart after one. It returns the call and a function ending it.
func (c *Client) startElicitable(ctx context.Context, cancel context.CancelCauseFunc) (context.Context, *elicitCall, func(), error) {
	call := &elicitCall{cancel: cancel}
	if r, ok := toolcall.Resumed(ctx); ok && r.Interrupt != nil && len(r.Interrupt.Data) > 0 {
		var asked Elicitation
		if json.Unmarshal(r.Interrupt.Data, &asked) == nil && asked.Message != "" && asked.Server == c.cfg.Name {
			var a ElicitationAnswer
			if err := json.Unmarshal(r.Data, &a); err != nil || len(r.Data) == 0 {
				return ctx, nil, nil, fmt.Errorf("mcp: the answer to %s's question is not an ElicitationAnswer: %s", quoteName(c.cfg.Name), r.Data)
			}
			if err := checkAnswer(&asked, &a); err != nil {
				return ctx, nil, nil, err
			}
			call.answer, call.asked = &a, &asked
		}
	}
	c.mu.Lock()
	if c.elicitable == nil {
		c.elicitable = map[*elicitCall]bool{}
	}
	c.elicitable[call] = true
	c.mu.Unlock()
	return context.WithValue(ctx, elicitKey{}, call), call, func() {
		c.mu.Lock()
		delete(c.elicitable, call)
		c.mu.Unlock()
	}, nil
}

// checkAnswer validates an answer against the question: its action, and an accepted form's
// content against the requested schema.
func checkAnswer(asked *Elicitation, a *ElicitationAnswer) error {
	switch a.Action {
	case "decline", "cancel":
		a.Content = nil
		return nil
	case "accept":
	default:
		return fmt.Errorf("mcp: an elicitation answer's action is accept, decline or cancel, not %q", a.Action)
	}
	if asked.Mode == "url" || len(asked.RequestedSchema) == 0 {
		return nil
	}
	resolved, err := requestedSchema(asked.RequestedSchema)
	if err != nil {
		return err
	}
	content := map[string]any{}
	if a.Content != nil {
		content = a.Content
	}
	if err := resolved.Validate(content); err != nil {
		return fmt.Errorf("mcp: the answer does not follow the requested schema: %w", err)
	}
	return nil
}

// requestedSchema checks a requested schema as the specification restricts it (an object of flat
// fields of primitive types) and resolves it for validation.
func requestedSchema(raw json.RawMessage) (*jsonschema.Resolved, error) {
	if len(raw) > MaxElicitationSchemaBytes {
		return nil, fmt.Errorf("mcp: the requested schema is %d bytes, over the limit of %d", len(raw), MaxElicitationSchemaBytes)
	}
	var s jsonschema.Schema
	if err := json.Unmarshal(raw, &s); err != nil {
		return nil, fmt.Errorf("mcp: the requested schema is not a JSON schema: %w", err)
	}
	if s.Type != "object" {
		return nil, fmt.Errorf("mcp: the requested schema is of type %q, not object", s.Type)
	}
	for name, p := range s.Properties {
		if p == nil || p.Ref != "" || p.Properties != nil {
			return nil, fmt.Errorf("mcp: the requested schema's field %q is not a flat primitive", name)
		}
		switch p.Type {
		case "string", "number", "integer", "boolean":
		case "array": // a multiple choice: its items are strings, possibly from an enumeration
			if it := p.Items; it == nil || it.Ref != "" || it.Properties != nil || it.Items != nil || (it.Type != "" && it.Type != "string") {
				return nil, fmt.Errorf("mcp: the requested schema's field %q is a list of other than strings", name)
			}
		default:
			return nil, fmt.Errorf("mcp: the requested schema's field %q has type %q; fields are string, number, integer or boolean", name, p.Type)
		}
	}
	if s.Ref != "" || len(s.Defs) > 0 || len(s.Definitions) > 0 {
		return nil, errors.New("mcp: the requested schema uses references; fields are flat primitives")
	}
	return s.Resolve(nil)
}

// elicit answers a server's elicitation request. The request is matched to the tool call it
// belongs to (by context when the SDK carries it there, as for multi-round-trip requests, else
// the one call in flight on the client). A resumed call's answer goes to the question it was
// given for; a new question stops the call with an interrupt, answered "cancel" to the server,
// as the call is abandoned and made again on resume. With no call to stop (none in flight, or
// several so that it is ambiguous) or a request wield refuses (hostile schema), the answer is
// "decline".
func (c *Client) elicit(ctx context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
	p := req.Params
	call, _ := ctx.Value(elicitKey{}).(*elicitCall)
	if call == nil {
		c.mu.Lock()
		if len(c.elicitable) == 1 {
			for k := range c.elicitable {
				call = k
			}
		}
		c.mu.Unlock()
	}
	decline := &sdk.ElicitResult{Action: "decline"}
	if call == nil {
		c.logger.Warn("mcp: declined an elicitation with no tool call to interrupt", "server", c.cfg.Name)
		return decline, nil
	}
	asked := &Elicitation{Server: c.cfg.Name, Mode: p.Mode, Message: p.Message, URL: p.URL}
	if p.RequestedSchema != nil {
		raw, err := json.Marshal(p.RequestedSchema)
		if err != nil {
			return decline, nil
		}
		asked.RequestedSchema = raw
		if _, err := requestedSchema(raw); err != nil {
			c.logger.Warn("mcp: declined an elicitation", "server", c.cfg.Name, "reason", err)
			return decline, nil
		}
	}
	call.mu.Lock()
	defer call.mu.Unlock()
	if call.interrupt != nil {
		return &sdk.ElicitResult{Action: "cancel"}, nil // the call is already stopping
	}
	if call.answer != nil && sameQuestion(call.asked, asked) {
		a := call.answer
		call.answer = nil // one answer, one question
		return &sdk.ElicitResult{Action: a.Action, Content: a.Content}, nil
	}
	data, err := json.Marshal(asked)
	if err != nil {
		return decline, nil
	}
	call.interrupt = &toolcall.InterruptError{Message: p.Message, Data: data}
	call.cancel(errElicited)
	return &sdk.ElicitResult{Action: "cancel"}, nil
}

func sameQuestion(a, b *Elicitation) bool {
	return a.Message == b.Message && a.Mode == b.Mode && a.URL == b.URL && jsonEqual(a.RequestedSchema, b.RequestedSchema)
}

func jsonEqual(a, b json.RawMessage) bool {
	if len(a) == 0 || len(b) == 0 {
		return len(a) == len(b)
	}
	var x, y any
	if json.Unmarshal(a, &x) != nil || json.Unmarshal(b, &y) != nil {
		return bytes.Equal(a, b)
	}
	xa, _ := json.Marshal(x)
	ya, _ := json.Marshal(y)
	return bytes.Equal(xa, ya)
}

// interrupted returns the interrupt of a call its server stopped by asking something, or nil.
func (call *elicitCall) interrupted() *toolcall.InterruptError {
	if call == nil {
		return nil
	}
	call.mu.Lock()
	defer call.mu.Unlock()
	return call.interrupt
}
