package main

import (
	"context"
	"io"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/examples/internal/exampletest"
	"github.com/wield-ai/wield/memory"
)

func kinds(msgs []chat.Message) string {
	var b strings.Builder
	for _, m := range msgs {
		switch {
		case m.Role == chat.RoleAssistant && len(m.ToolCalls) > 0:
			b.WriteString("C")
		default:
			b.WriteString(strings.ToUpper(string(m.Role[0])))
		}
	}
	return b.String()
}

func TestMemory(t *testing.T) {
	tests := []struct {
		name                      string
		order                     int
		stored, loopCall, turnTwo string
	}{
		// Outside: only the exchange is stored; the loop keeps the tool messages itself.
		{"outside", client.OrderMemory, "UAUA", "SUCT", "SUAU"},
		// Inside: everything is stored and supplies the loop's history.
		{"inside", client.OrderToolCalling + 100, "UCTAUA", "SUCT", "SUCTAU"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			m := scriptedModel()
			repo := memory.NewInMemory()
			out := exampletest.Output(t, func(w io.Writer) error { return run(t.Context(), m, repo, tt.order, w) })
			if !strings.Contains(out, "6 * 8 is 48.") || !strings.Contains(out, `You asked "What is 6 * 8?".`) {
				t.Fatalf("output:\n%s", out)
			}
			stored, _ := repo.Messages(context.Background(), "user-1")
			if got := kinds(stored); got != tt.stored {
				t.Fatalf("stored %s: %v", got, stored)
			}
			if got := kinds(m.Prompt(1).Messages); got != tt.loopCall {
				t.Fatalf("second model call of turn one: %s", got)
			}
			if r := m.Prompt(1).Messages[3].ToolResults; len(r) != 1 || r[0].Content != "48" {
				t.Fatalf("tool result = %+v", r)
			}
			if got := kinds(m.Prompt(2).Messages); got != tt.turnTwo {
				t.Fatalf("turn two prompt: %s (%v)", got, m.Prompt(2).Messages)
			}
		})
	}
}
