package providertest

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/toolsearch"
)

// EmbedTarget is an embedder under the shared fault checks, described by its provider: how to
// build one on a server's URL, and how the provider's API answers.
type EmbedTarget struct {
	// Provider is the provider's name, which the embedder's errors start with and its
	// *chat.ProviderError carries.
	Provider string
	// New returns an embedder on the API at url with o's settings. Its retries keep the
	// provider's default of 2 but must not make the test wait: they wait through o.Waits where
	// the provider lets a test replace its waits (see RecordsWaits), and briefly otherwise.
	New func(t testing.TB, url string, o EmbedOptions) toolsearch.Embedder
	// Answer is the API's answer holding vecs, the vectors of the texts sent, in their order.
	// A nil vector is written as null where the API's shape allows.
	Answer func(vecs [][]float32) replay.Exchange
	// Fail is the API's error answer with status and message.
	Fail func(status int, message string) replay.Exchange
	// ErrorType is the Type of the *chat.ProviderError the embedder reports for the answer
	// Fail(status, …); nil when the API's errors carry no type.
	ErrorType func(status int) string
	// RecordsWaits says that New's embedders wait through EmbedOptions.Waits, so that the
	// checks can see which waits they asked for.
	RecordsWaits bool
}

// EmbedOptions are the settings [EmbedTarget.New] gives an embedder.
type EmbedOptions struct {
	// Dimensions is the vector length to ask for; zero leaves it to the model.
	Dimensions int
	// BatchSize caps the texts of one request; zero leaves the provider's default.
	BatchSize int
	// NoRetries turns retries off.
	NoRetries bool
	// Waits records the waits between retries, for an embedder whose provider lets a test
	// replace them. It is never nil.
	Waits *Waits
}

// MaxRetries is o's retry setting for a provider whose MaxRetries is zero for its default and
// negative for none.
func (o EmbedOptions) MaxRetries() int {
	if o.NoRetries {
		return -1
	}
	return 0
}

// embedOK is the vector the answers of the checks give the text "a".
var embedOK = [][]float32{{0.5, 0.25}}

// newEmbedder builds an embedder on url with o and a fresh Waits, which it returns too.
func (tg EmbedTarget) newEmbedder(t testing.TB, url string, o EmbedOptions) (toolsearch.Embedder, *Waits) {
	t.Helper()
	o.Waits = &Waits{}
	return tg.New(t, url, o), o.Waits
}

// embed embeds texts with ctx by an embedder on url with o, and returns its waits too.
func (tg EmbedTarget) embed(t testing.TB, ctx context.Context, url string, o EmbedOptions, texts ...string) ([][]float32, *Waits, error) {
	t.Helper()
	e, waits := tg.newEmbedder(t, url, o)
	vecs, err := e.Embed(ctx, texts)
	return vecs, waits, err
}

// checkWaits fails t unless the embedder waited n times, when the target lets the checks see
// its waits.
func (tg EmbedTarget) checkWaits(t testing.TB, w *Waits, n int) {
	t.Helper()
	if got := w.All(); tg.RecordsWaits && len(got) != n {
		t.Fatalf("waits %v, want %d", got, n)
	}
}

// checkError fails t unless err is the *chat.ProviderError for tg.Fail(status, message), which
// it returns.
func (tg EmbedTarget) checkError(t testing.TB, err error, status int, message string) *chat.ProviderError {
	t.Helper()
	var pe *chat.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v, want a *chat.ProviderError", err)
	}
	want := chat.ProviderError{Provider: tg.Provider, StatusCode: status, Message: message}
	if tg.ErrorType != nil {
		want.Type = tg.ErrorType(status)
	}
	if pe.Provider != want.Provider || pe.StatusCode != want.StatusCode || pe.Type != want.Type || pe.Message != want.Message {
		t.Fatalf("error %#v, want provider %q, status %d, type %q, message %q", pe, want.Provider, want.StatusCode, want.Type, want.Message)
	}
	return pe
}

// TestFaults runs, as subtests, [EmbedTarget.Retried] after a 429 asking for no wait and after
// a 500, [EmbedTarget.RetriesRunOut], [EmbedTarget.NotRetried], [EmbedTarget.BodyCut] and
// [EmbedTarget.LaterBatchFails].
func (tg EmbedTarget) TestFaults(t *testing.T) {
	t.Run("429 then 200", func(t *testing.T) {
		limited := tg.Fail(429, "rate limit reached")
		limited.Header = limited.Header.Clone()
		if limited.Header == nil {
			limited.Header = http.Header{}
		}
		limited.Header.Set("Retry-After", "0")
		tg.Retried(t, limited, 0)
	})
	t.Run("500 then 200", func(t *testing.T) { tg.Retried(t, tg.Fail(500, "the server had an error"), -1) })
	t.Run("500 until retries run out", func(t *testing.T) { tg.RetriesRunOut(t) })
	t.Run("400 is not retried", func(t *testing.T) { tg.NotRetried(t) })
	t.Run("body cut short", func(t *testing.T) { tg.BodyCut(t) })
	t.Run("a later batch fails", func(t *testing.T) { tg.LaterBatchFails(t) })
}

// Retried checks that an embedder answered first, a retryable error, and then with a vector
// retries once, sends the same request again and returns the vector. Where the target records
// waits, the one wait must be wait (negative: any).
func (tg EmbedTarget) Retried(t testing.TB, first replay.Exchange, wait time.Duration) {
	t.Helper()
	srv := replay.NewServer(t, first, tg.Answer(embedOK))
	got, waits, err := tg.embed(t, context.Background(), srv.URL, EmbedOptions{}, "a")
	if err != nil || !EqualVectors(got, embedOK) || srv.Served() != 2 {
		t.Fatalf("Embed = %v, %v after %d requests, want %v after 2", got, err, srv.Served(), embedOK)
	}
	SameRequests(t, srv)
	tg.checkWaits(t, waits, 1)
	if w := waits.All(); tg.RecordsWaits && wait >= 0 && w[0] != wait {
		t.Fatalf("waited %v, want %v", w[0], wait)
	}
}

// RetriesRunOut checks that an embedder answered 500 three times gives up after its two
// retries with the *chat.ProviderError of the last answer, which says it is temporary.
func (tg EmbedTarget) RetriesRunOut(t testing.TB) {
	t.Helper()
	const msg = "the server had an error"
	failing := tg.Fail(500, msg)
	srv := replay.NewServer(t, failing, failing, failing)
	got, waits, err := tg.embed(t, context.Background(), srv.URL, EmbedOptions{}, "a")
	pe := tg.checkError(t, err, 500, msg)
	if got != nil || srv.Served() != 3 || !pe.Temporary() {
		t.Fatalf("Embed = %v after %d requests, temporary %v; want nothing after 3, temporary", got, srv.Served(), pe.Temporary())
	}
	tg.checkWaits(t, waits, 2)
}

// NotRetried checks that an embedder answered 400 returns its *chat.ProviderError at once,
// without a retry, and not as a temporary error.
func (tg EmbedTarget) NotRetried(t testing.TB) {
	t.Helper()
	const msg = "'$.input' is invalid"
	srv := replay.NewServer(t, tg.Fail(400, msg))
	got, waits, err := tg.embed(t, context.Background(), srv.URL, EmbedOptions{}, "a")
	pe := tg.checkError(t, err, 400, msg)
	if got != nil || srv.Served() != 1 || pe.Temporary() {
		t.Fatalf("Embed = %v after %d requests, temporary %v", got, srv.Served(), pe.Temporary())
	}
	tg.checkWaits(t, waits, 0)
}

// BodyCut checks that an answer cut off in the middle, with retries off, is an error and no
// vectors.
func (tg EmbedTarget) BodyCut(t testing.TB) {
	t.Helper()
	cut := tg.Answer(embedOK)
	cut.CutAfter = len(cut.Body) / 2
	srv := replay.NewServer(t, cut)
	if got, _, err := tg.embed(t, context.Background(), srv.URL, EmbedOptions{NoRetries: true}, "a"); err == nil || got != nil {
		t.Fatalf("Embed = %v, %v, want an error", got, err)
	}
}

// LaterBatchFails checks that when the second batch of a call fails, the call returns that
// batch's error and none of the first batch's vectors.
func (tg EmbedTarget) LaterBatchFails(t testing.TB) {
	t.Helper()
	const msg = "input too long"
	srv := replay.NewServer(t, tg.Answer(embedOK), tg.Fail(400, msg))
	got, _, err := tg.embed(t, context.Background(), srv.URL, EmbedOptions{BatchSize: 1}, "a", "b")
	tg.checkError(t, err, 400, msg)
	if got != nil || srv.Served() != 2 {
		t.Fatalf("Embed = %v after %d requests, want nothing after 2", got, srv.Served())
	}
}

// TestCancel runs [EmbedTarget.CancelBeforeSend] and [EmbedTarget.CancelWhileWaiting] as
// subtests.
func (tg EmbedTarget) TestCancel(t *testing.T) {
	t.Run("already cancelled", func(t *testing.T) { tg.CancelBeforeSend(t) })
	t.Run("cancelled while waiting", func(t *testing.T) { tg.CancelWhileWaiting(t) })
}

// CancelBeforeSend checks that Embed with a context cancelled already sends nothing and
// returns an error wrapping context.Canceled.
func (tg EmbedTarget) CancelBeforeSend(t testing.TB) {
	t.Helper()
	srv := replay.NewServer(t)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, _, err := tg.embed(t, ctx, srv.URL, EmbedOptions{}, "a"); !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v, want context.Canceled", err)
	}
	if srv.Served() != 0 {
		t.Fatal("a request was sent with a cancelled context")
	}
}

// CancelWhileWaiting checks that cancelling the context of an Embed waiting for its answer ends
// it at once with an error wrapping context.Canceled, closes the connection, and retries
// nothing.
func (tg EmbedTarget) CancelWhileWaiting(t testing.TB) {
	t.Helper()
	srv := NewHangingServer(t, "", "")
	e, waits := tg.newEmbedder(t, srv.URL, EmbedOptions{})
	cancelWhileWaiting(t, srv, "Embed", func(ctx context.Context) error {
		_, err := e.Embed(ctx, []string{"a"})
		return err
	})
	tg.checkWaits(t, waits, 0)
}

// BadAnswer is an answer to the texts "a" and "b" that an embedder must reject.
type BadAnswer struct {
	Name   string
	Answer replay.Exchange
	// Dimensions is the vector length the embedder asks for; zero leaves it to the model.
	Dimensions int
	// Want is what the error must say.
	Want string
}

// BadAnswers are the answers every embedder must reject, in the API's shape: a body that is
// not JSON or empty, fewer or more vectors than texts, an empty or null vector, vectors of
// two lengths, and vectors of another length than asked for.
func (tg EmbedTarget) BadAnswers() []BadAnswer {
	notJSON := tg.Answer([][]float32{{0.1, 0.2}, {0.3, 0.4}})
	notJSON.Body = notJSON.Body[:len(notJSON.Body)/2]
	empty := tg.Answer(nil)
	empty.Body = nil
	return []BadAnswer{
		{Name: "not JSON", Answer: notJSON},
		{Name: "empty body", Answer: empty},
		{Name: "too few", Answer: tg.Answer([][]float32{{0.1, 0.2}}), Want: "1 embeddings for 2 inputs"},
		{Name: "too many", Answer: tg.Answer([][]float32{{0.1}, {0.2}, {0.3}}), Want: "3 embeddings for 2 inputs"},
		{Name: "empty vector", Answer: tg.Answer([][]float32{{0.1}, {}}), Want: "empty embedding for input 1"},
		{Name: "null vector", Answer: tg.Answer([][]float32{{0.1}, nil}), Want: "empty embedding for input 1"},
		{Name: "mixed dimensions", Answer: tg.Answer([][]float32{{0.1}, {0.2, 0.3}}), Want: "1 and 2 dimensions"},
		{Name: "dimensions not honoured", Answer: tg.Answer([][]float32{{0.1, 0.2, 0.3}, {0.2, 0.3, 0.4}}), Dimensions: 2,
			Want: "3 dimensions for input 0, 2 were asked for"},
	}
}

// TestBadAnswers runs [EmbedTarget.Reject] on [EmbedTarget.BadAnswers] and then on more, the
// provider's own, as subtests.
func (tg EmbedTarget) TestBadAnswers(t *testing.T, more ...BadAnswer) {
	for _, a := range append(tg.BadAnswers(), more...) {
		t.Run(a.Name, func(t *testing.T) { tg.Reject(t, a) })
	}
}

// Reject checks that Embed of "a" and "b", answered with a.Answer, fails with an error that
// starts with the provider's name and contains a.Want, returns no vectors, and is not retried.
func (tg EmbedTarget) Reject(t testing.TB, a BadAnswer) {
	t.Helper()
	srv := replay.NewServer(t, a.Answer)
	got, _, err := tg.embed(t, context.Background(), srv.URL, EmbedOptions{Dimensions: a.Dimensions}, "a", "b")
	if err == nil || !strings.HasPrefix(err.Error(), tg.Provider+": ") || !strings.Contains(err.Error(), a.Want) || got != nil {
		t.Fatalf("Embed = %v, %v; want an error from %s containing %q", got, err, tg.Provider, a.Want)
	}
	if srv.Served() != 1 {
		t.Fatalf("%d requests: an answer that arrived whole must not be retried", srv.Served())
	}
}
