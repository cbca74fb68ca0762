// Command observer watches the tool loop from inside: an advisor ordered after the tool loop
// runs on every iteration, sees each request (with the tool results of the
// previous iterations) and each response, and, when streaming, every chunk including tool-call
// fragments. The caller still receives only the answer. The stream's events also report each
// tool call as it starts and finishes, for a user interface.
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

// ObservingAdvisor reports every iteration of the tool loop.
type ObservingAdvisor struct {
	Out io.Writer
}

// Order places the advisor inside the tool loop.
func (ObservingAdvisor) Order() int { return client.OrderToolCalling + 100 }

// Advise observes one iteration, for calls and streams alike; on a stream it also counts the
// chunks of the iteration, tool-call fragments included.
func (a ObservingAdvisor) Advise(ctx context.Context, req *client.Request, next client.Next) (*client.Response, error) {
	fmt.Fprintf(a.Out, "[iteration %d] sending %d messages\n", req.Turn.Iteration, len(req.Prompt.Messages))
	for _, m := range req.Prompt.Messages {
		fmt.Fprintf(a.Out, "  %s\n", m)
	}
	chunks := 0
	req = req.WithEvents(func(ev *client.Event, send func(*client.Event) bool) bool {
		if ev.Chunk != nil {
			chunks++
		}
		return send(ev)
	})
	resp, err := next(ctx, req)
	if err != nil {
		return nil, err
	}
	if req.Streaming() {
		fmt.Fprintf(a.Out, "[iteration %d] %d chunks, %d tool calls\n", req.Turn.Iteration, chunks, len(resp.Chat.ToolCalls()))
	} else {
		fmt.Fprintf(a.Out, "[iteration %d] received: %s\n", req.Turn.Iteration, resp.Chat.Result().Message)
	}
	return resp, nil
}

// CityRequest names a city.
type CityRequest struct {
	City string `json:"city"`
}

func weather(_ context.Context, in CityRequest) (string, error) {
	return map[string]string{"Amsterdam": "rainy", "Paris": "sunny"}[in.City], nil
}

func run(ctx context.Context, model chat.Model, out io.Writer) error {
	w, err := tool.Func("weather", "Get the weather in a city", weather)
	if err != nil {
		return err
	}
	c, err := client.New(model, client.WithAdvisors(ObservingAdvisor{Out: out}), client.WithTools(w))
	if err != nil {
		return err
	}

	answer, err := c.Prompt("What is the weather in Amsterdam and Paris?").Call(ctx).Content()
	if err != nil {
		return err
	}
	fmt.Fprintln(out, "answer:", answer)

	fmt.Fprintln(out, "streaming:")
	for ev, err := range c.Prompt("And in Paris only?").Stream(ctx).Events() {
		if err != nil {
			return err
		}
		switch {
		case ev.Tool != nil && ev.Tool.Kind == client.ToolStarted:
			fmt.Fprintf(out, "  tool %s(%s) started\n", ev.Tool.Call.Name, ev.Tool.Call.Arguments)
		case ev.Tool != nil:
			fmt.Fprintf(out, "  tool %s finished: %q, error %v\n", ev.Tool.Call.Name, ev.Tool.Result.Content, ev.Tool.Err())
		case ev.Chunk != nil:
			fmt.Fprintf(out, "  text %q\n", ev.Text())
		case ev.Done != nil:
			fmt.Fprintf(out, "  done: %s after %d model calls\n", ev.Done.Outcome, ev.Done.ModelCalls)
		}
	}
	return nil
}

func scriptedModel() *chattest.Model {
	return chattest.New(
		chattest.Calls(chattest.Call("weather", `{"city":"Amsterdam"}`), chattest.Call("weather", `{"city":"Paris"}`)),
		chattest.Text("Rainy in Amsterdam, sunny in Paris."),
		chattest.Calls(chattest.Call("weather", `{"city":"Paris"}`)).WithText("Checking."),
		chattest.Text("Sunny."),
	).WithChunkSize(10)
}

func main() {
	if err := run(context.Background(), scriptedModel(), os.Stdout); err != nil {
		log.Fatal(err)
	}
}
