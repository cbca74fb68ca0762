package gemini

import (
	"context"
	"errors"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
)

// This provider has no native tool search: a request asking for one is refused, called or
// streamed, before anything is sent, so deferred tools are never sent in full unnoticed.
func TestToolSearchRefused(t *testing.T) {
	srv := replay.NewServer(t)
	m, _ := newTestModel(t, srv.URL, Config{Model: "gemini-2.5-flash"})
	p := &chat.Prompt{Messages: []chat.Message{chat.User("hi")}, Options: &chat.Options{ToolSearch: &chat.ToolSearch{Kind: chat.ToolSearchServer}}}
	if _, err := m.Call(context.Background(), p); !errors.Is(err, chat.ErrToolSearchUnsupported) {
		t.Errorf("Call: err = %v", err)
	}
	for _, err := range m.Stream(context.Background(), p) {
		if !errors.Is(err, chat.ErrToolSearchUnsupported) {
			t.Errorf("Stream: err = %v", err)
		}
		break
	}
	if srv.Served() != 0 {
		t.Errorf("%d requests sent", srv.Served())
	}
}
