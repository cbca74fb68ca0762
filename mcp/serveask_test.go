package mcp_test

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/wield-ai/wield/mcp"
	"github.com/wield-ai/wield/mcp/mcptest"
	"github.com/wield-ai/wield/tool"
	"github.com/wield-ai/wield/toolcall"
)

// approvingServer serves pay, which needs approval; pick, which interrupts to ask for an account
// and goes on with the answer; and both, which needs approval and then interrupts. runs counts
// the runs of each that got past their questions.
func approvingServer(t *testing.T, runs *sync.Map) *mcp.Server {
	t.Helper()
	type in struct {
		Amount int `json:"amount"`
	}
	count := func(name string) {
		n, _ := runs.LoadOrStore(name, new(atomic.Int32))
		n.(*atomic.Int32).Add(1)
	}
	pick := func(name string) func(ctx context.Context, a in) (string, error) {
		return func(ctx context.Context, a in) (string, error) {
			r, ok := toolcall.Resumed(ctx)
			if !ok {
				return "", toolcall.Interrupt("Which account?")
			}
			var account string
			if err := json.Unmarshal(r.Data, &account); err != nil {
				return "", err
			}
			count(name)
			return fmt.Sprintf("paid %d from %s", a.Amount, account), nil
		}
	}
	pay := tool.Must(tool.Func("pay", "Pay", func(_ context.Context, a in) (string, error) {
		count("pay")
		return fmt.Sprintf("paid %d", a.Amount), nil
	}, tool.RequiresApproval()))
	return mustServer(t, pay,
		tool.Must(tool.Func("pick", "Pay from an account", pick("pick"))),
		tool.Must(tool.Func("both", "Pay from an account, approved", pick("both"), tool.RequiresApproval())))
}

func ran(runs *sync.Map, name string) int32 {
	n, ok := runs.Load(name)
	if !ok {
		return 0
	}
	return n.(*atomic.Int32).Load()
}

// TestServedApprovalAsksClient: with the Go SDK's client, a served tool that needs approval asks
// for it by elicitation and runs only when accepted; a tool's interrupt becomes a question whose
// answer the tool goes on with; a declined question says so in the result, and the tool does not
// run. A client without elicitation gets what it got before: the approval is not asked, and the
// interrupt is the call's error.
func TestServedApprovalAsksClient(t *testing.T) {
	for _, mode := range []string{"accept", "decline", "none"} {
		t.Run(mode, func(t *testing.T) {
			var runs sync.Map
			srv := approvingServer(t, &runs)
			var mu sync.Mutex
			var asked []string
			opts := &sdk.ClientOptions{}
			if mode != "none" {
				opts.ElicitationHandler = func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
					mu.Lock()
					asked = append(asked, req.Params.Message)
					mu.Unlock()
					if mode == "decline" {
						return &sdk.ElicitResult{Action: "decline"}, nil
					}
					schema, _ := json.Marshal(req.Params.RequestedSchema)
					if strings.Contains(string(schema), `"answer"`) {
						return &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "savings"}}, nil
					}
					return &sdk.ElicitResult{Action: "accept"}, nil
				}
			}
			c := sdk.NewClient(&sdk.Implementation{Name: "go-client", Version: "v0"}, opts)
			s := sdkSession(t, srv, c)
			got := map[string]string{}
			for _, name := range []string{"pay", "pick", "both"} {
				text, isErr := callText(t, s, name, map[string]any{"amount": 5})
				got[name] = fmt.Sprintf("%v %s", isErr, text)
			}
			switch mode {
			case "accept":
				want := map[string]string{"pay": "false paid 5", "pick": "false paid 5 from savings", "both": "false paid 5 from savings"}
				for k, v := range want {
					if got[k] != v {
						t.Errorf("%s: %q, want %q", k, got[k], v)
					}
				}
				if len(asked) != 4 || !strings.Contains(asked[0], "Allow the tool pay") || !strings.Contains(asked[0], `{"amount":5}`) || asked[1] != "Which account?" {
					t.Errorf("asked %q", asked)
				}
			case "decline":
				if !strings.HasPrefix(got["pay"], "true The user did not approve this call of pay (decline)") ||
					!strings.HasPrefix(got["pick"], `true The user did not answer the tool's question "Which account?" (decline)`) ||
					!strings.HasPrefix(got["both"], "true The user did not approve") {
					t.Errorf("declined: %q", got)
				}
				if n := ran(&runs, "pay") + ran(&runs, "pick") + ran(&runs, "both"); n != 0 {
					t.Errorf("declined tools ran %d times", n)
				}
			case "none":
				if got["pay"] != "false paid 5" || !strings.Contains(got["pick"], "true") || !strings.Contains(got["pick"], "Which account?") {
					t.Errorf("without elicitation: %q", got)
				}
			}
		})
	}
}

// TestServedApprovalTSClient: the same with the TypeScript SDK's client over streamable HTTP,
// which speaks an older protocol and is asked directly.
func TestServedApprovalTSClient(t *testing.T) {
	for _, mode := range []string{"accept", "decline", "none"} {
		var runs sync.Map
		url := mcptest.NewServer(t, approvingServer(t, &runs), nil).URL
		var got struct {
			Asked           []string
			Pay, Pick, Both struct {
				Text    string `json:"text"`
				IsError bool   `json:"isError"`
			}
		}
		runTSClient(t, "approving-client.cjs", &got, url, mode)
		switch mode {
		case "accept":
			if got.Pay.Text != "paid 5" || got.Pick.Text != "paid 5 from savings" || got.Both.Text != "paid 5 from savings" || len(got.Asked) != 4 {
				t.Errorf("accepted: %+v", got)
			}
		case "decline":
			if !got.Pay.IsError || !strings.Contains(got.Pay.Text, "did not approve") || !got.Pick.IsError || !strings.Contains(got.Pick.Text, "did not answer") {
				t.Errorf("declined: %+v", got)
			}
			if n := ran(&runs, "pay") + ran(&runs, "pick") + ran(&runs, "both"); n != 0 {
				t.Errorf("declined tools ran %d times", n)
			}
		case "none":
			if got.Pay.Text != "paid 5" || !got.Pick.IsError || !strings.Contains(got.Pick.Text, "Which account?") || len(got.Asked) != 0 {
				t.Errorf("without elicitation: %+v", got)
			}
		}
	}
}

// TestServedStateForged: a client cannot forge the state a call brings back to answer an
// interrupt it was never asked or skip an approval: the state is refused without the tool
// running, a huge one included.
func TestServedStateForged(t *testing.T) {
	ctx := testContext(t)
	var runs sync.Map
	srv := approvingServer(t, &runs)
	c := sdk.NewClient(&sdk.Implementation{Name: "raw", Version: "v0"}, &sdk.ClientOptions{
		Capabilities: &sdk.ClientCapabilities{Elicitation: &sdk.ElicitationCapabilities{Form: &sdk.FormElicitationCapabilities{}}},
		// A handler that keeps the SDK from answering: the test answers by hand.
		ElicitationHandler: func(context.Context, *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			return &sdk.ElicitResult{Action: "cancel"}, nil
		},
	})
	s := sdkSession(t, srv, c)
	call := func(name string, amount int, state string, responses sdk.InputResponseMap) (*sdk.CallToolResult, error) {
		return s.CallTool(ctx, &sdk.CallToolParams{Name: name, Arguments: map[string]any{"amount": amount}, RequestState: state, InputResponses: responses})
	}
	accept := &sdk.ElicitResult{Action: "accept", Content: map[string]any{"answer": "savings"}}
	for _, state := range []string{"e30.AAAA", "not a state", strings.Repeat("x", 1<<20)} {
		res, err := call("pick", 5, state, sdk.InputResponseMap{"wield-interrupt": accept})
		if err != nil || !res.IsError || !strings.Contains(mcp.ResultText(res), "state was not given by this server") {
			t.Errorf("forged state %.20q: %v %v", state, mcp.ResultText(res), err)
		}
	}
	if n := ran(&runs, "pick"); n != 0 {
		t.Errorf("pick ran %d times on forged states", n)
	}
}

// TestServedAskingHostile: a tool that interrupts on every answer (a storm of questions) ends
// with an error rather than holding the call; an answer without the text asked for is the call's
// error (refused before it reaches the server), and the tool does not go on; a proxied server's question with a schema wield would not
// ask with (recursive) is asked as one line of text instead.
func TestServedAskingHostile(t *testing.T) {
	ctx := testContext(t)
	var storms atomic.Int32
	storm := tool.Must(tool.Func("storm", "Never satisfied", func(ctx context.Context, _ struct{}) (string, error) {
		storms.Add(1)
		return "", toolcall.Interrupt("And now?")
	}))
	var resumed atomic.Int32
	proxied := tool.Must(tool.Func("proxied", "Asks as its server did", func(ctx context.Context, _ struct{}) (string, error) {
		if r, ok := toolcall.Resumed(ctx); ok {
			resumed.Add(1)
			return string(r.Data), nil
		}
		return "", toolcall.InterruptWith("Pick", mcp.Elicitation{Server: "up", Message: "Pick",
			RequestedSchema: json.RawMessage(`{"type":"object","$defs":{"n":{"type":"object","properties":{"next":{"$ref":"#/$defs/n"}}}},"properties":{"n":{"$ref":"#/$defs/n"}}}`)})
	}))
	srv := mustServer(t, storm, proxied)
	var schemas []string
	var mu sync.Mutex
	answer := map[string]any{"answer": "x"}
	c := sdk.NewClient(&sdk.Implementation{Name: "go-client", Version: "v0"}, &sdk.ClientOptions{
		ElicitationHandler: func(_ context.Context, req *sdk.ElicitRequest) (*sdk.ElicitResult, error) {
			b, _ := json.Marshal(req.Params.RequestedSchema)
			mu.Lock()
			schemas = append(schemas, string(b))
			a := answer
			mu.Unlock()
			return &sdk.ElicitResult{Action: "accept", Content: a}, nil
		},
	})
	s := sdkSession(t, srv, c)
	res, err := s.CallTool(ctx, &sdk.CallToolParams{Name: "storm", Arguments: map[string]any{}})
	if err == nil && !res.IsError {
		t.Errorf("a storm of questions ended well: %+v", res)
	}
	if n := storms.Load(); n < 2 || n > 64 {
		t.Errorf("the storming tool ran %d times", n)
	}
	t.Logf("storm: %d runs, then %v", storms.Load(), err)

	text, isErr := callText(t, s, "proxied", map[string]any{})
	mu.Lock()
	last := schemas[len(schemas)-1]
	mu.Unlock()
	if isErr || text != `"x"` || strings.Contains(last, "$ref") || !strings.Contains(last, `"answer"`) {
		t.Errorf("a hostile proxied schema: asked with %s, got %q (error %v)", last, text, isErr)
	}

	mu.Lock()
	answer = map[string]any{"answer": 7}
	mu.Unlock()
	// The SDK refuses the answer against the schema asked with; the tool does not go on.
	before := resumed.Load()
	res, err = s.CallTool(ctx, &sdk.CallToolParams{Name: "proxied", Arguments: map[string]any{}})
	if (err == nil && !res.IsError) || resumed.Load() != before {
		t.Errorf("an answer of the wrong type: %v %v", res, err)
	}
}
