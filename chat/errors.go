package chat

import (
	"fmt"
	"net/http"
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
