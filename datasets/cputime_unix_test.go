//go:build unix

package datasets

import (
	"syscall"
	"time"
)

// cpuTime returns the CPU time (user + system, all threads) the process has
// used, or 0 when it cannot be read.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
