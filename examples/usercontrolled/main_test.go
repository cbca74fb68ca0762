package main

import (
	"bytes"
	"context"
	"io"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestUserControlled(t *testing.T) {
	for name, run := range map[string]func(context.Context, chat.Model, io.Writer) error{
		"call":   runCall,
		"stream": runStream,
	} {
		t.Run(name, func(t *testing.T) {
			m := scriptedModel().WithChunkSize(5)
			out := exampletest.Run(t, run, m)
			if out != "Amsterdam is rainy at 12°C; Paris is sunny at 21°C.\n" {
				t.Fatalf("output = %q", out)
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
