//go:build rss_anthropic

package main

import (
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/anthropic"
)

func init() {
	providers["anthropic"] = api{
		model: func(url string) (chat.Model, error) {
			return anthropic.New(anthropic.Config{BaseURL: url, APIKey: "k", Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		text:       `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"text","text":"ok"}],"stop_reason":"end_turn","usage":{"input_tokens":1,"output_tokens":1}}`,
		toolAnswer: `{"id":"msg_1","type":"message","role":"assistant","model":"m","content":[{"type":"tool_use","id":"tu_1","name":"big","input":{}}],"stop_reason":"tool_use","usage":{"input_tokens":1,"output_tokens":1}}`,
	}
}
