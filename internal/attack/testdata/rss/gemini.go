//go:build rss_gemini

package main

import (
	"context"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/gemini"
)

func init() {
	providers["gemini"] = api{
		model: func(url string) (chat.Model, error) {
			return gemini.New(context.Background(), gemini.Config{BaseURL: url, APIKey: "k", Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		text:       `{"candidates":[{"content":{"role":"model","parts":[{"text":"ok"}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`,
		toolAnswer: `{"candidates":[{"content":{"role":"model","parts":[{"functionCall":{"name":"big","args":{}}}]},"finishReason":"STOP"}],"usageMetadata":{"promptTokenCount":1,"candidatesTokenCount":1,"totalTokenCount":2}}`,
	}
}
