//go:build rss_ollama

package main

import (
	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider"
	"github.com/wield-ai/wield/provider/ollama"
)

func init() {
	providers["ollama"] = api{
		model: func(url string) (chat.Model, error) {
			return ollama.New(ollama.Config{BaseURL: url, Model: "m", Transport: provider.Transport{MaxRetries: -1}})
		},
		text:       `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"ok"},"done":true,"done_reason":"stop"}`,
		toolAnswer: `{"model":"m","created_at":"2026-01-01T00:00:00Z","message":{"role":"assistant","content":"","tool_calls":[{"function":{"name":"big","arguments":{}}}]},"done":true,"done_reason":"stop"}`,
	}
}
