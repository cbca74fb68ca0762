// Package provider holds what every provider package shares in its configuration: [Transport],
// how requests reach the API. The providers themselves live in the packages below it.
package provider

import (
	"net/http"
	"time"
)

// Transport configures how a provider's requests reach its API. Every provider's Config embeds
// it, so its fields read and assign as the Config's own (cfg.HTTPClient = hc); a composite
// literal names it: openai.Config{Model: "m", Transport: provider.Transport{MaxRetries: -1}}.
// The zero value is the defaults below.
type Transport struct {
	// HTTPClient sends the requests; nil means the provider's default client (the SDK's, or a
	// client on http.DefaultTransport). Retries and timeouts are layered on it, not replaced.
	HTTPClient *http.Client
	// MaxRetries is how many times a request that failed with 408, 409, 429, 5xx or a broken
	// connection is retried, with exponential backoff honouring Retry-After. Zero means the
	// provider's default (2; Bedrock 3); a negative value disables retries.
	MaxRetries int
	// FirstByteTimeout bounds the wait for the server's answer to begin after a request is sent,
	// per attempt (a timed-out attempt is retried like a dropped connection): a server that
	// takes the request and says nothing fails the call with an error naming this timeout. A
	// non-streamed answer begins only once it is complete, so allow for the longest generation.
	// Zero means 10 minutes; a negative value waits forever.
	FirstByteTimeout time.Duration
	// IdleTimeout bounds each wait for more of an answer that has begun: the time between two
	// streamed events. Zero means 5 minutes; a negative value waits forever.
	IdleTimeout time.Duration
	// MaxResponseBytes bounds the size of each response body, counted after decompression, so
	// that a broken or hostile server cannot make the program hold gigabytes: reading past it
	// fails the call or stream with an error naming this field. Zero means 256 MiB; a negative
	// value sets no bound.
	MaxResponseBytes int64
	// Header is set on every request, each attempt included, replacing any header of the same
	// name the provider or its SDK set: a proxy's routing or tenant header, a gateway's key.
	Header http.Header
}
