// Command observer watches the tool loop from inside: an advisor ordered after the
// tool-calling advisor runs on every iteration, sees each request (with the tool results of the
// previous iterations) and each response, and, when streaming, every chunk including tool-call
// fragments. The caller still receives only the answer. The stream's events also report each
// tool call as it starts and finishes, for a user interface.
package main

import (
	"context"
	"fmt"
	"io"
	"iter"
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

// Call observes one iteration of the call path.
func (a ObservingAdvisor) Call(ctx context.Context, req *client.Request, next client.CallNext) (*client.Response, error) {
	fmt.Fprintf(a.Out, "[iteration %d] sending %d messages\n", req.Loop.Iteration, len(req.Prompt.Messages))
	for _, m := range req.Prompt.Messages {
		fmt.Fprintf(a.Out, "  %s\n", m)
	}
	resp, err := next(ctx, req)
	if err == nil {
		fmt.Fprintf(a.Out, "[iteration %d] received: %s\n", req.Loop.Iteration, resp.Chat.Result().Message)
	}
	return resp, err
}

// Stream observes one iteration of the stream path, chunk by chunk.
func (a ObservingAdvisor) Stream(ctx context.Context, req *client.Request, next client.StreamNext) iter.Seq2[*client.Event, error] {
	return func(yield func(*client.Event, error) bool) {
		chunks := 0
		for ev, err := range next(ctx, req) {
			if ev != nil && ev.Chunk != nil {
				chunks++
			}
			if ev != nil && ev.Done != nil {
				fmt.Fprintf(a.Out, "[iteration %d] %d chunks, %d tool calls\n", req.Loop.Iteration, chunks, len(ev.Done.Chat.ToolCalls()))
			}
			if !yield(ev, err) {
				return
			}
		}
	}
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
	c := client.New(model, client.WithAdvisors(ObservingAdvisor{Out: out}), client.WithTools(w))

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
