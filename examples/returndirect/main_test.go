package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/wield-ai/wield/chattest"
)

func TestReturnDirect(t *testing.T) {
	m := scriptedModel()
	var out bytes.Buffer
	if err := run(context.Background(), m, &out); err != nil {
		t.Fatal(err)
	}
	want := "{\"id\":42,\"name\":\"Ada Lovelace\"}\noutcome: return_direct model calls: 1\n"
	if out.String() != want {
		t.Fatalf("output = %q", out.String())
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
	var out bytes.Buffer
	if err := run(context.Background(), m, &out); err != nil {
		t.Fatal(err)
	}
	p := m.Prompt(1)
	if r := p.Messages[len(p.Messages)-1].ToolResults[0]; !r.IsError {
		t.Fatalf("result = %+v", r)
	}
	if out.String() != "{\"id\":42,\"name\":\"Ada Lovelace\"}\noutcome: return_direct model calls: 2\n" {
		t.Fatalf("output = %q", out.String())
	}
}
