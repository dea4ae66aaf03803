//go:build unix

package datasets

import "syscall"

// openNonblock opens a FIFO without waiting for a writer (OSFS then
// refuses it); it has no effect on a regular file.
const openNonblock = syscall.O_NONBLOCK
