package ollama_test

import (
	"context"
	"encoding/json"
	"fmt"
	"log"
	"net/http"
	"net/http/httptest"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/ollama"
	"github.com/wield-ai/wield/tool"
)

// weatherTool is a minimal tool.Tool; wield's typed tools infer the schema for you.
type weatherTool struct{}

func (weatherTool) Definition() tool.Definition {
	return tool.Definition{
		Name:        "get_weather",
		Description: "Get the weather in a given city",
		InputSchema: json.RawMessage(`{"type":"object","properties":{"city":{"type":"string"}},"required":["city"]}`),
	}
}
func (weatherTool) Metadata() tool.Metadata { return tool.Metadata{} }
func (weatherTool) Call(context.Context, string) (string, error) {
	return "11 degrees celsius", nil
}

// fakeOllama answers like an Ollama server asked about the weather, standing in for a real one.
func fakeOllama() *httptest.Server {
	return httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/x-ndjson")
		fmt.Fprintln(w, `{"model":"llama3.2","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"get_weather","arguments":{"city":"Tokyo"}}}]},"done":false}`)
		fmt.Fprintln(w, `{"model":"llama3.2","message":{"role":"assistant","content":""},"done_reason":"stop","done":true,"prompt_eval_count":169,"eval_count":15}`)
	}))
}

func Example() {
	srv := fakeOllama() // leave BaseURL empty to use $OLLAMA_HOST or http://127.0.0.1:11434
	defer srv.Close()

	m, err := ollama.New(ollama.Config{Model: "llama3.2", BaseURL: srv.URL})
	if err != nil {
		log.Fatal(err)
	}
	prompt := &chat.Prompt{
		Messages: []chat.Message{chat.User("what is the weather in tokyo?")},
		Options: &chat.Options{
			Tools: []tool.Tool{weatherTool{}},
			Extra: map[string]any{ollama.ExtraOptions: map[string]any{"num_ctx": 8192}},
		},
	}
	resp, err := chat.Aggregate(m.Stream(context.Background(), prompt))
	if err != nil {
		log.Fatal(err)
	}
	for _, call := range resp.ToolCalls() {
		fmt.Println(call.Name, call.Arguments)
	}
	fmt.Println(resp.Generations[0].FinishReason, resp.Usage.TotalTokens)
	// Output:
	// get_weather {"city":"Tokyo"}
	// tool_calls 184
}
