package mcp_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
)

// askingServer serves two wield tools that ask their client: confirm elicits a yes or no, and
// summarize samples the client's model.
func askingServer(t *testing.T) *mcp.Server {
	t.Helper()
	type none struct{}
	confirm := tool.Must(tool.Func("confirm", "Ask the user to confirm", func(ctx context.Context, _ none) (string, error) {
		res, err := mcp.Elicit(ctx, &sdk.ElicitParams{
			Message:         "Go ahead?",
			RequestedSchema: json.RawMessage(`{"type":"object","properties":{"ok":{"type":"boolean"}},"required":["ok"]}`),
		})
		if err != nil {
			return "", err
		}
		if res.Action != "accept" {
			return res.Action, nil
		}
		return fmt.Sprintf("accept ok=%v", res.Content["ok"]), nil
	}))
	summarize := tool.Must(tool.Func("summarize", "Summarize with the client's model", func(ctx context.Context, in struct {
		Text string `json:"text"`
	}) (string, error) {
		res, err := mcp.Sample(ctx, &sdk.CreateMessageParams{
			MaxTokens: 50,
			Messages:  []*sdk.SamplingMessage{{Role: "user", Content: &sdk.TextContent{Text: "Summarize: " + in.Text}}},
		})
		if err != nil {
			return "", err
		}
		text, _ := res.Content.(*sdk.TextContent)
		if text == nil {
			return "", errors.New("the client's model answered without text")
		}
		return res.Model + ": " + text.Text, nil
	}))
	return mustServer(t, confirm, summarize)
}

func callText(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) (string, bool) {
	t.Helper()
	res, err := s.CallTool(testContext(t), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("%s: %v", name, err)
	}
	return mcp.ResultText(res), res.IsError
}

// TestServedToolAsksClient: a served tool elicits from and samples its client when the client
// takes such requests, and gets ErrUnsupported (which the client reads) when it declared neither;
// outside a served call there is no client to ask.
func TestServedToolAsksClient(t *testing.T) {
	srv := askingServer(t)
	ctx := testContext(t)
	var asked string
	willing := sdk.NewClient(&sdk.Implementation{Name: "willing", Version: "v0"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			asked = req.Params.Message
			return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"ok": true}}, nil
		},
		CreateMessageHandler: func(_ context.Context, req *sdk.CreateMessageRequest) (*sdk.CreateMessageResult, error) {
			in := req.Params.Messages[0].Content.(*sdk.TextContent).Text
			return &sdk.CreateMessageResult{Model: "fake", Role: "assistant", Content: &sdk.TextContent{Text: strings.ToUpper(in)}}, nil
		},
	})
	s := sdkSession(t, srv, willing)
	if got, isErr := callText(t, s, "confirm", nil); isErr || got != "accept ok=true" || asked != "Go ahead?" {
		t.Errorf("confirm: %q (error %v), the client was asked %q", got, isErr, asked)
	}
	if got, isErr := callText(t, s, "summarize", map[string]any{"text": "abc"}); isErr || got != "fake: SUMMARIZE: ABC" {
		t.Errorf("summarize: %q (error %v)", got, isErr)
	}

	// A client that takes neither: through wield's own client, over HTTP.
	c := mcptest.Connect(t, mcptest.OverHTTP(t, "asking", srv))
	tools, err := c.Tools(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, tl := range tools {
		args := `{}`
		if tl.Definition().Name == "summarize" {
			args = `{"text":"abc"}`
		}
		_, err := tl.Call(ctx, args)
		var te *mcp.ToolError
		if !errors.As(err, &te) || !strings.Contains(err.Error(), "the client does not take") {
			t.Errorf("%s from a client that takes no requests: %v", tl.Definition().Name, err)
		}
	}

	if _, err := mcp.Elicit(ctx, &sdk.ElicitParams{Message: "?"}); !errors.Is(err, mcp.ErrNoClient) {
		t.Errorf("Elicit outside a served call: %v", err)
	}
	if _, err := mcp.Sample(ctx, &sdk.CreateMessageParams{}); !errors.Is(err, mcp.ErrNoClient) {
		t.Errorf("Sample outside a served call: %v", err)
	}
}

// TestServedToolAsksTSClient: the TypeScript SDK's client, with elicitation and sampling
// handlers, answers a served tool's questions over streamable HTTP; without them it reads the
// tool's error saying so.
func TestServedToolAsksTSClient(t *testing.T) {
	srv := askingServer(t)
	url := mcptest.NewServer(t, srv, nil).URL
	for _, mode := range []string{"willing", "unwilling"} {
		var got map[string]struct {
			Text    string `json:"text"`
			IsError bool   `json:"isError"`
		}
		runTSClient(t, "asking-client.cjs", &got, url, mode)
		switch mode {
		case "willing":
			if c := got["confirm"]; c.IsError || c.Text != "accept ok=true" {
				t.Errorf("confirm: %+v", c)
			}
			if s := got["summarize"]; s.IsError || s.Text != "ts-model: summarize: abc" {
				t.Errorf("summarize: %+v", s)
			}
		default:
			for name, r := range got {
				if !r.IsError || !strings.Contains(r.Text, "the client does not take") {
					t.Errorf("%s from a client without handlers: %+v", name, r)
				}
			}
		}
	}
}
