package dashboard

import (
	"os"
	"strings"
	"testing"
	"time"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/google/go-cmp/cmp"

	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
)

// BenchmarkLeaderboardFirstBuild measures GET /leaderboards on a SQLite
// registry holding one group of 1,000 submissions, each op on a new server
// (nothing cached: the first request after lasagna serve starts), the
// whole request through the handler: every bundle read, decoded and
// checked against the registry's data, the 999 adjacent pairs compared,
// the first page rendered. cpu-ms/op is the process's CPU time per
// request. BENCHMARKS.md, "Leaderboards of 1,000 entries".
func BenchmarkLeaderboardFirstBuild(b *testing.B) {
	_, reg := newHub(b, sqliteDSN(b), 0)
	thousandEntries(b, reg, 1000)
	var bytes int
	cpu, start := cputime.Used(), time.Now()
	for b.Loop() {
		s, err := New(Options{Bundles: b.TempDir(), Token: hubToken, Version: "test", Registry: reg, SchemaCheck: schema.Check})
		if err != nil {
			b.Fatal(err)
		}
		res, page := get(b, s, "/leaderboards", withToken(hubToken)...)
		if res.StatusCode != 200 || !strings.Contains(page, "Entries 1–100 of 1000") {
			b.Fatalf("%s", res.Status)
		}
		bytes = len(page)
		s.Close()
	}
	b.ReportMetric(float64((cputime.Used()-cpu).Milliseconds())/float64(b.N), "cpu-ms/op")
	b.ReportMetric(float64(time.Since(start).Milliseconds())/float64(b.N), "wall-ms/op")
	b.ReportMetric(float64(bytes), "page-bytes")
}

// TestDecodeStoredIsUnmarshal: the leaderboards' decoder gives what
// results.Unmarshal gives, on the fast path for real bundles (retrieval,
// with answers, sharded, with findings), and through results.Unmarshal
// for text only encoding/json reads (a member named in other case, a
// duplicate name, invalid UTF-8).
func TestDecodeStoredIsUnmarshal(t *testing.T) {
	var raws [][]byte
	for _, arms := range []string{stemmed, twoArms} {
		raws = append(raws, bundleBytes(t, sharedBundle(t, arms)))
	}
	rag, err := os.ReadFile("../../results/testdata/golden/rag.json") // answers, judges, findings
	if err != nil {
		t.Fatal(err)
	}
	raws = append(raws, rag)
	for _, raw := range raws {
		var fast results.Bundle
		if err := jsonv2.Unmarshal(raw, &fast, jsonv2.RejectUnknownMembers(true)); err != nil {
			t.Fatalf("not on the fast path: %v", err)
		}
		want, err := results.Unmarshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		if diff := cmp.Diff(want, &fast, cmp.AllowUnexported(results.Finding{})); diff != "" {
			t.Errorf("decoded differently (-results.Unmarshal +fast):\n%s", diff)
		}
	}
	raw := string(raws[0])
	for _, odd := range []string{
		strings.Replace(raw, `"run_id"`, `"Run_ID"`, 1),
		strings.Replace(raw, `{`, `{"run_id":"x",`, 1),
		strings.Replace(raw, `"query_id":"`, "\"query_id\":\"\xff", 1),
	} {
		got, err1 := decodeStored([]byte(odd))
		want, err2 := results.Unmarshal([]byte(odd))
		if (err1 == nil) != (err2 == nil) || (err1 == nil && !cmp.Equal(got, want, cmp.AllowUnexported(results.Finding{}))) {
			t.Errorf("%.60q…: decodeStored %v, results.Unmarshal %v", odd, err1, err2)
		}
	}
}
