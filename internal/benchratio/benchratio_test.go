package benchratio

import (
	"math"
	"testing"
)

// Run calls both functions alike, at least b.N times each, and reports costs whose quotient is
// the ratio it reports.
func TestRun(t *testing.T) {
	var nBase, nSubject, maxN int
	res := testing.Benchmark(func(b *testing.B) {
		maxN = max(maxN, b.N)
		Run(b, 16, "base", func() { nBase++ }, "subject", func() { nSubject++ })
	})
	if nBase != nSubject || nBase < maxN {
		t.Errorf("base ran %d times, subject %d; want the same, at least b.N = %d", nBase, nSubject, maxN)
	}
	unit := "cpu-ns/op"
	if _, ok := cpuTime(); !ok {
		unit = "ns/op"
	}
	base, ok1 := res.Extra["base-"+unit]
	subject, ok2 := res.Extra["subject-"+unit]
	if !ok1 || !ok2 {
		t.Fatalf("metrics %v lack base-%s or subject-%s", res.Extra, unit, unit)
	}
	if r, ok := res.Extra["subject/base"]; base > 0 && (!ok || math.Abs(r-subject/base) > 1e-9*r) {
		t.Errorf("ratio %v (reported: %v), want %v", r, ok, subject/base)
	}
}
