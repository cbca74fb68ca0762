package main

import (
	"strings"
	"testing"

	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestAugment(t *testing.T) {
	m := scriptedModel()
	out := exampletest.Run(t, run, m)
	want := "tool: currentWeather | reasoning: The user asks about Amsterdam's weather; currentWeather answers that. | confidence: high\n" +
		"answer: It is 18°C and sunny in Amsterdam.\n"
	if out != want {
		t.Errorf("output = %q", out)
	}
	// The model saw the augmented schema; the tool's result reached it without the extra fields.
	schema := string(m.Prompt(0).Options.Tools[0].Definition().InputSchema)
	if !strings.Contains(schema, "innerThought") || !strings.Contains(schema, "location") {
		t.Errorf("schema sent: %s", schema)
	}
	if res := m.Prompt(1).Messages[len(m.Prompt(1).Messages)-1]; !strings.Contains(res.ToolResults[0].Content, "18°C and sunny in Amsterdam") {
		t.Errorf("tool result: %+v", res)
	}
}
