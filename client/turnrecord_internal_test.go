package client

import (
	"fmt"
	"testing"
)

// The process's record of turns refuses a second resume of a step and any step but the one
// handed out last, makes a step resumable again when nothing ran, and stays within its bound.
func TestTurnRecord(t *testing.T) {
	r := &turnRecord{max: 3}
	r.handOut("a", 2)
	if r.claim("a", 1) || r.claim("a", 3) {
		t.Fatal("a step other than the one handed out was claimed")
	}
	if !r.claim("a", 2) || r.claim("a", 2) {
		t.Fatal("the step handed out was not claimed exactly once")
	}
	r.unclaim("a", 2)
	if !r.claim("a", 2) {
		t.Fatal("an unclaimed step was refused")
	}
	r.handOut("a", 5)
	if r.claim("a", 2) || !r.claim("a", 5) {
		t.Fatal("the turn's next stop did not replace its resumed step")
	}
	if !r.claim("foreign", 7) || r.claim("foreign", 7) || r.claim("foreign", 0) {
		t.Fatal("a turn the process did not know was not claimed exactly once")
	}
	for i := range 10 {
		r.handOut(fmt.Sprint("t", i), 1)
	}
	if len(r.steps) > 3 || len(r.order) > 3 {
		t.Fatalf("the record holds %d turns (%d in order), bound 3", len(r.steps), len(r.order))
	}
	if !r.claim("a", 1) {
		t.Fatal("a forgotten turn is not claimable as a foreign one")
	}
}
