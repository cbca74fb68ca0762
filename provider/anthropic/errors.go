package anthropic

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	sdk "github.com/anthropics/anthropic-sdk-go"

	"github.com/wield-ai/wield/chat"
)

// wrapError turns an SDK error into wield's: API errors become *chat.ProviderError, a done
// context is reported as such, anything else is wrapped.
func wrapError(ctx context.Context, err error) error {
	var apiErr *sdk.Error
	if errors.As(err, &apiErr) {
		return providerError(apiErr)
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("anthropic: %w: %w", cerr, err)
	}
	return fmt.Errorf("anthropic: %w", err)
}

// maxMessage bounds the part of a non-JSON error body kept as the message.
const maxMessage = 512

// providerError maps an SDK API error, from an HTTP error status or an `error` event inside a
// stream, onto chat.ProviderError. Besides Anthropic's error envelope it reads the ones the cloud
// platforms answer with: Bedrock's {"message":…} with the error type in the X-Amzn-Errortype
// header, and Google's {"error":{"code","message","status"}}.
func providerError(e *sdk.Error) *chat.ProviderError {
	pe := &chat.ProviderError{Provider: ProviderName, StatusCode: e.StatusCode, Type: string(e.Type()), Err: e}
	raw := e.RawJSON()
	var body struct {
		Error struct {
			Type    string `json:"type"`
			Message string `json:"message"`
			Status  string `json:"status"`
		} `json:"error"`
		Message string `json:"message"`
	}
	if json.Unmarshal([]byte(raw), &body) == nil {
		if pe.Type == "" {
			pe.Type = body.Error.Type
		}
		if pe.Type == "" {
			pe.Type = body.Error.Status
		}
		pe.Message = body.Error.Message
		if pe.Message == "" {
			pe.Message = body.Message
		}
	} else {
		// Not JSON (a proxy's error page, say): keep the start of it.
		pe.Message = strings.TrimSpace(raw)
		if len(pe.Message) > maxMessage {
			pe.Message = strings.ToValidUTF8(pe.Message[:maxMessage], "") + "…"
		}
	}
	if pe.Type == "" && e.Response != nil {
		// Bedrock: "AccessDeniedException:http://internal.amazon.com/coral/…".
		kind, _, _ := strings.Cut(e.Response.Header.Get("X-Amzn-Errortype"), ":")
		pe.Type = kind
	}
	if pe.StatusCode < 400 {
		// An error event inside a 200 stream: report the status the API uses for its type, so
		// callers branch on it as on an HTTP error.
		pe.StatusCode = statusOf(pe.Type)
	}
	return pe
}

// statusOf returns the HTTP status Anthropic (or Bedrock) documents for an error type.
func statusOf(errorType string) int {
	switch errorType {
	case "invalid_request_error":
		return http.StatusBadRequest
	case "authentication_error":
		return http.StatusUnauthorized
	case "billing_error":
		return http.StatusPaymentRequired
	case "permission_error":
		return http.StatusForbidden
	case "not_found_error":
		return http.StatusNotFound
	case "request_too_large":
		return http.StatusRequestEntityTooLarge
	case "rate_limit_error":
		return http.StatusTooManyRequests
	case "timeout_error":
		return http.StatusGatewayTimeout
	case "overloaded_error":
		return 529
	// Exceptions Bedrock sends inside an event stream, with the statuses it documents for them.
	case "throttlingException", "ThrottlingException":
		return http.StatusTooManyRequests
	case "validationException", "ValidationException":
		return http.StatusBadRequest
	case "modelStreamErrorException", "ModelStreamErrorException":
		return http.StatusFailedDependency
	case "modelTimeoutException", "ModelTimeoutException":
		return http.StatusRequestTimeout
	case "serviceUnavailableException", "ServiceUnavailableException":
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
