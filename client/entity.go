package client

import (
	"context"
	"fmt"
	"reflect"
	"strings"
	"unicode/utf8"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/schema"
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
		cut := 197
		for cut > 0 && !utf8.RuneStart(text[cut]) {
			cut-- // never inside a character
		}
		text = text[:cut] + "..."
	}
	return fmt.Sprintf("client: the answer is not a valid %s: %v (answer: %q)", e.Type, e.Err, text)
}

func (e *EntityError) Unwrap() error { return e.Err }

// Entity sends the request asking for an answer in JSON matching T's schema (inferred as for
// tool inputs), and decodes the answer into a T, read by the same rules as tool arguments
// (durations as "1h30m", defaults filled in). The schema goes to the model twice: as
// [chat.Options.ResponseFormat] for providers that enforce it, and in the system message for
// those that do not. An answer wrapped in a Markdown code fence is accepted. An answer that is
// not a valid T is an [*EntityError].
func Entity[T any](ctx context.Context, s *Spec) (T, error) {
	var zero T
	t := reflect.TypeFor[T]()
	codec, err := schema.For(t)
	if err != nil {
		return zero, fmt.Errorf("client: %w", err)
	}
	raw, name := codec.Schema(), t.Name()
	if name == "" {
		name = "answer"
	}
	system := s.c.system
	if s.system != nil {
		system = *s.system
	}
	instr := "Answer with a single JSON value that matches this JSON Schema, and nothing else:\n" + string(raw)
	if system != "" {
		system += "\n\n" + instr
	} else {
		system = instr
	}
	s.System(system)
	s.Options(&chat.Options{ResponseFormat: &chat.ResponseFormat{Name: name, Schema: raw, Strict: true}})
	text, err := s.Call(ctx).Content()
	if err != nil {
		return zero, err
	}
	body := unfence(text)
	if len(body) == 0 {
		return zero, &EntityError{Type: name, Text: text, Err: fmt.Errorf("the answer is empty")}
	}
	var v T
	if err := codec.Decode(body, &v); err != nil {
		return zero, &EntityError{Type: name, Text: text, Err: err}
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
