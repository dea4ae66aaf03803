// Package cputime reads the CPU time the process has used, for benchmarks
// that report CPU seconds beside wall time: on a shared machine the wall
// time grows when other processes take the cores, the CPU time does not.
package cputime

import "time"

// Used returns the user + system CPU time of the whole process (all
// threads) so far, or 0 where the platform cannot say.
func Used() time.Duration { return used() }
