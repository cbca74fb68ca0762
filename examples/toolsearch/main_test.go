package main

import (
	"bytes"
	"context"
	"strings"
	"testing"
)

func TestToolSearch(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), scriptedModel(), &out); err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 5 {
		t.Fatalf("output:\n%s", out.String())
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
