package main

import (
	"strings"
	"testing"

	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestToolSearch(t *testing.T) {
	out := exampletest.Run(t, run, scriptedModel())
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 5 {
		t.Fatalf("output:\n%s", out)
	}
	if lines[0] != "request 1: toolSearchTool" {
		t.Errorf("first request: %q", lines[0])
	}
	if !strings.HasPrefix(lines[1], "request 2: toolSearchTool, weather_forecast") {
		t.Errorf("second request: %q", lines[1])
	}
	if lines[3] != "answer: Yes: light rain is expected in Oslo tomorrow, around 12°C." {
		t.Errorf("answer: %q", lines[3])
	}
	if !strings.HasPrefix(lines[4], "definition tokens: ") {
		t.Errorf("tokens: %q", lines[4])
	}
}
