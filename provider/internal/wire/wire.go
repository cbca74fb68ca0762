// Package wire holds what the providers do alike on their APIs' wire, whatever SDK carries the
// request: reading a prompt's options, the hooks that adjust a request, the life of a request,
// called or streamed, the tool-call input an answer holds and a request sends back, and how a
// message's content parts or its error are written.
package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"iter"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/internal/splice"
)

// Options returns the options of p, the zero options when it has none. A nil p is an error
// naming the provider: there is nothing to send.
func Options(provider string, p *chat.Prompt) (*chat.Options, error) {
	if p == nil {
		return nil, errors.New(provider + ": nil prompt")
	}
	if p.Options == nil {
		return &chat.Options{}, nil
	}
	return p.Options, nil
}

// Stream is the iterator a provider's Stream returns. Nothing is built or sent until iteration
// starts; a request that cannot be built is the one error yielded. send runs under a context
// cancelled when it returns, so stopping the iteration early closes the connection.
func Stream[R any](ctx context.Context, build func() (R, error), send func(ctx context.Context, req R, yield func(*chat.Response, error) bool)) iter.Seq2[*chat.Response, error] {
	return func(yield func(*chat.Response, error) bool) {
		req, err := build()
		if err != nil {
			yield(nil, err)
			return
		}
		ctx, cancel := context.WithCancel(ctx)
		defer cancel()
		send(ctx, req, yield)
	}
}

// PromptStream is [Stream] for a request built from p: p's large values are registered for
// splicing ([splice.With]) while the request is built and sent.
func PromptStream[R any](ctx context.Context, p *chat.Prompt, build func() (R, error), send func(ctx context.Context, req R, yield func(*chat.Response, error) bool)) iter.Seq2[*chat.Response, error] {
	return func(yield func(*chat.Response, error) bool) {
		ctx, done := splice.With(ctx, p)
		defer done()
		Stream(ctx, build, send)(yield)
	}
}

// PromptCall is the whole-answer counterpart of [PromptStream]: it builds the request for p and
// sends it, with p's large values registered for splicing ([splice.With]) throughout. A request
// that cannot be built is the error returned, and nothing is sent.
func PromptCall[R any](ctx context.Context, p *chat.Prompt, build func() (R, error), send func(ctx context.Context, req R) (*chat.Response, error)) (*chat.Response, error) {
	ctx, done := splice.With(ctx, p)
	defer done()
	req, err := build()
	if err != nil {
		return nil, err
	}
	return send(ctx, req)
}

// StreamEnd is how a stream ended, once its events are read: err, the transport's or the API's,
// through wrap; or, when the stream stopped before its last event (complete is false), the
// context's error through wrap if the context ended, else incomplete. A complete stream ends
// with nil.
func StreamEnd(ctx context.Context, err error, complete bool, wrap func(context.Context, error) error, incomplete error) error {
	switch {
	case err != nil:
		return wrap(ctx, err)
	case complete:
		return nil
	case ctx.Err() != nil:
		return wrap(ctx, ctx.Err())
	}
	return incomplete
}

// ExtraFunc reads the function a call put in extra[key] to adjust its request: nil without the
// key, an error naming provider and the type wanted when the value is of another type.
func ExtraFunc[T any](provider string, extra map[string]any, key string) (func(T), error) {
	v, ok := extra[key]
	if !ok {
		return nil, nil
	}
	f, isFunc := v.(func(T))
	if !isFunc {
		return nil, fmt.Errorf("%s: Extra[%q] must be a %T, not %T", provider, key, f, v)
	}
	return f, nil
}

// Configure runs the functions that may adjust a request after the provider has filled it, in
// order (the configuration's, then the call's), passing over the nil ones.
func Configure[T any](req T, fns ...func(T)) {
	for _, f := range fns {
		if f != nil {
			f(req)
		}
	}
}

// CompactObject returns a tool call's input, JSON text that must be an object, as compact JSON
// text; an absent input (nothing, or null) is "{}", the object without arguments.
func CompactObject(data []byte) (string, error) {
	data = bytes.TrimSpace(data)
	if len(data) == 0 || string(data) == "null" {
		return "{}", nil
	}
	if data[0] != '{' {
		return "", fmt.Errorf("input %.50q is not a JSON object", data)
	}
	var buf bytes.Buffer
	buf.Grow(len(data))
	if err := json.Compact(&buf, data); err != nil {
		return "", fmt.Errorf("input is not valid JSON: %w", err)
	}
	return buf.String(), nil
}

// CallInput returns the arguments of a call the model made, sent back in a tool-use block that
// must hold them as a JSON object: trimmed, "{}" when there are none, then parsed by parse into
// what the SDK takes. It refuses a call without an id, which the tool's result could not answer,
// and arguments that are not an object or that parse refuses.
func CallInput[T any](c chat.ToolCall, parse func([]byte) (T, error)) (T, error) {
	var input T
	if c.ID == "" {
		return input, fmt.Errorf("call of tool %q has no id", c.Name)
	}
	args := bytes.TrimSpace([]byte(c.Arguments))
	if len(args) == 0 {
		args = []byte("{}")
	}
	if args[0] != '{' {
		return input, fmt.Errorf("call %s of tool %q: arguments %.100q are not a JSON object", c.ID, c.Name, c.Arguments)
	}
	input, err := parse(args)
	if err != nil {
		return input, fmt.Errorf("call %s of tool %q: arguments %.100q are not a JSON object: %w", c.ID, c.Name, c.Arguments, err)
	}
	return input, nil
}
