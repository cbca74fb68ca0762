package providertest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
	"github.com/wield-ai/wield/toolsearch"
)

// TestEmbedTargetChecks runs the shared embedder checks on a toy embedder that does everything
// right, and on toy embedders with one flaw each, which the checks must catch.
func TestEmbedTargetChecks(t *testing.T) {
	checks := map[string]func(EmbedTarget, testing.TB){
		"Retried after 429": func(tg EmbedTarget, t testing.TB) {
			limited := tg.Fail(429, "slow down")
			limited.Header.Set("Retry-After", "2")
			tg.Retried(t, limited, 2*time.Second)
		},
		"Retried after 500":  func(tg EmbedTarget, t testing.TB) { tg.Retried(t, tg.Fail(500, "oops"), -1) },
		"RetriesRunOut":      EmbedTarget.RetriesRunOut,
		"NotRetried":         EmbedTarget.NotRetried,
		"BodyCut":            EmbedTarget.BodyCut,
		"LaterBatchFails":    EmbedTarget.LaterBatchFails,
		"CancelBeforeSend":   EmbedTarget.CancelBeforeSend,
		"CancelWhileWaiting": EmbedTarget.CancelWhileWaiting,
	}
	var rejects []string
	for _, a := range toyTarget(toyFlaws{}).BadAnswers() {
		checks["Reject/"+a.Name] = func(tg EmbedTarget, t testing.TB) { tg.Reject(t, a) }
		rejects = append(rejects, "Reject/"+a.Name)
	}
	toys := []toy[toyFlaws]{
		{name: "sound"},
		{name: "never retries", flaw: toyFlaws{noRetry: true}, fails: []string{"Retried after 429", "Retried after 500", "RetriesRunOut"}},
		{name: "retries client errors", flaw: toyFlaws{retryAll: true}, fails: []string{"NotRetried", "LaterBatchFails"}},
		{name: "ignores Retry-After", flaw: toyFlaws{ignoreRetryAfter: true}, fails: []string{"Retried after 429"}},
		{name: "ignores Retry-After, waits unseen", flaw: toyFlaws{ignoreRetryAfter: true, unseenWaits: true}},
		{name: "changes a retried request", flaw: toyFlaws{changeRetry: true}, fails: []string{"Retried after 429", "Retried after 500"}},
		{name: "error answers are not ProviderErrors", flaw: toyFlaws{untyped: true}, fails: []string{"RetriesRunOut", "NotRetried", "LaterBatchFails"}},
		{name: "loses the error type", flaw: toyFlaws{noType: true}, fails: []string{"RetriesRunOut", "NotRetried", "LaterBatchFails"}},
		{name: "returns the vectors of earlier batches", flaw: toyFlaws{partial: true}, fails: []string{"LaterBatchFails"}},
		{name: "loses the cancellation", flaw: toyFlaws{hideCause: true}, fails: []string{"CancelBeforeSend", "CancelWhileWaiting"}},
		{name: "ignores the context", flaw: toyFlaws{ignoreCtx: true}, fails: []string{"CancelBeforeSend", "CancelWhileWaiting"}},
		{name: "retries a cancelled request", flaw: toyFlaws{retryCancelled: true}, fails: []string{"CancelWhileWaiting"}},
		{name: "nothing for an unreadable answer", flaw: toyFlaws{lenient: true}, fails: []string{"BodyCut", "Reject/not JSON", "Reject/empty body"}},
		{name: "any number of vectors", flaw: toyFlaws{noCount: true}, fails: []string{"Reject/too few", "Reject/too many"}},
		{name: "empty vectors", flaw: toyFlaws{emptyOK: true}, fails: []string{"Reject/empty vector", "Reject/null vector"}},
		{name: "vectors of two lengths", flaw: toyFlaws{mixedOK: true}, fails: []string{"Reject/mixed dimensions"}},
		{name: "any dimensions", flaw: toyFlaws{anyDims: true}, fails: []string{"Reject/dimensions not honoured"}},
		{name: "errors without the provider's name", flaw: toyFlaws{noPrefix: true}, fails: rejects},
	}
	catchFlaws(t, toys, toyTarget, checks)
}

// toyTarget is the toy embedding API: requests {"input": [...], "dimensions": n}, answers
// {"vectors": [...]} and errors {"error": {"message": ..., "type": ...}}, and its embedder.
func toyTarget(f toyFlaws) EmbedTarget {
	return EmbedTarget{
		Provider: "toy",
		New: func(_ testing.TB, url string, o EmbedOptions) toolsearch.Embedder {
			e := &toyClient{url: url, dims: o.Dimensions, batch: o.BatchSize, retries: 2, waits: o.Waits, toyFlaws: f}
			if o.NoRetries {
				e.retries = 0
			}
			if e.batch == 0 {
				e.batch = 100
			}
			return e
		},
		Answer: func(vecs [][]float32) replay.Exchange {
			body, _ := json.Marshal(map[string]any{"vectors": vecs})
			return JSONError(http.StatusOK, string(body))
		},
		Fail: func(status int, message string) replay.Exchange {
			return JSONError(status, fmt.Sprintf(`{"error":{"message":%q,"type":"e%d"}}`, message, status))
		},
		ErrorType:    func(status int) string { return "e" + strconv.Itoa(status) },
		RecordsWaits: !f.unseenWaits,
	}
}

// toyFlaws are the flaws a toy embedder can have, one a field.
type toyFlaws struct {
	noRetry          bool // never retry
	retryAll         bool // retry every error answer, 4xx too
	ignoreRetryAfter bool // wait by backoff even when the server says how long
	changeRetry      bool // send another body when retrying
	untyped          bool // report error answers as plain errors
	noType           bool // leave the error's type out
	partial          bool // return the vectors of earlier batches along with a later batch's error
	hideCause        bool // report errors without wrapping their cause
	ignoreCtx        bool // send requests on a context that is never cancelled
	retryCancelled   bool // retry a request whose context was cancelled
	lenient          bool // return no vectors and no error for an answer it cannot read
	noCount          bool // accept any number of vectors
	emptyOK          bool // accept empty vectors
	mixedOK          bool // accept vectors of different lengths
	anyDims          bool // accept vectors of another length than asked for
	noPrefix         bool // errors without the provider's name
	unseenWaits      bool // its target does not record the embedder's waits
}

// errUnreadable is how post tells a lenient toyClient's Embed that it could not read an answer.
var errUnreadable = errors.New("unreadable answer")

type toyClient struct {
	url                  string
	dims, batch, retries int
	waits                *Waits
	toyFlaws
}

func (e *toyClient) errorf(format string, args ...any) error {
	if !e.noPrefix {
		format = "toy: " + format
	}
	if e.hideCause {
		format = strings.ReplaceAll(format, "%w", "%v")
	}
	return fmt.Errorf(format, args...)
}

func (e *toyClient) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	if err := ctx.Err(); err != nil && !e.ignoreCtx {
		return nil, e.errorf("%w", err)
	}
	var out [][]float32
	for start := 0; start < len(texts); start += e.batch {
		batch := texts[start:min(start+e.batch, len(texts))]
		vecs, err := e.post(ctx, batch)
		if err == errUnreadable {
			return nil, nil
		}
		if err != nil {
			if e.partial {
				return out, err
			}
			return nil, err
		}
		if len(vecs) != len(batch) && !e.noCount {
			return nil, e.errorf("%d embeddings for %d inputs", len(vecs), len(batch))
		}
		out = append(out, vecs...)
	}
	for i, v := range out {
		switch {
		case len(v) == 0 && !e.emptyOK:
			return nil, e.errorf("empty embedding for input %d", i)
		case e.dims > 0 && len(v) != e.dims && !e.anyDims:
			return nil, e.errorf("embedding of %d dimensions for input %d, %d were asked for", len(v), i, e.dims)
		case len(v) != len(out[0]) && !e.mixedOK:
			return nil, e.errorf("embeddings of %d and %d dimensions in one call", len(out[0]), len(v))
		}
	}
	return out, nil
}

func (e *toyClient) post(ctx context.Context, batch []string) ([][]float32, error) {
	body, _ := json.Marshal(map[string]any{"input": batch, "dimensions": e.dims})
	if e.ignoreCtx {
		ctx = context.WithoutCancel(ctx)
	}
	for attempt := 0; ; attempt++ {
		if attempt > 0 && e.changeRetry {
			body = fmt.Appendf(nil, `{"input":%q,"attempt":%d}`, batch, attempt)
		}
		req, err := http.NewRequestWithContext(ctx, http.MethodPost, e.url, bytes.NewReader(body))
		if err != nil {
			return nil, e.errorf("%w", err)
		}
		res, err := http.DefaultClient.Do(req)
		if err != nil {
			if e.retryCancelled && attempt < e.retries {
				_ = e.waits.Sleep(context.WithoutCancel(ctx), time.Millisecond)
				continue
			}
			return nil, e.errorf("%w", err)
		}
		data, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			if e.lenient {
				return nil, errUnreadable
			}
			return nil, e.errorf("reading the answer: %w", err)
		}
		if res.StatusCode != http.StatusOK {
			retryable := res.StatusCode == http.StatusTooManyRequests || res.StatusCode >= 500 || e.retryAll
			if retryable && attempt < e.retries && !e.noRetry {
				wait := 10 * time.Millisecond << attempt
				if s, err := strconv.Atoi(res.Header.Get("Retry-After")); err == nil && !e.ignoreRetryAfter {
					wait = time.Duration(s) * time.Second
				}
				if err := e.waits.Sleep(ctx, wait); err != nil {
					return nil, e.errorf("%w", err)
				}
				continue
			}
			var answer struct {
				Error struct{ Message, Type string }
			}
			_ = json.Unmarshal(data, &answer)
			if e.untyped {
				return nil, e.errorf("HTTP %d: %s", res.StatusCode, answer.Error.Message)
			}
			if e.noType {
				answer.Error.Type = ""
			}
			return nil, &chat.ProviderError{Provider: "toy", StatusCode: res.StatusCode, Type: answer.Error.Type, Message: answer.Error.Message}
		}
		var answer struct{ Vectors [][]float32 }
		if err := json.Unmarshal(data, &answer); err != nil {
			if e.lenient {
				return nil, errUnreadable
			}
			return nil, e.errorf("%w", err)
		}
		return answer.Vectors, nil
	}
}
