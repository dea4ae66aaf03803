package engine

import (
	"context"
	"slices"
	"sync/atomic"
	"testing"
)

func TestUnitNames(t *testing.T) {
	got := UniqueNames([]string{"q 1", "q/1", "q_1", "a\tb", "ok"})
	want := []string{"q_1", "q_1_2", "q_1_3", "a_b", "ok"}
	if !slices.Equal(got, want) {
		t.Errorf("UniqueNames = %q, want %q", got, want)
	}
	got = BenchmarkNames([]string{"local/faq@0123456789ab", "scifact@aaaaaaaaaaaa", "local/faq@ba9876543210", "local/x y@1"})
	want = []string{"faq@0123456789ab", "scifact", "faq@ba9876543210", "x_y"}
	if !slices.Equal(got, want) {
		t.Errorf("BenchmarkNames = %q, want %q", got, want)
	}
}

// TestRecorderOrder checks that a Recorder orders units as testing.T
// does: Run returns when a child calls Parallel, a unit's cleanups run
// after its parallel children, and a failure reaches every ancestor.
func TestRecorderOrder(t *testing.T) {
	rec := NewRecorder(context.Background(), "root")
	var done atomic.Int32
	release := make(chan struct{})
	var cleanupSaw int32
	rec.Run("arm", func(r Runner) {
		r.Cleanup(func() { cleanupSaw = done.Load() })
		for _, name := range []string{"q1", "q2"} {
			if !r.Run(name, func(r Runner) {
				r.Parallel()
				<-release
				if name == "q2" {
					r.Errorf("q2 failed")
				}
				r.Attr("k", name)
				done.Add(1)
			}) {
				t.Errorf("Run(%s) = false for a parallel unit", name)
			}
		}
		// Both children are waiting: Run returned at Parallel.
		close(release)
	})
	rec.Finish()
	if cleanupSaw != 2 {
		t.Errorf("the arm's cleanup saw %d finished children, want 2", cleanupSaw)
	}
	units := rec.Units()
	var names []string
	for _, u := range units {
		names = append(names, u.Name)
	}
	if want := []string{"root", "root/arm", "root/arm/q1", "root/arm/q2"}; !slices.Equal(names, want) {
		t.Fatalf("units %q, want %q", names, want)
	}
	for i, want := range []bool{true, true, false, true} {
		if units[i].Failed != want {
			t.Errorf("%s: Failed = %v, want %v", units[i].Name, units[i].Failed, want)
		}
	}
	if units[3].Level != 2 || len(units[3].Attrs) != 1 || units[3].Errors[0] != "q2 failed" {
		t.Errorf("q2 = %+v", units[3])
	}
}
