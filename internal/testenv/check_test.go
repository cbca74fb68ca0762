package testenv

import (
	"errors"
	"fmt"
	"runtime"
	"sync"
	"testing"
	"time"
)

// fatalRecorder notes whether a check failed its test; like testing.T, Fatal ends the goroutine.
type fatalRecorder struct {
	testing.TB
	failed bool
}

func (r *fatalRecorder) Helper() {}
func (r *fatalRecorder) Fatal(args ...any) {
	r.failed = true
	runtime.Goexit()
}
func (r *fatalRecorder) Fatalf(format string, args ...any) { r.Fatal(fmt.Sprintf(format, args...)) }

func TestWantError(t *testing.T) {
	boom := errors.New("dial: connection refused")
	for _, tc := range []struct {
		name       string
		err        error
		want       string
		wanted     bool
		shouldFail bool
	}{
		{"no error wanted, none", nil, "", false, false},
		{"no error wanted, one", boom, "", false, true},
		{"error wanted, matching", boom, "refused", true, false},
		{"error wanted, other", boom, "timeout", true, true},
		{"error wanted, none", nil, "refused", true, true},
	} {
		r := &fatalRecorder{}
		var wanted bool
		done := make(chan struct{})
		go func() {
			defer close(done)
			wanted = WantError(r, tc.err, tc.want)
		}()
		<-done
		if r.failed != tc.shouldFail {
			t.Errorf("%s: failed = %v, want %v", tc.name, r.failed, tc.shouldFail)
		}
		if !r.failed && wanted != tc.wanted {
			t.Errorf("%s: WantError = %v, want %v", tc.name, wanted, tc.wanted)
		}
	}
}

func TestJSON(t *testing.T) {
	if got := JSON(t, map[string]any{"b": 1, "a": []int{2}}); got != `{"a":[2],"b":1}` {
		t.Fatalf("JSON = %s", got)
	}
	r := &fatalRecorder{}
	done := make(chan struct{})
	go func() {
		defer close(done)
		JSON(r, func() {})
	}()
	<-done
	if !r.failed {
		t.Fatal("JSON of a func did not fail its test")
	}
}

func TestPeak(t *testing.T) {
	var p Peak
	start, hold := make(chan struct{}), make(chan struct{})
	var entered sync.WaitGroup
	var done sync.WaitGroup
	entered.Add(5)
	for range 5 {
		done.Go(func() {
			<-start
			p.Enter()
			entered.Done()
			<-hold
			p.Leave()
		})
	}
	close(start)
	entered.Wait()
	close(hold)
	done.Wait()
	if p.Most() != 5 {
		t.Fatalf("Most = %d, want 5", p.Most())
	}
	if n := p.Enter(); n != 1 || p.Running() != 1 || p.Most() != 5 {
		t.Fatalf("after all left, Enter = %d and Most = %d, want 1 and 5", n, p.Most())
	}
}

func TestWithin(t *testing.T) {
	if got := Within(t, time.Minute, "a quick call", func() int { return 7 }); got != 7 {
		t.Fatalf("Within = %d", got)
	}
	r := &fatalRecorder{}
	hang := make(chan struct{})
	defer close(hang)
	done := make(chan struct{})
	go func() {
		defer close(done)
		Within(r, 10*time.Millisecond, "a hung call", func() int { <-hang; return 0 })
	}()
	<-done
	if !r.failed {
		t.Fatal("a hung call did not fail its test")
	}
}
