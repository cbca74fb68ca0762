package main

import (
	"strings"
	"testing"

	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestObserver(t *testing.T) {
	m := scriptedModel()
	out := exampletest.Run(t, run, m)
	got := out
	for _, want := range []string{
		// The observer ran on both iterations of the call and saw the tool results on the second.
		"[iteration 0] sending 1 messages",
		"[iteration 1] sending 3 messages",
		"tool:  [result weather: rainy] [result weather: sunny]",
		"answer: Rainy in Amsterdam, sunny in Paris.",
		// Streaming: the observer saw every chunk, tool-call fragments included.
		"[iteration 0] 5 chunks, 1 tool calls",
		`tool weather({"city":"Paris"}) started`,
		`tool weather finished: "sunny", error <nil>`,
		`text "Checking."`,
		`text "Sunny."`,
		"done: answer after 2 model calls",
	} {
		if !strings.Contains(got, want) {
			t.Errorf("output lacks %q", want)
		}
	}
	// The caller's text events carry no tool-call fragments, and the tool ran between the rounds.
	stream := got[strings.Index(got, "streaming:"):]
	if strings.Index(stream, `text "Checking."`) > strings.Index(stream, "started") ||
		strings.Index(stream, "finished") > strings.Index(stream, `text "Sunny."`) {
		t.Fatalf("stream order:\n%s", stream)
	}
	if t.Failed() {
		t.Log(got)
	}
	p := m.Prompt(1)
	if r := p.Messages[len(p.Messages)-1].ToolResults; len(r) != 2 || r[0].Content != "rainy" {
		t.Fatalf("results = %+v", r)
	}
}
