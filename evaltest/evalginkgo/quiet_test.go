package evalginkgo_test

import (
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/gotestjson"
	"github.com/lasagna-go/lasagna/internal/servertest"
)

// TestRecordIsQuietUnlessVerbose runs examples/ginkgo (47 passing specs
// that each call q.Record()) with the real go command: a plain run prints
// no report entry, a verbose one (-ginkgo.v) prints them.
func TestRecordIsQuietUnlessVerbose(t *testing.T) {
	servertest.Heavy(t, "a child go test (compiles and runs a test binary)")
	output := func(args ...string) (string, int) {
		t.Helper()
		evs, code, err := gotestjson.Run("", append([]string{"../../examples/ginkgo"}, args...), []string{"LASAGNA_OUT=" + t.TempDir()})
		if err != nil {
			t.Fatal(err)
		}
		var sb strings.Builder
		for _, e := range evs {
			if e.Action == "output" {
				sb.WriteString(e.Output)
			}
		}
		return sb.String(), code
	}
	plain, code := output()
	if code != 0 {
		t.Fatalf("exit code %d:\n%s", code, plain)
	}
	if n := strings.Count(plain, "lasagna.query_id"); n > 0 {
		t.Errorf("a passing plain run printed %d lasagna.query_id report entries (%d lines):\n%.2000s", n, strings.Count(plain, "\n"), plain)
	}
	verbose, _ := output("-args", "-ginkgo.v")
	if n := strings.Count(verbose, "lasagna.query_id"); n < 47 {
		t.Errorf("a verbose run printed %d lasagna.query_id report entries, want one per spec (47)", n)
	}
}
