package chat

import "context"

type noRetriesKey struct{}

// WithoutRetries returns ctx marked so that a provider makes one attempt per call, without the
// retries of 429 and 5xx answers it makes by default: for a caller that retries itself, such as
// a durable engine's activity, whose retries would otherwise multiply the provider's.
func WithoutRetries(ctx context.Context) context.Context {
	return context.WithValue(ctx, noRetriesKey{}, true)
}

// RetriesOff reports whether ctx asks a provider not to retry ([WithoutRetries]).
func RetriesOff(ctx context.Context) bool {
	off, _ := ctx.Value(noRetriesKey{}).(bool)
	return off
}
