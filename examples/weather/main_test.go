package main

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestWeather(t *testing.T) {
	m := scriptedModel()
	out := exampletest.Run(t, run, m)
	if out != "It is 30°C in Copenhagen.\n" {
		t.Fatalf("output = %q", out)
	}
	def := m.Prompt(0).Options.Tools[0].Definition()
	var schema struct {
		Properties map[string]struct {
			Description string   `json:"description"`
			Enum        []string `json:"enum"`
		} `json:"properties"`
		Required []string `json:"required"`
	}
	if err := json.Unmarshal(def.InputSchema, &schema); err != nil {
		t.Fatal(err)
	}
	if def.Name != "currentWeather" || def.Description != "Get the weather in location" ||
		schema.Properties["location"].Description == "" || strings.Join(schema.Properties["unit"].Enum, ",") != "C,F" ||
		strings.Join(schema.Required, ",") != "location" {
		t.Fatalf("definition = %s %s %s", def.Name, def.Description, def.InputSchema)
	}
	p := m.Prompt(1)
	if r := p.Messages[len(p.Messages)-1].ToolResults[0]; r.Content != `{"temp":30,"unit":"C"}` || r.IsError {
		t.Fatalf("tool result = %+v", r)
	}
}

func TestWeatherBadArgumentsGoBackToTheModel(t *testing.T) {
	m := chattest.New(
		chattest.Calls(chattest.Call("currentWeather", `{"location":"Copenhagen","unit":"K"}`)),
		chattest.Calls(chattest.Call("currentWeather", `{"location":"Copenhagen","unit":"C"}`)),
		chattest.Text("It is 30°C in Copenhagen."),
	)
	exampletest.Run(t, run, m)
	p := m.Prompt(1)
	if r := p.Messages[len(p.Messages)-1].ToolResults[0]; !r.IsError || !strings.Contains(r.Content, "unit") {
		t.Fatalf("invalid arguments result = %+v", r)
	}
}
