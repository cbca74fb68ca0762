// Command subagent gives a travel assistant a booking agent as a tool. The booking agent is a
// client of its own, with its own model, tools and limits; the assistant streams its turn, and
// the booking agent's events reach that stream attributed to it. Booking needs approval: the
// booking agent's turn stops, the assistant's turn stops with it, the application approves the
// booking agent's call, and the resume reaches back down into the booking agent.
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

// Flight is one flight on offer.
type Flight struct {
	Number string `json:"number"`
	Price  int    `json:"price"`
}

// Route is a trip to search flights for.
type Route struct {
	From string `json:"from"`
	To   string `json:"to"`
}

// Booking names the flight to book.
type Booking struct {
	Number string `json:"number"`
}

// Agency is the booking system the booking agent works on.
type Agency struct{ Booked []string }

func (a *Agency) tools() ([]tool.Tool, error) {
	search, err := tool.Func("search_flights", "Find flights for a route", func(_ context.Context, r Route) ([]Flight, error) {
		return []Flight{{"LX 318", 240}, {"AF 1115", 180}}, nil
	}, tool.ReadOnly())
	if err != nil {
		return nil, err
	}
	book, err := tool.Func("book_flight", "Book a flight and charge the card", func(_ context.Context, b Booking) (string, error) {
		a.Booked = append(a.Booked, b.Number)
		return "booked " + b.Number + ", confirmation K7Q2", nil
	}, tool.RequiresApproval())
	if err != nil {
		return nil, err
	}
	return []tool.Tool{search, book}, nil
}

// clients builds the assistant, whose one tool is the booking agent.
func clients(assistantModel, bookerModel chat.Model, agency *Agency) (*client.Client, error) {
	tools, err := agency.tools()
	if err != nil {
		return nil, err
	}
	booker, err := client.New(bookerModel, client.WithSystem("You book flights."), client.WithTools(tools))
	if err != nil {
		return nil, err
	}
	bookerTool, err := client.AgentTool(booker, "booker", "Books flights: give it the trip and the traveller's wishes")
	if err != nil {
		return nil, err
	}
	return client.New(assistantModel, client.WithSystem("You are a travel assistant."), client.WithTools(bookerTool))
}

// stream runs a streamed turn and prints its events, each with the agent it comes from.
func stream(ctx context.Context, spec *client.Spec, out io.Writer) (*client.Response, error) {
	s := spec.Stream(ctx)
	who := func(ev *client.Event) string {
		if a := ev.Agent(); a != "" {
			return "[" + a + "] "
		}
		return ""
	}
	open, from := false, "" // a line of text is open, and whose it is
	for ev, err := range s.Events() {
		if err != nil {
			return nil, err
		}
		if open && (ev.Chunk == nil || ev.Agent() != from) {
			fmt.Fprintln(out)
			open = false
		}
		switch {
		case ev.Chunk != nil:
			if !open {
				fmt.Fprint(out, who(ev))
				open, from = true, ev.Agent()
			}
			fmt.Fprint(out, ev.Text())
		case ev.Tool != nil:
			t := ev.Tool
			switch t.Kind {
			case client.ToolStarted:
				fmt.Fprintf(out, "%s%s %s started\n", who(ev), t.Call.Name, t.Call.Arguments)
			case client.ToolFinished:
				fmt.Fprintf(out, "%s%s finished: %s\n", who(ev), t.Call.Name, t.Result.Content)
			case client.ToolApprovalRequired:
				fmt.Fprintf(out, "%s%s %s needs approval\n", who(ev), t.Call.Name, t.Call.Arguments)
			case client.ToolInterrupted:
				fmt.Fprintf(out, "%s%s stopped: %s\n", who(ev), t.Call.Name, t.Interrupt.Message)
			}
		}
	}
	if open {
		fmt.Fprintln(out)
	}
	return s.Response(), nil
}

func run(ctx context.Context, assistantModel, bookerModel chat.Model, agency *Agency, out io.Writer) error {
	c, err := clients(assistantModel, bookerModel, agency)
	if err != nil {
		return err
	}
	resp, err := stream(ctx, c.Prompt("Book me the cheapest flight from Zurich to Paris on Friday."), out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "turn: %s\n", resp.Outcome)
	var decisions []client.Decision
	for _, p := range resp.Pending.Pending() {
		fmt.Fprintf(out, "approve %s %s of %s\n", p.Call.Name, p.Call.Arguments, p.Agent)
		decisions = append(decisions, p.Approve())
	}
	resp, err = stream(ctx, c.Resume(resp.Pending, decisions...), out)
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "turn: %s\n", resp.Outcome)
	return nil
}

func scriptedModels() (assistant, booker *chattest.Model) {
	assistant = chattest.New(
		chattest.Calls(chattest.Call("booker", `{"input":"Cheapest flight Zurich to Paris on Friday"}`)).WithText("Let me book that."),
		chattest.Text("You are booked on AF 1115 on Friday (confirmation K7Q2)."),
	)
	booker = chattest.New(
		chattest.Calls(chattest.Call("search_flights", `{"from":"ZRH","to":"CDG"}`)),
		chattest.Calls(chattest.Call("book_flight", `{"number":"AF 1115"}`)).WithText("AF 1115 is cheapest."),
		chattest.Text("Booked AF 1115, confirmation K7Q2."),
	)
	return assistant, booker
}

func main() {
	assistant, booker := scriptedModels()
	if err := run(context.Background(), assistant, booker, &Agency{}, os.Stdout); err != nil {
		log.Fatal(err)
	}
}
