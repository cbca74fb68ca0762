package client

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
	"sync"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/tool"
)

// EntityError is returned by [Entity] when the model's answer is not a valid T: not JSON, or
// JSON that does not match T's schema. Text is the answer as the model wrote it.
type EntityError struct {
	Type string
	Text string
	Err  error
}

func (e *EntityError) Error() string {
	text := e.Text
	if len(text) > 200 {
		text = text[:197] + "..."
	}
	return fmt.Sprintf("client: the answer is not a valid %s: %v (answer: %q)", e.Type, e.Err, text)
}

func (e *EntityError) Unwrap() error { return e.Err }

type entitySchema struct {
	raw       json.RawMessage
	validator *tool.Validator
	name      string
}

var entitySchemas sync.Map // reflect.Type → *entitySchema

func schemaFor[T any]() (*entitySchema, error) {
	t := reflect.TypeFor[T]()
	if s, ok := entitySchemas.Load(t); ok {
		return s.(*entitySchema), nil
	}
	s, err := tool.SchemaOf(t)
	if err != nil {
		return nil, err
	}
	raw, err := json.Marshal(s)
	if err != nil {
		return nil, err
	}
	v, err := tool.CompileSchema(raw)
	if err != nil {
		return nil, err
	}
	name := t.Name()
	if name == "" {
		name = "answer"
	}
	es := &entitySchema{raw: raw, validator: v, name: name}
	entitySchemas.Store(t, es)
	return es, nil
}

// Entity sends the request asking for an answer in JSON matching T's schema (inferred as for
// tool inputs), and decodes the answer into a T. The schema goes to the model twice: as
// [chat.Options.ResponseFormat] for providers that enforce it, and in the system message for
// those that do not. An answer wrapped in a Markdown code fence is accepted. An answer that is
// not a valid T is an [*EntityError].
func Entity[T any](ctx context.Context, s *Spec) (T, error) {
	var zero T
	es, err := schemaFor[T]()
	if err != nil {
		return zero, fmt.Errorf("client: schema of %v: %w", reflect.TypeFor[T](), err)
	}
	system := s.c.system
	if s.system != nil {
		system = *s.system
	}
	instr := "Answer with a single JSON value that matches this JSON Schema, and nothing else:\n" + string(es.raw)
	if system != "" {
		system += "\n\n" + instr
	} else {
		system = instr
	}
	s.System(system)
	s.Options(&chat.Options{ResponseFormat: &chat.ResponseFormat{Name: es.name, Schema: es.raw, Strict: true}})
	text, err := s.Call(ctx).Content()
	if err != nil {
		return zero, err
	}
	body := []byte(unfence(text))
	if len(body) == 0 {
		return zero, &EntityError{Type: es.name, Text: text, Err: fmt.Errorf("the answer is empty")}
	}
	if err := es.validator.Validate(body); err != nil {
		return zero, &EntityError{Type: es.name, Text: text, Err: err}
	}
	var v T
	if err := json.Unmarshal(body, &v); err != nil {
		return zero, &EntityError{Type: es.name, Text: text, Err: err}
	}
	return v, nil
}

// unfence strips blank space and a Markdown code fence around a JSON answer.
func unfence(s string) string {
	s = strings.TrimSpace(s)
	if rest, ok := strings.CutPrefix(s, "```"); ok {
		if nl := strings.IndexByte(rest, '\n'); nl >= 0 {
			rest = rest[nl+1:] // drop the info string, e.g. "json"
		}
		s = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "```"))
	}
	return s
}
