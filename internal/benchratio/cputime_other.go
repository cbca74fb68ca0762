//go:build !unix

package benchratio

import "time"

func cpuTime() (time.Duration, bool) { return 0, false }
