// Package cputime reads what a benchmark costs the process: the CPU time
// it has used (Used), reported beside wall time because on a shared
// machine the wall time grows when other processes take the cores and the
// CPU time does not, and its peak heap (PeakHeap).
package cputime

import "time"

// Used returns the user + system CPU time of the whole process (all
// threads) so far, or 0 where the platform cannot say.
func Used() time.Duration { return used() }
