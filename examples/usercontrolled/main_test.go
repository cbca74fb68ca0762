package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
)

func TestUserControlled(t *testing.T) {
	for name, run := range map[string]func(context.Context, chat.Model, *bytes.Buffer) error{
		"call":   func(ctx context.Context, m chat.Model, b *bytes.Buffer) error { return runCall(ctx, m, b) },
		"stream": func(ctx context.Context, m chat.Model, b *bytes.Buffer) error { return runStream(ctx, m, b) },
	} {
		t.Run(name, func(t *testing.T) {
			m := scriptedModel().WithChunkSize(5)
			var out bytes.Buffer
			if err := run(context.Background(), m, &out); err != nil {
				t.Fatal(err)
			}
			if out.String() != "Amsterdam is rainy at 12°C; Paris is sunny at 21°C.\n" {
				t.Fatalf("output = %q", out.String())
			}
			if m.Requests() != 2 {
				t.Fatalf("%d model calls", m.Requests())
			}
			p := m.Prompt(1)
			if len(p.Messages) != 3 {
				t.Fatalf("second prompt = %v", p.Messages)
			}
			calls, results := p.Messages[1].ToolCalls, p.Messages[2].ToolResults
			if len(calls) != 2 || calls[0].Arguments != `{"city":"Amsterdam"}` || calls[1].Arguments != `{"city":"Paris"}` {
				t.Fatalf("calls (aggregated from the stream) = %+v", calls)
			}
			if len(results) != 2 || results[0].Content != "rainy, 12°C" || results[1].Content != "sunny, 21°C" || results[0].ID != calls[0].ID {
				t.Fatalf("results = %+v", results)
			}
		})
	}
}

func TestUserControlledStreamError(t *testing.T) {
	m := chattest.New(chattest.Reply{Text: "cut", Err: context.DeadlineExceeded})
	if err := runStream(context.Background(), m, &bytes.Buffer{}); err != context.DeadlineExceeded {
		t.Fatalf("err = %v", err)
	}
}
