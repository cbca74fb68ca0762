package providertest

import (
	"context"
	"io"
	"iter"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
)

// TestFaultChecks runs fault rows on a retrying model that does everything right, and on models
// with one flaw each, which the rows must catch.
func TestFaultChecks(t *testing.T) {
	fail := func(status int, msg string) replay.Exchange {
		return replay.Exchange{Status: status, Body: []byte(msg)}
	}
	ok := replay.Exchange{Body: []byte("hello")}
	rows := map[string]Fault{
		"retried": {Answers: []replay.Exchange{fail(503, "busy"), ok},
			Waits: func(w []time.Duration) bool { return len(w) == 1 }},
		"streamed": {Answers: []replay.Exchange{fail(429, "slow down"), ok}, Stream: true},
		"retries spent": {Answers: []replay.Exchange{fail(500, "a"), fail(500, "b"), fail(500, "boom")},
			Err: &chat.ProviderError{StatusCode: 500, Message: "boom"}},
		"no retries": {Answers: []replay.Exchange{fail(429, "slow down")}, Retries: chat.Ptr(0),
			Err: &chat.ProviderError{StatusCode: 429, Message: "slow down"}},
		"not retried": {Answers: []replay.Exchange{fail(400, "bad")}, Err: &chat.ProviderError{StatusCode: 400, Message: "bad"}},
	}
	checks := map[string]func(FaultTarget, testing.TB){}
	for name, row := range rows {
		checks[name] = func(ft FaultTarget, t testing.TB) { ft.Check(t, row) }
	}
	toys := []toy[retryModel]{
		{name: "sound"},
		{name: "never retries", flaw: retryModel{noRetry: true}, fails: []string{"retried", "streamed", "retries spent"}},
		{name: "retries a 400", flaw: retryModel{retryAll: true}, fails: []string{"not retried"}},
		{name: "changes the request", flaw: retryModel{numbered: true}, fails: []string{"retried", "streamed", "retries spent"}},
		{name: "loses the message", flaw: retryModel{noMessage: true}, fails: []string{"retries spent", "no retries", "not retried"}},
		{name: "wraps nothing", flaw: retryModel{noCause: true}, fails: []string{"retries spent", "no retries", "not retried"}},
		{name: "waits unseen", flaw: retryModel{hideWaits: true}, fails: []string{"retried"}},
		{name: "loses the answer", flaw: retryModel{noAnswer: true}, fails: []string{"retried", "streamed"}},
	}
	target := func(model retryModel) FaultTarget {
		return FaultTarget{
			Provider: "toy",
			New: func(_ testing.TB, url string, retries *int) (chat.Model, *Waits) {
				m := model
				m.url, m.retries, m.waits = url, 2, &Waits{}
				if retries != nil {
					m.retries = *retries
				}
				return &m, m.waits
			},
			Prompt: &chat.Prompt{Messages: []chat.Message{chat.User("hi")}},
			Wraps:  true,
			Answer: func(t testing.TB, resp *chat.Response, last replay.Exchange) {
				if resp.Text() != string(last.Body) {
					t.Errorf("answer %q, want %q", resp.Text(), last.Body)
				}
			},
		}
	}
	catchFlaws(t, toys, target, checks)
}

// retryModel is a minimal chat.Model over HTTP that retries 429 and 5xx answers, streaming the
// whole answer as one chunk. Each flag gives it one flaw.
type retryModel struct {
	url       string
	retries   int
	waits     *Waits
	noRetry   bool // never retry
	retryAll  bool // retry every error status
	numbered  bool // send each attempt's number in the request
	noMessage bool // leave the error's message out
	noCause   bool // wrap no error of its own
	hideWaits bool // wait without telling the test
	noAnswer  bool // return an empty answer
}

func (m *retryModel) Call(ctx context.Context, _ *chat.Prompt) (*chat.Response, error) {
	for attempt := 0; ; attempt++ {
		body := "hi"
		if m.numbered {
			body += strconv.Itoa(attempt)
		}
		res, err := http.Post(m.url, "text/plain", strings.NewReader(body))
		if err != nil {
			return nil, err
		}
		b, err := io.ReadAll(res.Body)
		res.Body.Close()
		if err != nil {
			return nil, err
		}
		if res.StatusCode < 400 {
			if m.noAnswer {
				b = nil
			}
			return &chat.Response{Generations: []chat.Generation{{Message: chat.Assistant(string(b))}}}, nil
		}
		retry := res.StatusCode == 429 || res.StatusCode >= 500 || m.retryAll
		if retry && !m.noRetry && attempt < m.retries {
			if !m.hideWaits {
				_ = m.waits.Sleep(ctx, time.Millisecond)
			}
			continue
		}
		pe := &chat.ProviderError{Provider: "toy", StatusCode: res.StatusCode, Message: string(b), Err: io.EOF}
		if m.noMessage {
			pe.Message = ""
		}
		if m.noCause {
			pe.Err = nil
		}
		return nil, pe
	}
}

func (m *retryModel) Stream(ctx context.Context, p *chat.Prompt) iter.Seq2[*chat.Response, error] {
	return func(yield func(*chat.Response, error) bool) {
		yield(m.Call(ctx, p))
	}
}

func TestMaxRetries(t *testing.T) {
	for _, tc := range []struct {
		retries *int
		want    int
	}{{nil, 0}, {chat.Ptr(0), -1}, {chat.Ptr(3), 3}} {
		if got := MaxRetries(tc.retries); got != tc.want {
			t.Errorf("MaxRetries(%v) = %d, want %d", tc.retries, got, tc.want)
		}
	}
	if (EmbedOptions{}).MaxRetries() != 0 || (EmbedOptions{NoRetries: true}).MaxRetries() != -1 {
		t.Error("EmbedOptions.MaxRetries")
	}
}
