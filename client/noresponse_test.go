package client_test

import (
	"context"
	"errors"
	"iter"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
)

// noGenerations answers with a response that has no generation: an API answer with no choices
// or candidates, or a stream that reports usage and ends.
type noGenerations struct{}

func (noGenerations) Call(context.Context, *chat.Prompt) (*chat.Response, error) {
	return &chat.Response{ID: "r", Usage: chat.Usage{InputTokens: 3}}, nil
}

func (noGenerations) Stream(context.Context, *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return func(yield func(*chat.Response, error) bool) {
		yield(&chat.Response{ID: "r", Usage: chat.Usage{InputTokens: 3}}, nil)
	}
}

// TestNoGenerationIsAnError: a response without a generation fails the turn with
// ErrNoResponse, on a call and on a stream, rather than passing for an empty answer.
func TestNoGenerationIsAnError(t *testing.T) {
	c := clienttest.New(t, noGenerations{})
	if text, err := c.Prompt("hi").Call(context.Background()).Content(); !errors.Is(err, client.ErrNoResponse) {
		t.Errorf("call: %q, %v", text, err)
	}
	var err error
	for _, e := range c.Prompt("hi").Stream(context.Background()).Text() {
		if e != nil {
			err = e
		}
	}
	if !errors.Is(err, client.ErrNoResponse) {
		t.Errorf("stream: %v", err)
	}
}
