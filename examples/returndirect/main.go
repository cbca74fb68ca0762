// Command returndirect shows a return-direct tool: its result is the answer of the turn, and
// the model never sees it.
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
	"github.com/wield-ai/wield/tool"
)

// Customer is a customer record.
type Customer struct {
	ID   int64  `json:"id"`
	Name string `json:"name"`
}

// CustomerRequest is the input of getCustomerInfo.
type CustomerRequest struct {
	ID int64 `json:"id"`
}

func getCustomerInfo(_ context.Context, in CustomerRequest) (Customer, error) {
	if in.ID != 42 {
		return Customer{}, fmt.Errorf("no customer %d", in.ID)
	}
	return Customer{ID: 42, Name: "Ada Lovelace"}, nil
}

func run(ctx context.Context, model chat.Model, out io.Writer) error {
	info, err := tool.Func("getCustomerInfo", "Retrieve customer information", getCustomerInfo, tool.ReturnDirect())
	if err != nil {
		return err
	}
	c, err := client.New(model)
	if err != nil {
		return err
	}
	resp, err := c.Prompt("Retrieve customer 42").Tools(info).Call(ctx).Response()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, resp.Text())
	fmt.Fprintln(out, "outcome:", resp.Outcome, "model calls:", resp.ModelCalls)
	return nil
}

func scriptedModel() *chattest.Model {
	return chattest.New(chattest.Calls(chattest.Call("getCustomerInfo", `{"id":42}`)))
}

func main() {
	if err := run(context.Background(), scriptedModel(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}
