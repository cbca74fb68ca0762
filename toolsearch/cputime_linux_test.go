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

// processCPU returns the CPU time the process has used, on every thread: a build's own work and
// the garbage collection it causes, without the time it waited for a core.
func processCPU() (int64, bool) {
	var ru unix.Rusage
	if unix.Getrusage(unix.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return ru.Utime.Nano() + ru.Stime.Nano(), true
}
