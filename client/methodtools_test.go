package client

import (
	"context"
	"strings"
	"testing"

	"github.com/wield-ai/wield/internal/methodtools"
	"github.com/wield-ai/wield/tool"
)

type pingTools struct{}

func (pingTools) Ping() string { return "pong" }

type unregisteredTools struct{}

func (unregisteredTools) Echo(in struct{ S string }) string { return in.S }

// Without a type registering method tools, a value that is not a tool is refused with the way
// to make its methods tools, and tool.Methods is not called (nor linked, in such a program).
func TestMethodToolsUnregisteredProgram(t *testing.T) {
	prev := methodtools.Get()
	methodtools.Install(nil)
	defer methodtools.Install(prev)
	var s toolSet
	err := s.add(unregisteredTools{})
	if err == nil || !strings.Contains(err.Error(), "client.unregisteredTools is not a tool") ||
		!strings.Contains(err.Error(), "wield gen") || !strings.Contains(err.Error(), "tool.Only") {
		t.Fatalf("add = %v, want the refusal naming wield gen and tool.Only", err)
	}
}

// Once a type registers method tools, values of it become its tools, and values of other types
// get tool.Methods' own error, which lists their candidate methods.
func TestMethodToolsRegistered(t *testing.T) {
	prev := methodtools.Get()
	defer methodtools.Install(prev)
	tool.RegisterMethods[pingTools](tool.MethodDoc{Method: "Ping", Description: "Answers pong."})
	var s toolSet
	if err := s.add(pingTools{}); err != nil {
		t.Fatal(err)
	}
	if len(s.tools) != 1 || s.tools[0].Definition().Name != "ping" {
		t.Fatalf("tools = %v, want ping", s.tools)
	}
	res, err := s.tools[0].Call(context.Background(), "{}")
	if err != nil || !strings.Contains(res, "pong") {
		t.Fatalf("ping = %v, %v", res, err)
	}
	err = s.add(unregisteredTools{})
	if err == nil || !strings.Contains(err.Error(), `tool.Only("Echo")`) {
		t.Fatalf("add = %v, want tool.Methods' error listing Echo", err)
	}
}
