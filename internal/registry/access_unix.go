//go:build unix

package registry

import "syscall"

// dirWritable reports whether this process may create files in dir.
func dirWritable(dir string) bool {
	return syscall.Access(dir, 0x2) == nil // W_OK
}
