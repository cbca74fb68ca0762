// Command memory keeps a conversation across turns with the memory advisor, first outside the
// tool loop (the default order: the user's message and the final answer are stored), then
// inside it (every message is stored, tool calls and results included, and the loop stops
// keeping its own history).
package main

import (
	"context"
	"fmt"
	"io"
	"log"
	"os"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/chattest"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/memory"
)

//go:generate go run github.com/wield-ai/wield/cmd/wield gen

// MathTools does arithmetic. Its methods marked //wield:tool are its tools; `wield gen` writes
// wield_tools.go, which registers them with their doc comments as descriptions.
type MathTools struct{}

// Operands are two numbers.
type Operands struct {
	A float64 `json:"a"`
	B float64 `json:"b"`
}

// Multiply returns a times b.
//
//wield:tool
func (MathTools) Multiply(in Operands) float64 { return in.A * in.B }

func run(ctx context.Context, model chat.Model, repo memory.Repository, order int, out io.Writer) error {
	mem := memory.NewWindow(repo, 20)
	c, err := client.New(model,
		client.WithSystem("You are a helpful assistant."),
		client.WithTools(MathTools{}),
		client.WithAdvisors(memory.NewAdvisor(mem, memory.AdvisorConfig{Order: order})),
	)
	if err != nil {
		return err
	}
	for _, q := range []string{"What is 6 * 8?", "What did I ask you earlier?"} {
		answer, err := c.Prompt(q).Param(client.ParamConversationID, "user-1").Call(ctx).Content()
		if err != nil {
			return err
		}
		fmt.Fprintf(out, "> %s\n%s\n", q, answer)
	}
	stored, err := repo.Messages(ctx, "user-1")
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "stored:")
	for _, m := range stored {
		fmt.Fprintln(out, " ", m)
	}
	return nil
}

func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("multiply", `{"a":6,"b":8}`)),
		chattest.Text("6 * 8 is 48."),
		chattest.Text(`You asked "What is 6 * 8?".`),
	)
}

func main() {
	ctx := context.Background()
	fmt.Println("# memory outside the loop")
	if err := run(ctx, scriptedModel(), memory.NewInMemory(), client.OrderMemory, os.Stdout); err != nil {
		log.Fatal(err)
	}
	fmt.Println("# memory inside the loop")
	if err := run(ctx, scriptedModel(), memory.NewInMemory(), client.OrderToolCalling+100, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
