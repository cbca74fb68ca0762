package workers

import (
	"bytes"
	"runtime"
	"sync"
	"testing"
	"time"
)

// Tasks run one after the other take one worker; idle workers end after a sweep period or two;
// a task that never returns holds its worker only.
func TestWorkers(t *testing.T) {
	before := runtime.NumGoroutine()

	// Tasks one after the other run on few goroutines (a sweep may end an idle worker between
	// two, on a loaded machine).
	ids := map[string]bool{}
	for range 100 {
		done := make(chan string)
		Go(Func(func() { done <- goroutineID() }))
		ids[<-done] = true
		deadline := time.Now().Add(100 * time.Millisecond)
		for Idle() == 0 && time.Now().Before(deadline) {
			time.Sleep(time.Millisecond)
		}
	}
	if len(ids) > 10 {
		t.Errorf("100 tasks one after the other ran on %d goroutines", len(ids))
	}

	// Tasks running at once each have a worker; all go idle, up to maxIdle.
	var wg sync.WaitGroup
	release := make(chan struct{})
	for range maxIdle + 10 {
		wg.Add(1)
		Go(Func(func() { defer wg.Done(); <-release }))
	}
	close(release)
	wg.Wait()
	// The workers beyond maxIdle end; the others wait.
	waitFor(t, "idle workers, at most maxIdle", func() bool {
		return runtime.NumGoroutine() <= before+maxIdle+1 && Idle() <= maxIdle
	})

	stuck := make(chan struct{})
	defer close(stuck)
	Go(Func(func() { <-stuck }))
	done := make(chan struct{})
	Go(Func(func() { close(done) }))
	<-done

	setSweep(20 * time.Millisecond)
	defer setSweep(time.Second)
	waitFor(t, "idle workers to end", func() bool { return Idle() == 0 && runtime.NumGoroutine() <= before+1 })
}

func setSweep(d time.Duration) {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	sweepEvery = d
}

func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s (%d idle, %d goroutines)", what, Idle(), runtime.NumGoroutine())
		}
		time.Sleep(time.Millisecond)
	}
}

func goroutineID() string {
	b := make([]byte, 64)
	b = b[:runtime.Stack(b, false)]
	id, _, _ := bytes.Cut(bytes.TrimPrefix(b, []byte("goroutine ")), []byte(" "))
	return string(id)
}
