package providertest

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/wield-ai/wield/chat"
	"github.com/wield-ai/wield/internal/replay"
)

// Fault is a row of a fault table: the answers a server gives to one request, one an attempt,
// and what the model must make of them.
type Fault struct {
	Name string
	// Answers are served in order, one an attempt; the model must ask for every one of them.
	Answers []replay.Exchange
	// Stream sends the request with Stream instead of Call.
	Stream bool
	// Retries, when set, is how many times the model may retry; nil leaves the provider's
	// default.
	Retries *int
	// Err is the error the model must return, nil for the success of the last answer. Its
	// StatusCode, Type, Code and Message must be those of the error returned.
	Err *chat.ProviderError
	// Waits, when set, must accept the waits the model took between its attempts.
	Waits func([]time.Duration) bool
}

// BothWays returns faults twice: as they are, called, then streamed with "/stream" after the
// name.
func BothWays(faults ...Fault) []Fault {
	out := make([]Fault, 0, 2*len(faults))
	for _, f := range faults {
		s := f
		s.Name, s.Stream = f.Name+"/stream", true
		out = append(out, f, s)
	}
	return out
}

// MaxRetries maps retries, how many times a model may retry (nil: the provider's default), onto
// the MaxRetries setting of a provider whose zero means its default and a negative value none.
func MaxRetries(retries *int) int {
	switch {
	case retries == nil:
		return 0
	case *retries == 0:
		return -1
	}
	return *retries
}

// FaultTarget is a chat.Model under a fault table.
type FaultTarget struct {
	// Provider names the provider in the errors.
	Provider string
	// New returns a model on the server at url that retries retries times (nil: the provider's
	// default), and the waits it takes between attempts: recorded, not taken, where the provider
	// lets a test replace them; nil otherwise, where the model must wait briefly.
	New func(t testing.TB, url string, retries *int) (chat.Model, *Waits)
	// Prompt is what each row sends.
	Prompt *chat.Prompt
	// Wraps says that the provider's errors wrap the error of its SDK, as [chat.ProviderError.Err].
	Wraps bool
	// Answer checks the answer of a row that succeeds against last, the answer served last.
	Answer func(t testing.TB, resp *chat.Response, last replay.Exchange)
	// Requests, when set, checks the requests each row sent.
	Requests func(t testing.TB, reqs []replay.Request)
}

// Faults runs each row as a subtest: the model sends ft.Prompt to a server giving the row's
// answers and must ask for them all, every attempt with the same request, then return the
// row's error, a *chat.ProviderError whose Temporary says whether its status is worth a retry
// and whose Error gives the status, or else the last answer.
func (ft FaultTarget) Faults(t *testing.T, rows []Fault) {
	for _, row := range rows {
		t.Run(row.Name, func(t *testing.T) { ft.Check(t, row) })
	}
}

// Check runs one row of a fault table; see [FaultTarget.Faults].
func (ft FaultTarget) Check(t testing.TB, row Fault) {
	t.Helper()
	srv := replay.NewServer(t, row.Answers...)
	m, waits := ft.New(t, srv.URL, row.Retries)
	resp, err := Run(context.Background(), m, ft.Prompt, row.Stream)
	if srv.Served() != len(row.Answers) {
		t.Errorf("%d requests, want %d", srv.Served(), len(row.Answers))
	}
	SameRequests(t, srv)
	if ft.Requests != nil {
		ft.Requests(t, srv.Requests())
	}
	if row.Waits != nil {
		if waits == nil {
			t.Fatal("the row checks waits the target does not record")
		}
		if !row.Waits(waits.All()) {
			t.Errorf("waits %v", waits.All())
		}
	}
	if row.Err == nil {
		if err != nil {
			t.Fatal(err)
		}
		ft.Answer(t, resp, row.Answers[len(row.Answers)-1])
		return
	}
	var pe *chat.ProviderError
	if !errors.As(err, &pe) {
		t.Fatalf("error %v (%T) is not a *chat.ProviderError", err, err)
	}
	w := row.Err
	if pe.Provider != ft.Provider || pe.StatusCode != w.StatusCode || pe.Type != w.Type || pe.Code != w.Code || pe.Message != w.Message {
		t.Errorf("provider error = %+v, want %+v", pe, w)
	}
	if !strings.Contains(pe.Error(), fmt.Sprintf("HTTP %d", w.StatusCode)) {
		t.Errorf("Error() = %q, want it to give the status", pe.Error())
	}
	if ft.Wraps && pe.Err == nil {
		t.Errorf("provider error %+v wraps no SDK error", pe)
	}
	if temporary := w.StatusCode == 408 || w.StatusCode == 409 || w.StatusCode == 429 || w.StatusCode >= 500; pe.Temporary() != temporary {
		t.Errorf("Temporary() = %v for %d", pe.Temporary(), w.StatusCode)
	}
	if want := errors.Is(w, chat.ErrContextLength); errors.Is(err, chat.ErrContextLength) != want {
		t.Errorf("errors.Is(err, chat.ErrContextLength) = %v, want %v", !want, want)
	}
	t.Log(err)
}
