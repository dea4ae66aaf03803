//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package hf

import "context"

// lockFile does nothing where flock(2) is missing: two processes
// downloading one blob at once may then both write it (the content check
// refuses a mixed file).
func lockFile(context.Context, string) (func(), error) { return func() {}, nil }
