package scorer

import (
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/evaltest"
)

// TestBundleCarriesCitesSource: the bundle of TestRAG's run holds
// cites_source on every answered query's row (0 for glass-04, answered
// without a source, 1 for the others), as a mean over those rows with its
// confidence interval, and the scorer's version in held_fixed.
func TestBundleCarriesCitesSource(t *testing.T) {
	t.Setenv(evaltest.EnvOut, t.TempDir())
	ev, err := evaltest.Evaluate(t.Context(), "TestRAG", config())
	if err != nil {
		t.Fatal(err)
	}
	if ev.Failed() {
		t.Fatalf("the run failed: %+v", ev.Tests)
	}
	res := ev.Bundle.Results[0]
	var n, sum int
	for _, row := range res.PerSampleScores {
		v, ok := row.Scores["cites_source"]
		if row.Answer == nil || *row.Answer == "" {
			if ok {
				t.Errorf("%s: no answer, yet cites_source %v", row.QueryID, v)
			}
			continue
		}
		if !ok {
			t.Errorf("%s: answered, but its row has no cites_source", row.QueryID)
			continue
		}
		if want := 1.0; row.QueryID == "glass-04" {
			want = 0
			if v != want {
				t.Errorf("glass-04 cites_source %v, want 0 (answered without a source)", v)
			}
		} else if v != want {
			t.Errorf("%s cites_source %v, want 1", row.QueryID, v)
		}
		n++
		sum += int(v)
	}
	st, ok := res.MetricStats["cites_source"]
	if n != 44 || !ok || st.N != n || res.Metrics["cites_source"] != float64(sum)/float64(n) || st.CILow > st.Mean || st.Mean > st.CIHigh {
		t.Errorf("cites_source over %d rows: mean %v, stats %+v (ok %v); want the mean of the rows, %d/%d", n, res.Metrics["cites_source"], st, ok, sum, n)
	}
	// The results table, which go test -v prints, has a cites_source
	// column: a threshold checks it.
	if logs := strings.Join(ev.Tests[0].Logs, "\n"); !strings.Contains(logs, "  cites_source\n") {
		t.Errorf("the results table has no cites_source column:\n%s", logs)
	}
	if v := ev.Bundle.Configs[0].HeldFixed.Scorers; v["cites-source"] != "1" {
		t.Errorf("held_fixed.scorers = %v", v)
	}
}
