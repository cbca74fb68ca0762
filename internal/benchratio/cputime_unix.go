//go:build unix

package benchratio

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time the process has used, in user and system mode, on all threads.
func cpuTime() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}
