package main

import (
	"testing"

	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/examples/internal/exampletest"
)

func TestReturnDirect(t *testing.T) {
	m := scriptedModel()
	out := exampletest.Run(t, run, m)
	want := "{\"id\":42,\"name\":\"Ada Lovelace\"}\noutcome: return_direct model calls: 1\n"
	if out != want {
		t.Fatalf("output = %q", out)
	}
	// The model was called once and never saw the result.
	if m.Requests() != 1 {
		t.Fatalf("%d model calls", m.Requests())
	}
	if !m.Prompt(0).Options.Tools[0].Metadata().ReturnDirect {
		t.Fatal("tool not return-direct")
	}
}

func TestReturnDirectFailureGoesBackToTheModel(t *testing.T) {
	// A failed return-direct call is not an answer: the model sees the error and may retry.
	m := chattest.New(
		chattest.Calls(chattest.Call("getCustomerInfo", `{"id":7}`)),
		chattest.Calls(chattest.Call("getCustomerInfo", `{"id":42}`)),
	)
	out := exampletest.Run(t, run, m)
	p := m.Prompt(1)
	if r := p.Messages[len(p.Messages)-1].ToolResults[0]; !r.IsError {
		t.Fatalf("result = %+v", r)
	}
	if out != "{\"id\":42,\"name\":\"Ada Lovelace\"}\noutcome: return_direct model calls: 2\n" {
		t.Fatalf("output = %q", out)
	}
}
