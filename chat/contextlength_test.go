package chat_test

import (
	"errors"
	"fmt"
	"testing"

	"github.com/wield-ai/wield/chat"
)

// The providers' documented context-length refusals, as their error mappings fill ProviderError.
func TestErrContextLength(t *testing.T) {
	for _, tc := range []struct {
		name           string
		err            *chat.ProviderError
		requested, lim int
	}{
		{"openai", &chat.ProviderError{Provider: "openai", StatusCode: 400, Type: "invalid_request_error", Code: "context_length_exceeded",
			Message: "This model's maximum context length is 128000 tokens. However, your messages resulted in 130514 tokens. Please reduce the length of the messages."}, 130514, 128000},
		{"openai responses", &chat.ProviderError{Provider: "openai", StatusCode: 400, Code: "context_length_exceeded",
			Message: "Your input exceeds the context window of this model. Please adjust your input and try again."}, 0, 0},
		{"anthropic", &chat.ProviderError{Provider: "anthropic", StatusCode: 400, Type: "invalid_request_error",
			Message: "prompt is too long: 215341 tokens > 200000 maximum"}, 215341, 200000},
		{"anthropic 413", &chat.ProviderError{Provider: "anthropic", StatusCode: 413, Type: "request_too_large",
			Message: "Request exceeds the maximum allowed number of bytes."}, 0, 0},
		{"gemini", &chat.ProviderError{Provider: "gemini", StatusCode: 400,
			Message: "The input token count (1234567) exceeds the maximum number of tokens allowed (1048576)."}, 1234567, 1048576},
		{"bedrock", &chat.ProviderError{Provider: "aws.bedrock", StatusCode: 400, Type: "ValidationException",
			Message: "Input is too long for requested model."}, 0, 0},
		{"bedrock claude", &chat.ProviderError{Provider: "aws.bedrock", Type: "ValidationException",
			Message: "input length and `max_tokens` exceed context limit: 198000 + 8192 > 200000, decrease input length or `max_tokens` and try again"}, 206192, 200000},
		{"ollama", &chat.ProviderError{Provider: "ollama", StatusCode: 400,
			Message: "the input length exceeds the context length"}, 0, 0},
	} {
		wrapped := fmt.Errorf("turn: %w", tc.err)
		if !errors.Is(wrapped, chat.ErrContextLength) {
			t.Errorf("%s: not recognised", tc.name)
		}
		req, lim, ok := chat.ContextOverflow(wrapped)
		if tc.requested != 0 && (!ok || req != tc.requested || lim != tc.lim) {
			t.Errorf("%s: overflow %d > %d (%v), want %d > %d", tc.name, req, lim, ok, tc.requested, tc.lim)
		}
	}
	for _, pe := range []*chat.ProviderError{
		{Provider: "openai", StatusCode: 429, Message: "Rate limit reached: maximum context length of your quota"},
		{Provider: "anthropic", StatusCode: 400, Type: "invalid_request_error", Message: "messages: roles must alternate"},
		{Provider: "gemini", StatusCode: 503, Message: "overloaded"},
	} {
		if errors.Is(pe, chat.ErrContextLength) {
			t.Errorf("%s %d %q recognised as context length", pe.Provider, pe.StatusCode, pe.Message)
		}
	}
	if errors.Is(errors.New("prompt is too long"), chat.ErrContextLength) {
		t.Error("a plain error recognised")
	}
	if _, _, ok := chat.ContextOverflow(errors.New("x")); ok {
		t.Error("overflow of a plain error")
	}
}
