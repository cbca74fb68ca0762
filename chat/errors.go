package chat

import (
	"errors"
	"fmt"
	"net/http"
	"strings"
)

// ProviderError is an error answer from a model provider's API (HTTP 4xx or 5xx), the same type
// for every provider so callers can branch on the status:
//
//	var pe *chat.ProviderError
//	if errors.As(err, &pe) && pe.StatusCode == http.StatusTooManyRequests { … }
type ProviderError struct {
	// Provider names the provider ("openai", "anthropic", "gemini", "ollama").
	Provider string
	// StatusCode is the HTTP status.
	StatusCode int
	// Type and Code are the provider's error classification, when it sends one.
	Type, Code string
	// Message is the provider's explanation.
	Message string
	// Err is the underlying SDK error, when there is one.
	Err error
}

func (e *ProviderError) Error() string {
	msg := e.Message
	if msg == "" {
		msg = http.StatusText(e.StatusCode)
	}
	if e.Type != "" {
		msg = e.Type + ": " + msg
	}
	return fmt.Sprintf("%s: HTTP %d: %s", e.Provider, e.StatusCode, msg)
}

func (e *ProviderError) Unwrap() error { return e.Err }

// Temporary reports whether retrying the same request later may succeed (rate limits, overload,
// server errors).
func (e *ProviderError) Temporary() bool {
	return e.StatusCode == http.StatusTooManyRequests || e.StatusCode == http.StatusRequestTimeout ||
		e.StatusCode == http.StatusConflict || e.StatusCode >= 500
}

// ErrContextLength is matched by errors.Is when a provider refused a request for being longer
// than the model's context window (or than the API accepts), whatever the provider: OpenAI's
// context_length_exceeded, Anthropic's "prompt is too long", Gemini's "input token count …
// exceeds the maximum", Bedrock's "Input is too long", Ollama's context-length refusal, and an
// HTTP 413. Shortening the conversation, not retrying it as it is, is the remedy.
var ErrContextLength = errors.New("chat: request exceeds the model's context window")

// Is makes errors.Is(err, [ErrContextLength]) recognise every provider's context-length refusal.
func (e *ProviderError) Is(target error) bool {
	return target == ErrContextLength && e.contextLength()
}

// contextPhrases are the phrases of the providers' documented context-length errors, lower case.
var contextPhrases = []string{
	"context_length_exceeded",              // OpenAI, Azure OpenAI, OpenAI-compatible servers (code)
	"maximum context length",               // OpenAI: "This model's maximum context length is …"
	"prompt is too long",                   // Anthropic, and Claude on Bedrock and Vertex AI
	"exceeds the maximum number of tokens", // Gemini: "The input token count (…) exceeds the maximum number of tokens allowed (…)"
	"input is too long",                    // Bedrock: "Input is too long for requested model."
	"too many input tokens",                // Bedrock
	"exceed context limit",                 // Bedrock (Claude): "input length and `max_tokens` exceed context limit"
	"exceeds the context length",           // Ollama
	"input length exceeds",                 // Ollama: "the input length exceeds the context length"
	"context window",                       // "… exceeds the context window" (Responses, others)
	"request_too_large",                    // Anthropic's 413 type
}

func (e *ProviderError) contextLength() bool {
	if e.StatusCode == http.StatusRequestEntityTooLarge {
		return true
	}
	if e.StatusCode != 0 && e.StatusCode != http.StatusBadRequest && e.StatusCode != http.StatusUnprocessableEntity &&
		e.StatusCode != http.StatusInternalServerError {
		return false
	}
	for _, s := range [...]string{e.Code, e.Type, e.Message} {
		if s == "" {
			continue
		}
		l := strings.ToLower(s)
		for _, p := range contextPhrases {
			if strings.Contains(l, p) {
				return true
			}
		}
	}
	return false
}

// ContextOverflow returns, for a context-length refusal ([ErrContextLength]) whose message says
// so, the tokens the request held and the model's limit: the providers name both ("prompt is too
// long: 215000 tokens > 200000 maximum", "maximum context length is 128000 tokens. However, your
// messages resulted in 130000 tokens"). ok is false when err is no such refusal or gives no
// numbers.
func ContextOverflow(err error) (requested, limit int, ok bool) {
	var pe *ProviderError
	if !errors.As(err, &pe) || !pe.contextLength() {
		return 0, 0, false
	}
	var nums [3]int
	plus := false // "198000 + 8192 > 200000": input and output reserve against the window
	n := 0
	s := pe.Message
	for i := 0; i < len(s) && n < 3; {
		if s[i] < '0' || s[i] > '9' {
			if s[i] == '+' && n == 1 {
				plus = true
			}
			i++
			continue
		}
		v, j := 0, i
		for ; j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] == ','); j++ {
			if s[j] != ',' && v < 1<<40 {
				v = v*10 + int(s[j]-'0')
			}
		}
		// Small numbers (a model version) are not token counts, but an output reserve may be.
		if v >= 256 || (plus && n == 1) {
			nums[n] = v
			n++
		}
		i = j
	}
	if plus && n == 3 {
		return nums[0] + nums[1], nums[2], nums[0]+nums[1] > nums[2]
	}
	if n < 2 || nums[0] == nums[1] {
		return 0, 0, false
	}
	return max(nums[0], nums[1]), min(nums[0], nums[1]), true
}
