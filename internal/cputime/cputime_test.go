//go:build unix

package cputime

import "testing"

// TestUsedGrows burns CPU and requires the reading to move forward.
func TestUsedGrows(t *testing.T) {
	before := Used()
	if before <= 0 {
		t.Fatalf("Used() = %v before any work, want > 0 (the test binary has run)", before)
	}
	x := 0
	for i := range 200_000_000 {
		x ^= i * i
		if Used()-before > 0 && i > 1000 {
			break
		}
	}
	_ = x
	if after := Used(); after <= before {
		t.Fatalf("Used() did not grow: %v then %v", before, after)
	}
}
