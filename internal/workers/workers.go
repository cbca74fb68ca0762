// Package workers runs functions on goroutines that are kept for the next one. A goroutine
// started for every tool call begins with a small stack and grows it for the call's deep
// frames (JSON validation, encoding), copying it each time; a worker that ran a call before
// has the stack already. Workers idle for a second or two end, so an idle program holds none.
package workers

import (
	"context"
	"sync"
	"time"
)

// A Task is work to run on a worker.
type Task interface{ Run() }

// Func adapts a function to [Task].
type Func func()

// Run calls f.
func (f Func) Run() { f() }

// maxIdle bounds the workers kept waiting; more end when they finish.
const maxIdle = 64

// sweepEvery is how often idle workers are looked at; a worker idle through a whole period
// ends. A variable for tests, guarded by pool.mu.
var sweepEvery = time.Second

type worker struct {
	tasks chan Task // nil: end
	epoch uint64    // the sweep period in which it became idle
}

var pool struct {
	mu    sync.Mutex
	idle  []*worker // a stack: the most recently busy, whose stacks are grown, go first
	epoch uint64
	armed bool // a sweep is scheduled
}

// Go runs t on an idle worker, or on a new goroutine that becomes one. Like a go statement, a
// panic in t ends the program; a t that never returns keeps its worker.
func Go(t Task) {
	pool.mu.Lock()
	if n := len(pool.idle); n > 0 {
		w := pool.idle[n-1]
		pool.idle[n-1] = nil
		pool.idle = pool.idle[:n-1]
		pool.mu.Unlock()
		w.tasks <- t
		return
	}
	pool.mu.Unlock()
	go work(t)
}

func work(t Task) {
	w := &worker{tasks: make(chan Task)}
	for t != nil {
		t.Run()
		t = nil // nothing of the task stays reachable from an idle worker
		pool.mu.Lock()
		if len(pool.idle) >= maxIdle {
			pool.mu.Unlock()
			return
		}
		w.epoch = pool.epoch
		pool.idle = append(pool.idle, w)
		if !pool.armed {
			pool.armed = true
			time.AfterFunc(sweepEvery, sweep)
		}
		pool.mu.Unlock()
		t = <-w.tasks
	}
}

// sweep ends the workers that stayed idle since the sweep before, and schedules the next one
// while any is left.
func sweep() {
	pool.mu.Lock()
	pool.epoch++
	var done []*worker
	keep := pool.idle[:0]
	for _, w := range pool.idle {
		if w.epoch+1 < pool.epoch {
			done = append(done, w)
		} else {
			keep = append(keep, w)
		}
	}
	clear(pool.idle[len(keep):])
	pool.idle = keep
	pool.armed = len(keep) > 0
	if pool.armed {
		time.AfterFunc(sweepEvery, sweep)
	}
	pool.mu.Unlock()
	for _, w := range done {
		w.tasks <- nil // it waits on tasks: it is idle, and no Go can take it now
	}
}

// Idle returns the number of workers waiting for a task: goroutines that exist but do no
// work, which tests counting goroutines leave out.
func Idle() int {
	pool.mu.Lock()
	defer pool.mu.Unlock()
	return len(pool.idle)
}

// A Waiter waits, in place of a plain wait, for a call run on a worker: a streamed turn's
// goroutine, which must go on handing the stream's events to its consumer while the call runs.
// A context offers one under [WaiterKey].
type Waiter interface {
	// Claim reports whether the waiter takes this wait. It takes one wait only: the one of the
	// call its turn is running, never one of a call made inside that call. Claim before the
	// call starts.
	Claim() bool
	// Wait returns true once done is ready (and takes its value), false once stop is closed.
	Wait(done, stop <-chan struct{}) (finished bool)
}

// WaiterKey is the context key of a [Waiter]. A context that answers it with anything else has
// none, whatever the contexts it derives from offer.
type WaiterKey struct{}

// WaiterFrom returns the Waiter ctx offers, or nil.
func WaiterFrom(ctx context.Context) Waiter {
	w, _ := ctx.Value(WaiterKey{}).(Waiter)
	return w
}
