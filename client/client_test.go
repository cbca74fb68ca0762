package client_test

import (
	"context"
	"errors"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/tool"
)

func TestPromptAssembly(t *testing.T) {
	m := chattest.New(chattest.Text("one"), chattest.Text("two"))
	c := clienttest.New(t, m,
		client.WithSystem("be brief"),
		client.WithOptions(&chat.Options{Model: "m1", Temperature: chat.Ptr(0.2)}),
		client.WithToolContext(tool.Context{"tenant": "acme", "user": "u0"}),
	)
	ctx := context.Background()
	got, err := c.Prompt("hello").
		Messages(chat.Assistant("earlier"), chat.User("again")).
		Options(&chat.Options{Temperature: chat.Ptr(0.9)}).
		ToolContext(tool.Context{"user": "u1"}).
		Call(ctx).Content()
	if err != nil || got != "one" {
		t.Fatalf("Content = %q, %v", got, err)
	}
	p := m.Prompt(0)
	want := []chat.Message{chat.System("be brief"), chat.User("hello"), chat.Assistant("earlier"), chat.User("again")}
	if !reflect.DeepEqual(p.Messages, want) {
		t.Fatalf("messages = %v", p.Messages)
	}
	if p.Options.Model != "m1" || *p.Options.Temperature != 0.9 {
		t.Fatalf("options = %+v", p.Options)
	}
	// System replaced for one call, removed for another.
	if _, err := c.Prompt().System("").User("x").Call(ctx).Content(); err != nil {
		t.Fatal(err)
	}
	if p := m.Prompt(1); len(p.Messages) != 1 || p.Messages[0].Role != chat.RoleUser {
		t.Fatalf("messages without system = %v", p.Messages)
	}
}

func TestConfigErrors(t *testing.T) {
	ctx := context.Background()
	m := chattest.New()
	// Errors in the client's configuration come from New; a call's own, from the call.
	build := func(model chat.Model, opts ...client.Option) func() error {
		return func() error { _, err := client.New(model, opts...); return err }
	}
	tests := []struct {
		name string
		call func() error
		want string
	}{
		{"nil model", build(nil), "nil model"},
		{"bad default tool", build(m, client.WithTools(nil)), "nil tool"},
		{"bad call tool", func() error { return clienttest.New(t, m).Prompt("x").Tools(42).Call(ctx).Err() }, "tools"},
		{"nil advisor", build(m, client.WithAdvisors(nil)), "nil advisor"},
		{"nil call advisor", func() error { return clienttest.New(t, m).Prompt("x").Advisors(nil).Call(ctx).Err() }, "nil advisor"},
		{"duplicate tools", func() error {
			return clienttest.New(t, m, client.WithTools(constTool("a", "1"))).Prompt("x").Tools(constTool("a", "2")).Call(ctx).Err()
		}, `"a"`},
		{"failing provider", func() error {
			return clienttest.New(t, m).Prompt("x").Tools(tool.ProviderFunc(func(context.Context) ([]tool.Tool, error) {
				return nil, errors.New("registry down")
			})).Call(ctx).Err()
		}, "registry down"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.call()
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("err = %v, want it to mention %q", err, tt.want)
			}
		})
	}
	if m.Requests() != 0 {
		t.Fatalf("the model was called %d times despite configuration errors", m.Requests())
	}
}

func TestToolsFromEverySource(t *testing.T) {
	m := chattest.New(chattest.Text("ok"))
	c := clienttest.New(t, m, client.WithTools(constTool("a", "1"), []tool.Tool{constTool("b", "2")}))
	err := c.Prompt("x").
		Tools(tool.List{constTool("c", "3")}, tool.ProviderFunc(func(context.Context) ([]tool.Tool, error) {
			return []tool.Tool{constTool("d", "4")}, nil
		})).
		WithoutToolLoop().Call(context.Background()).Err()
	if err != nil {
		t.Fatal(err)
	}
	if got := toolNames(m.Prompt(0)); !slices.Equal(got, []string{"a", "b", "c", "d"}) {
		t.Fatalf("tools sent = %v", got)
	}
}

func TestWithoutToolLoopReturnsCalls(t *testing.T) {
	called := false
	weather := newTool("weather", func(context.Context, string) (string, error) { called = true; return "sunny", nil })
	for _, tt := range []struct {
		name string
		c    *client.Client
		spec func(*client.Spec) *client.Spec
	}{
		{"per call", nil, func(s *client.Spec) *client.Spec { return s.WithoutToolLoop() }},
		{"per client", nil, func(s *client.Spec) *client.Spec { return s }},
	} {
		t.Run(tt.name, func(t *testing.T) {
			m := chattest.New(chattest.Calls(chattest.Call("weather", `{}`)).WithText("checking"))
			opts := []client.Option{}
			if tt.name == "per client" {
				opts = append(opts, client.WithoutToolLoop())
			}
			c := clienttest.New(t, m, opts...)
			resp, err := tt.spec(c.Prompt("weather?").Tools(weather)).Call(context.Background()).Response()
			if err != nil {
				t.Fatal(err)
			}
			if resp.Outcome != client.OutcomeToolCalls || len(resp.Chat.ToolCalls()) != 1 || resp.Text() != "checking" || called {
				t.Fatalf("outcome %v, calls %v, tool run %v", resp.Outcome, resp.Chat.ToolCalls(), called)
			}
			if m.Requests() != 1 {
				t.Fatalf("%d model calls", m.Requests())
			}
		})
	}
}

func TestAdvisorOrderWithoutTools(t *testing.T) {
	j := &journal{}
	m := chattest.New(chattest.Text("a"), chattest.Text("b"))
	c := clienttest.New(t, m, client.WithAdvisors(
		&recorder{"inner", client.OrderToolCalling + 100, j},
		&recorder{"outer", client.OrderMemory, j},
	))
	if err := c.Prompt("x").Advisors(&recorder{"first", client.HighestPrecedence, j}).Call(context.Background()).Err(); err != nil {
		t.Fatal(err)
	}
	if got, want := j.String(), "first>1 outer>1 inner>1 <inner <outer <first"; got != want {
		t.Fatalf("order = %s, want %s", got, want)
	}
	// Stream chain: the same advisors in the same order.
	j2 := &journal{}
	s := c.Prompt("y").Advisors(&recorder{"second", 1, j2}).Stream(context.Background())
	var text string
	for chunk, err := range s.Text() {
		if err != nil {
			t.Fatal(err)
		}
		text += chunk
	}
	if text != "b" || j.String() != "first>1 outer>1 inner>1 <inner <outer <first outer>1 inner>1 <inner <outer" || j2.String() != "second>1 <second" {
		t.Fatalf("stream: text %q, journal %s / %s", text, j, j2)
	}
	if s.Response() == nil || s.Response().Text() != "b" {
		t.Fatalf("stream response = %+v", s.Response())
	}
}

func TestModelErrorsWrapped(t *testing.T) {
	boom := &chat.ProviderError{StatusCode: 503}
	m := chattest.New(chattest.Fail(boom), chattest.Reply{Text: "cut", Err: boom})
	c := clienttest.New(t, m)
	err := c.Prompt("x").Call(context.Background()).Err()
	var pe *chat.ProviderError
	if !errors.As(err, &pe) || pe.StatusCode != 503 {
		t.Fatalf("err = %v", err)
	}
	var text string
	var serr error
	for chunk, err := range c.Prompt("x").Stream(context.Background()).Text() {
		if err != nil {
			serr = err
			break
		}
		text += chunk
	}
	if text != "cut" || !errors.As(serr, &pe) {
		t.Fatalf("stream: %q, %v", text, serr)
	}
}
