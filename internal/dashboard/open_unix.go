//go:build unix

package dashboard

import "syscall"

// openNonblock keeps an open of a FIFO from blocking.
const openNonblock = syscall.O_NONBLOCK
