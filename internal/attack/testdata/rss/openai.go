//go:build rss_openai

package main

import (
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/openai"
)

func init() {
	providers["openai"] = api{
		model: func(url string) (chat.Model, error) {
			return openai.New(openai.Config{BaseURL: url, APIKey: "k", Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		text:       `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":"ok"},"finish_reason":"stop"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
		toolAnswer: `{"id":"c1","object":"chat.completion","created":1,"model":"m","choices":[{"index":0,"message":{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"big","arguments":"{}"}}]},"finish_reason":"tool_calls"}],"usage":{"prompt_tokens":1,"completion_tokens":1,"total_tokens":2}}`,
	}
	providers["openai-responses"] = api{
		model: func(url string) (chat.Model, error) {
			return openai.NewResponses(openai.Config{BaseURL: url, APIKey: "k", Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		text:       `{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[{"type":"message","id":"msg_1","role":"assistant","status":"completed","content":[{"type":"output_text","text":"ok","annotations":[]}]}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
		toolAnswer: `{"id":"resp_1","object":"response","created_at":1,"model":"m","status":"completed","output":[{"type":"function_call","id":"fc_1","call_id":"call_1","name":"big","arguments":"{}","status":"completed"}],"usage":{"input_tokens":1,"output_tokens":1,"total_tokens":2}}`,
	}
}
