package argstream

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/client"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/provider/anthropic"
	"github.com/wield-ai/wield/provider/bedrock"
	"github.com/wield-ai/wield/provider/gemini"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/provider/openai"
	"github.com/wield-ai/wield/tool"
)

// recorded is a provider's recorded streamed answer with tool calls.
type recorded struct {
	name string
	dir  string // under the repository's root
	// model returns the provider's model talking to url.
	model func(t *testing.T, url string) chat.Model
}

func recordings() []recorded {
	none := 0
	return []recorded{
		{"openai", "provider/openai/testdata/chat/lcgo-tool-call-streaming-gpt-4.1", func(t *testing.T, url string) chat.Model {
			return must(t)(openai.New(openai.Config{BaseURL: url, APIKey: "k", Model: "gpt-4.1", MaxRetries: &none}))
		}},
		{"mistral", "provider/openai/testdata/mistral/vercel-tool-call-stream-mistral-small-latest", func(t *testing.T, url string) chat.Model {
			return must(t)(openai.New(openai.Config{BaseURL: url, APIKey: "k", Model: "mistral-small-latest", MaxRetries: &none}))
		}},
		{"anthropic", "provider/anthropic/testdata/sdk-tool-runner-next-streaming", func(t *testing.T, url string) chat.Model {
			return must(t)(anthropic.New(anthropic.Config{BaseURL: url, APIKey: "k", Model: "claude-sonnet-4-5", MaxRetries: &none}))
		}},
		{"gemini", "provider/gemini/testdata/vercel-tool-call-stream-gemini-3-pro-preview", func(t *testing.T, url string) chat.Model {
			return must(t)(gemini.New(context.Background(), gemini.Config{BaseURL: url, APIKey: "k", Model: "gemini-3-pro-preview", MaxRetries: -1}))
		}},
		{"ollama", "provider/ollama/testdata/docs-tool-call-stream-llama3.2", func(t *testing.T, url string) chat.Model {
			return must(t)(ollama.New(ollama.Config{BaseURL: url, Model: "llama3.2", MaxRetries: -1}))
		}},
		{"bedrock", "provider/bedrock/testdata/converse/openllmetry-converse-stream-tool-use-claude-3-sonnet", func(t *testing.T, url string) chat.Model {
			return must(t)(bedrock.New(context.Background(), bedrock.Config{Model: "anthropic.claude-3-sonnet-20240229-v1:0", Region: "us-east-1", BaseURL: url,
				MaxAttempts: 1, AWS: &aws.Config{Credentials: credentials.NewStaticCredentialsProvider("AKIDEXAMPLE", "secret", "")}}))
		}},
	}
}

func must(t *testing.T) func(m chat.Model, err error) chat.Model {
	return func(m chat.Model, err error) chat.Model {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
		return m
	}
}

// TestRecordedArgumentsReachTheStream: for each provider, the tool calls of a recorded streamed
// answer reach a client stream's consumer as ToolArguments fragments that join, in order, to
// each call's arguments, with its id and name, before the turn stops to ask for approval.
func TestRecordedArgumentsReachTheStream(t *testing.T) {
	root, err := filepath.Abs("../..")
	if err != nil {
		t.Fatal(err)
	}
	for _, rec := range recordings() {
		t.Run(rec.name, func(t *testing.T) {
			exs, err := replay.Load(filepath.Join(root, rec.dir))
			if err != nil || len(exs) == 0 {
				t.Fatalf("loading %s: %d exchanges, %v", rec.dir, len(exs), err)
			}
			prompt := &chat.Prompt{Messages: []chat.Message{chat.User("go")}}
			// The calls the provider reads from the recording, streamed as a model alone.
			want, err := chat.Aggregate(rec.model(t, replay.NewServer(t, exs[0]).URL).Stream(context.Background(), prompt))
			if err != nil {
				t.Fatal(err)
			}
			calls := want.ToolCalls()
			if len(calls) == 0 {
				t.Fatal("the recording has no tool call")
			}
			var tools []any
			seen := map[string]bool{}
			for _, c := range calls {
				if !seen[c.Name] {
					seen[c.Name] = true
					tools = append(tools, tool.Must(tool.New(tool.Definition{Name: c.Name, Description: "a recorded tool",
						InputSchema: []byte(`{"type":"object"}`)}, func(context.Context, map[string]any) (any, error) { return "", nil }, tool.RequiresApproval())))
				}
			}
			c, err := client.New(rec.model(t, replay.NewServer(t, exs[0]).URL))
			if err != nil {
				t.Fatal(err)
			}
			joined := map[int]*strings.Builder{}
			ids := map[int]string{}
			var approvals []chat.ToolCall
			for ev, err := range c.Prompt("go").Tools(tools...).Stream(context.Background()).Events() {
				if err != nil {
					t.Fatal(err)
				}
				if ev.Tool == nil {
					continue
				}
				switch ev.Tool.Kind {
				case client.ToolArguments:
					tc := ev.Tool.Call
					if len(approvals) > 0 {
						t.Fatal("a fragment after the round ended")
					}
					if joined[tc.Index] == nil {
						joined[tc.Index], ids[tc.Index] = &strings.Builder{}, tc.ID
					}
					if tc.ID != ids[tc.Index] || tc.Name == "" {
						t.Fatalf("fragment %+v: id %q before", tc, ids[tc.Index])
					}
					joined[tc.Index].WriteString(tc.Arguments)
				case client.ToolApprovalRequired:
					approvals = append(approvals, ev.Tool.Call)
				}
			}
			if len(approvals) != len(calls) {
				t.Fatalf("%d calls asked for approval, the recording has %d", len(approvals), len(calls))
			}
			for i, call := range approvals {
				b := joined[i]
				if b == nil || b.String() != call.Arguments || ids[i] != call.ID {
					got := ""
					if b != nil {
						got = b.String()
					}
					t.Errorf("call %d (%s %s): fragments joined %q under id %q, want %q", i, call.Name, call.ID, got, ids[i], call.Arguments)
				}
			}
		})
	}
}
