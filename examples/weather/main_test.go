package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chattest"
)

func TestWeather(t *testing.T) {
	m := scriptedModel()
	var out bytes.Buffer
	if err := run(context.Background(), m, &out); err != nil {
		t.Fatal(err)
	}
	if out.String() != "It is 30°C in Copenhagen.\n" {
		t.Fatalf("output = %q", out.String())
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
	var out bytes.Buffer
	if err := run(context.Background(), m, &out); err != nil {
		t.Fatal(err)
	}
	p := m.Prompt(1)
	if r := p.Messages[len(p.Messages)-1].ToolResults[0]; !r.IsError || !strings.Contains(r.Content, "unit") {
		t.Fatalf("invalid arguments result = %+v", r)
	}
}
