package openai

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/clienttest"
	"github.com/wield-ai/wield/internal/providertest"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// weatherFunc is the recordings' weather tool as a real typed Go function. It keeps the
// recorded schema, so the requests can be compared with the recorded ones byte for byte (as JSON).
func weatherFunc(t testing.TB, calls *int) tool.Tool {
	type in struct {
		Location string `json:"location"`
	}
	schema := json.RawMessage(`{"properties":{"location":{"description":"the city","type":"string"}},"required":["location"],"type":"object"}`)
	return tool.Must(tool.Func("weather", "Get weather information for a location",
		func(_ context.Context, args in) (string, error) {
			*calls++
			if !strings.HasPrefix(args.Location, "Florence") {
				return "", fmt.Errorf("no weather for %q", args.Location)
			}
			return "40 C", nil
		}, tool.WithInputSchema(schema)))
}

// loopCase is a recorded two-exchange tool loop of one API.
type loopCase struct {
	api, name string
	stream    bool
	cfg       Config
	newM      func(t testing.TB, url string, cfg Config) chat.Model
	final     string
	norms     []normalizer
}

var recordedLoops = []loopCase{
	{api: "chat", name: "fantasy-tool-loop-gpt-4o", cfg: Config{Model: "gpt-4o", MaxTokens: 4000},
		newM: apis[0].newM, final: "The weather in Florence, Italy is currently 40°C.", norms: []normalizer{dropFalseStrict}},
	{api: "chat", name: "fantasy-tool-loop-streaming-gpt-4o", stream: true, cfg: Config{Model: "gpt-4o", MaxTokens: 4000},
		newM: apis[0].newM, final: "The current temperature in Florence, Italy is 40°C.", norms: []normalizer{dropFalseStrict}},
	{api: "responses", name: "fantasy-tool-loop-gpt-4o", cfg: fantasyResponsesConfig("gpt-4o"),
		newM: apis[1].newM, final: "The current temperature in Florence, Italy is 40°C.", norms: []normalizer{joinTextParts("input")}},
	{api: "responses", name: "fantasy-tool-loop-streaming-gpt-4o", stream: true, cfg: fantasyResponsesConfig("gpt-4o"),
		newM: apis[1].newM, final: "The current temperature in Florence, Italy is 40°C.", norms: []normalizer{joinTextParts("input")}},
	{api: "responses", name: "fantasy-tool-loop-streaming-gpt-5", stream: true, cfg: fantasyResponsesConfig("gpt-5"),
		newM:  apis[1].newM,
		final: "Florence, Italy is currently about 40°C (104°F). It’s very hot—stay hydrated and avoid peak afternoon sun. Want a forecast for the next few days?",
		norms: []normalizer{joinTextParts("input"), developerAsSystem}},
}

func (lc loopCase) label() string {
	return lc.api + "/" + lc.name
}

// TestManagerLoop drives each recorded tool loop by hand with toolcall.Manager and a real Go
// tool: the model's call is executed, the history the manager returns is sent back, and the
// recorded final answer comes back; both requests match the recorded ones.
func TestManagerLoop(t *testing.T) {
	for _, lc := range recordedLoops {
		lc.run(t, func(t *testing.T, m chat.Model, weather tool.Tool) string {
			mgr := toolcall.New(toolcall.Config{})
			p := &chat.Prompt{
				Messages: []chat.Message{chat.System("You are a helpful assistant"), chat.User("What's the weather in Florence,Italy?")},
				Options:  &chat.Options{Tools: []tool.Tool{weather}, ToolChoice: "auto"},
			}
			for turn := 0; ; turn++ {
				if turn == 2 {
					t.Fatal("the loop did not end with the recorded exchanges")
				}
				resp, err := providertest.Run(context.Background(), m, p, lc.stream)
				if err != nil {
					t.Fatal(err)
				}
				if !resp.HasToolCalls() {
					return resp.Text()
				}
				res, err := mgr.Execute(context.Background(), p, resp)
				if err != nil {
					t.Fatal(err)
				}
				p = &chat.Prompt{Messages: res.History, Options: p.Options}
			}
		})
	}
}

// run runs loop, one way to hold the recorded conversation, against lc's recordings with the
// recordings' weather tool: loop returns the final answer, which must be the recorded one after
// one run of the tool, and every request must match its recorded one.
func (lc loopCase) run(t *testing.T, loop func(t *testing.T, m chat.Model, weather tool.Tool) string) {
	t.Run(lc.label(), func(t *testing.T) {
		exs := providertest.Load(t, lc.api, lc.name)
		srv := replay.NewServer(t, exs...)
		calls := 0
		answer := loop(t, lc.newM(t, srv.URL+"/v1", lc.cfg), weatherFunc(t, &calls))
		if answer != lc.final || calls != 1 {
			t.Fatalf("final answer %q after %d tool calls", answer, calls)
		}
		reqs := srv.Requests()
		if len(reqs) != len(exs) {
			t.Fatalf("%d requests, want %d", len(reqs), len(exs))
		}
		for i, req := range reqs {
			assertSameRequest(t, req.Body, exs[i].RequestBody, lc.norms...)
		}
	})
}

// TestClientLoop runs each recorded tool loop through client.Client, whose tool-calling advisor
// drives the loop: the caller gets the recorded final answer, the tool ran once, and the
// requests match the recorded ones.
func TestClientLoop(t *testing.T) {
	for _, lc := range recordedLoops {
		lc.run(t, func(t *testing.T, m chat.Model, weather tool.Tool) string {
			c := clienttest.New(t, m, client.WithOptions(&chat.Options{ToolChoice: "auto"}))
			spec := c.Prompt("What's the weather in Florence,Italy?").System("You are a helpful assistant").Tools(weather)
			r, streamed := providertest.Send(t, spec, lc.stream)
			answer := r.Text()
			if lc.stream {
				if answer != lc.final {
					t.Fatalf("stream response %+v", r)
				}
				answer = streamed
			} else if r.ModelCalls != 2 {
				t.Errorf("%d model calls, want 2", r.ModelCalls)
			}
			if r.Usage.TotalTokens == 0 {
				t.Errorf("usage not summed: %+v", r.Usage)
			}
			return answer
		})
	}
}

// TestClientReasoningLoop runs the recorded four-response reasoning tool loop through
// client.Client: the client's history keeps the reasoning item and the call's item id, so the
// second request sends them back, and the recorded final answer arrives after three tool calls.
func TestClientReasoningLoop(t *testing.T) {
	exs := providertest.Load(t, "responses", "vercel-reasoning-tool-loop-stream-gpt-5.1-codex-max")
	srv := replay.NewServer(t, exs...)
	m := newTestModel(t, NewResponses, srv.URL+"/v1", Config{Model: "gpt-5.1-codex-max", Store: ptr(false)})
	resp, answer := providertest.Send(t, clienttest.New(t, m).Prompt("Compute (12 + 7) * 3 * 10 with the calculator, one step per call.").Tools(calculatorTool()), true)
	if answer != "The final result is **570**." || resp.ModelCalls != 4 {
		t.Fatalf("answer %q after %d model calls", answer, resp.ModelCalls)
	}
	var second struct {
		Input []map[string]any `json:"input"`
	}
	if err := json.Unmarshal(srv.Requests()[1].Body, &second); err != nil {
		t.Fatal(err)
	}
	rec := recordedReasoning(t, exs[0].Body)[0]
	if len(second.Input) != 4 || second.Input[1]["type"] != "reasoning" || second.Input[1]["encrypted_content"] != rec["encrypted_content"] ||
		second.Input[2]["id"] != "fc_01830d662ab3856501693c32151234819091cfca267e98cc5f" || second.Input[3]["output"] != "19" {
		gj, _ := json.MarshalIndent(second.Input, "", "  ")
		t.Fatalf("second request input:\n%s", gj)
	}
}
