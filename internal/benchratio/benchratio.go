// Package benchratio measures how two pieces of code compare in one benchmark: it alternates
// batches of both and reports their costs and the ratio, so that load on a shared machine hits
// them alike. Costs are the process's CPU time (every thread, garbage collection included),
// which time spent waiting for a core does not inflate; where that clock is unavailable, wall
// time.
package benchratio

import (
	"testing"
	"time"
)

// Run times base and subject alternately, in batches of batch calls, each going first in every
// other pair, until each has run b.N times, and reports base's and subject's cost per call
// (metrics "<baseName>-ns/op" and "<subjectName>-ns/op") and subject's cost over base's
// ("<subjectName>/<baseName>"). Each is called once before the timing starts.
func Run(b *testing.B, batch int, baseName string, base func(), subjectName string, subject func()) {
	b.Helper()
	base()
	subject()
	clock, unit := cpuTime, "cpu-ns/op"
	if _, ok := cpuTime(); !ok {
		clock, unit = wallTime, "ns/op"
	}
	timed := func(f func()) time.Duration {
		t0, _ := clock()
		for range batch {
			f()
		}
		t1, _ := clock()
		return t1 - t0
	}
	var tb, ts time.Duration
	b.ResetTimer()
	for i := 0; i < b.N; i += batch {
		// Which runs second pays for the first's garbage and cache misses: take turns.
		if i/batch%2 == 0 {
			tb += timed(base)
			ts += timed(subject)
		} else {
			ts += timed(subject)
			tb += timed(base)
		}
	}
	n := float64((b.N + batch - 1) / batch * batch)
	b.ReportMetric(float64(tb.Nanoseconds())/n, baseName+"-"+unit)
	b.ReportMetric(float64(ts.Nanoseconds())/n, subjectName+"-"+unit)
	if tb > 0 {
		b.ReportMetric(float64(ts)/float64(tb), subjectName+"/"+baseName)
	}
}

var start = time.Now()

func wallTime() (time.Duration, bool) { return time.Since(start), true }
