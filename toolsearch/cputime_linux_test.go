package toolsearch

import "golang.org/x/sys/unix"

// threadCPU returns the CPU time the calling thread has used. Per-query CPU time leaves out the
// time a query waits while other processes hold the core, which wall-clock percentiles on a
// shared machine cannot.
func threadCPU() (int64, bool) {
	var ts unix.Timespec
	if unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts) != nil {
		return 0, false
	}
	return ts.Nano(), true
}
