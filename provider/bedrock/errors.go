package bedrock

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"

	"github.com/wield-ai/wield/chat"
)

// wrapError turns an SDK error into wield's: Bedrock's error answers, and exceptions inside a
// stream, become *chat.ProviderError; a done context is reported as such; anything else is
// wrapped.
func wrapError(ctx context.Context, err error) error {
	var ae smithy.APIError
	if errors.As(err, &ae) {
		pe := &chat.ProviderError{Provider: ProviderName, Type: ae.ErrorCode(), Message: ae.ErrorMessage(), Err: err}
		var re *awshttp.ResponseError
		if errors.As(err, &re) {
			pe.StatusCode = re.HTTPStatusCode()
		}
		if pe.StatusCode < 400 {
			// An exception inside a 200 stream: report the status Bedrock documents for it.
			pe.StatusCode = statusOf(pe.Type)
		}
		return pe
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) && re.HTTPStatusCode() >= 400 {
		// An error answer that is not Bedrock's (a proxy's error page, say).
		return &chat.ProviderError{Provider: ProviderName, StatusCode: re.HTTPStatusCode(),
			Message: "the error answer is not Bedrock's JSON", Err: err}
	}
	if cerr := ctx.Err(); cerr != nil && !errors.Is(err, cerr) {
		return fmt.Errorf("bedrock: %w: %w", cerr, err)
	}
	var de *smithy.DeserializationError
	if errors.As(err, &de) {
		return fmt.Errorf("bedrock: malformed response: %w", err)
	}
	return fmt.Errorf("bedrock: %w", err)
}

// statusOf returns the HTTP status the Bedrock API reference gives an error code.
func statusOf(code string) int {
	switch code {
	case "ValidationException", "ServiceQuotaExceededException", "validationException":
		return http.StatusBadRequest
	case "AccessDeniedException":
		return http.StatusForbidden
	case "ResourceNotFoundException":
		return http.StatusNotFound
	case "ModelTimeoutException", "modelTimeoutException":
		return http.StatusRequestTimeout
	case "ConflictException":
		return http.StatusConflict
	case "ModelErrorException", "ModelStreamErrorException", "modelStreamErrorException":
		return http.StatusFailedDependency
	case "ThrottlingException", "ModelNotReadyException", "throttlingException":
		return http.StatusTooManyRequests
	case "ServiceUnavailableException", "serviceUnavailableException":
		return http.StatusServiceUnavailable
	}
	return http.StatusInternalServerError
}
