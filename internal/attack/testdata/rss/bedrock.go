//go:build rss_bedrock

package main

import (
	"context"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/provider/bedrock"
)

func init() {
	providers["bedrock"] = api{
		model: func(url string) (chat.Model, error) {
			awsCfg := aws.Config{Region: "us-east-1", Credentials: credentials.NewStaticCredentialsProvider("AKIDTEST", "secret", "")}
			return bedrock.New(context.Background(), bedrock.Config{BaseURL: url, Model: "m", AWS: &awsCfg, MaxAttempts: 1})
		},
		text:       `{"output":{"message":{"role":"assistant","content":[{"text":"ok"}]}},"stopReason":"end_turn","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2},"metrics":{"latencyMs":1}}`,
		toolAnswer: `{"output":{"message":{"role":"assistant","content":[{"toolUse":{"toolUseId":"tu_1","name":"big","input":{}}}]}},"stopReason":"tool_use","usage":{"inputTokens":1,"outputTokens":1,"totalTokens":2},"metrics":{"latencyMs":1}}`,
	}
}
