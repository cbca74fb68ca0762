package providertest

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/testenv"
)

// TestTimeouts checks the provider's default-on timeouts against servers on 127.0.0.1 that go
// silent: one that takes the request and never answers (the first-byte timeout, for Call and
// Stream), one that sends the head of a stream and then nothing (the idle timeout), and one
// that starts a non-streamed answer and stalls inside it. Each must end with one error that
// names the timeout and its value and is a timeout (has a Timeout method reporting true), and
// close the connection. withTimeouts returns a model talking to url with the given first-byte
// and idle timeouts; the checks use short ones, and never measure how long anything took.
func (tg Target) TestTimeouts(t *testing.T, withTimeouts func(t testing.TB, url string, firstByte, idle time.Duration) chat.Model) {
	const firstByte, idle = 40 * time.Millisecond, 60 * time.Millisecond
	t.Run("call to a silent server", func(t *testing.T) {
		srv := NewHangingServer(t, "", "")
		m := withTimeouts(t, srv.URL, firstByte, time.Hour)
		err := ended(t, func() error { _, err := m.Call(context.Background(), tg.Prompt); return err })
		wantTimeout(t, err, "FirstByteTimeout", firstByte)
		WaitFor(t, srv.Gone(), "closing the connection")
	})
	t.Run("stream from a silent server", func(t *testing.T) {
		srv := NewHangingServer(t, "", "")
		m := withTimeouts(t, srv.URL, firstByte, time.Hour)
		chunks, errs := collect(t, m, tg.Prompt)
		if chunks != 0 || len(errs) != 1 {
			t.Fatalf("%d chunks and errors %v, want one error", chunks, errs)
		}
		wantTimeout(t, errs[0], "FirstByteTimeout", firstByte)
		WaitFor(t, srv.Gone(), "closing the connection")
	})
	t.Run("stream that stalls", func(t *testing.T) {
		srv := NewHangingServer(t, tg.ContentType, tg.Head)
		m := withTimeouts(t, srv.URL, time.Hour, idle)
		chunks, errs := collect(t, m, tg.Prompt)
		if chunks == 0 || len(errs) != 1 {
			t.Fatalf("%d chunks and errors %v, want the head's chunk, then one error", chunks, errs)
		}
		wantTimeout(t, errs[0], "IdleTimeout", idle)
		WaitFor(t, srv.Gone(), "closing the connection")
	})
	t.Run("call whose answer stalls", func(t *testing.T) {
		srv := NewHangingServer(t, "application/json", `{"id": "`)
		m := withTimeouts(t, srv.URL, time.Hour, idle)
		err := ended(t, func() error { _, err := m.Call(context.Background(), tg.Prompt); return err })
		wantTimeout(t, err, "IdleTimeout", idle)
		WaitFor(t, srv.Gone(), "closing the connection")
	})
}

// ended runs f and returns its error, failing t unless f ends within patience with one.
func ended(t *testing.T, f func() error) error {
	t.Helper()
	err := testenv.Within(t, patience, "a call to a silent server", f)
	if err == nil {
		t.Fatal("no error from a server that went silent")
	}
	return err
}

// collect streams p from m, counting chunks and keeping errors, failing t unless the stream ends
// within patience.
func collect(t *testing.T, m chat.Model, p *chat.Prompt) (chunks int, errs []error) {
	t.Helper()
	type result struct {
		chunks int
		errs   []error
	}
	r := testenv.Within(t, patience, "a stream from a silent server", func() result {
		var r result
		for _, err := range m.Stream(context.Background(), p) {
			if err != nil {
				r.errs = append(r.errs, err)
				continue
			}
			r.chunks++
		}
		return r
	})
	return r.chunks, r.errs
}

func wantTimeout(t *testing.T, err error, name string, after time.Duration) {
	t.Helper()
	t.Log(err)
	msg := err.Error()
	if !strings.Contains(msg, name) || !strings.Contains(msg, after.String()) {
		t.Fatalf("error %q does not name the %s of %v", msg, name, after)
	}
	var timeout interface{ Timeout() bool }
	if !errors.As(err, &timeout) || !timeout.Timeout() {
		t.Fatalf("error %q is not a timeout", msg)
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("error %q reads as the caller's context ending", msg)
	}
}
