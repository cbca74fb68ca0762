// Command customer shows tool context: application data, here the tenant, reaches the tools
// through their context.Context and is never sent to the model.
package main

import (
	"context"
	"errors"
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
	ID     int64  `json:"id"`
	Name   string `json:"name"`
	Email  string `json:"email"`
	Tenant string `json:"tenant"`
}

// CustomerTools looks customers up in a per-tenant store.
type CustomerTools struct {
	// Customers maps tenant → id → customer.
	Customers map[string]map[int64]Customer
}

// CustomerRequest is the input of getCustomerInfo.
type CustomerRequest struct {
	ID int64 `json:"id" jsonschema:"The customer's id"`
}

func init() {
	tool.RegisterMethods[CustomerTools](
		tool.MethodDoc{Method: "GetCustomerInfo", Description: "Retrieve customer information"},
	)
}

// GetCustomerInfo returns a customer of the tenant named by the tool context's "tenantId".
func (c *CustomerTools) GetCustomerInfo(ctx context.Context, in CustomerRequest) (Customer, error) {
	tenant, _ := tool.ContextFrom(ctx)["tenantId"].(string)
	if tenant == "" {
		return Customer{}, tool.Fatal(errors.New("no tenant in the tool context"))
	}
	cust, ok := c.Customers[tenant][in.ID]
	if !ok {
		return Customer{}, fmt.Errorf("no customer %d", in.ID)
	}
	return cust, nil
}

func run(ctx context.Context, model chat.Model, tools *CustomerTools, out io.Writer) error {
	c, err := client.New(model)
	if err != nil {
		return err
	}
	answer, err := c.
		Prompt("Tell me more about the customer with ID 42").
		Tools(tools).
		ToolContext(tool.Context{"tenantId": "acme"}).
		Call(ctx).Content()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, answer)
	return nil
}

func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("getCustomerInfo", `{"id":42}`)),
		chattest.Text("Customer 42 is Ada Lovelace (ada@acme.example)."),
	)
}

func sampleTools() *CustomerTools {
	return &CustomerTools{Customers: map[string]map[int64]Customer{
		"acme":   {42: {ID: 42, Name: "Ada Lovelace", Email: "ada@acme.example", Tenant: "acme"}},
		"globex": {42: {ID: 42, Name: "Hank Scorpio", Email: "hank@globex.example", Tenant: "globex"}},
	}}
}

func main() {
	if err := run(context.Background(), scriptedModel(), sampleTools(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}
