package dashboard

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// BenchmarkSearchRequest measures GET /benchmark?ref=m&q=… over a SQLite
// registry holding 100,000 MS-MARCO-shaped entries (a question, an answer,
// three passages), the whole request through the handler, against the
// peer in the same run: one plain LIKE scan of the same rows
// (`SELECT COUNT(*) FROM entries WHERE data LIKE '%needle%'`, the entries'
// JSON, which holds the id, question and answer) on the same file through
// the same driver. cpu-ms/op is the process's CPU time per request.
// BENCHMARKS.md, "Dashboard search".
func BenchmarkSearchRequest(b *testing.B) {
	const n = 100000
	dir := b.TempDir()
	path := filepath.Join(dir, "m.jsonl")
	f, err := os.Create(path)
	if err != nil {
		b.Fatal(err)
	}
	w := bufio.NewWriter(f)
	for i := range n {
		k := 300 + i%200
		fmt.Fprintf(w, `{"id":"q%d","question":"what is the boiling point of compound %d in kelvin","answer":"about %d kelvin","contexts":["Compound %d boils at about %d kelvin under standard pressure, as measured in the laboratory.","Compound %d is a colourless liquid used as a solvent in many industrial processes.","Unrelated passage %d about the history of the laboratory and its staff over the years."]}`+"\n", i, i, k, i, k, i, i)
	}
	if err := w.Flush(); err != nil {
		b.Fatal(err)
	}
	f.Close()
	dsn := filepath.Join(dir, "registry.db")
	ctx := context.Background()
	reg, err := registry.Open(ctx, dsn)
	if err != nil {
		b.Fatal(err)
	}
	defer reg.Close()
	if _, err := reg.Create(ctx, "m", registry.Files{FS: os.DirFS(dir), Path: "m.jsonl"}); err != nil {
		b.Fatal(err)
	}
	s, err := New(Options{Bundles: b.TempDir(), Version: "test", Registry: reg})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Close()
	peer, err := sql.Open("sqlite", dsn+"?mode=ro")
	if err != nil {
		b.Fatal(err)
	}
	defer peer.Close()
	for _, tc := range []struct {
		name, q string
		page    int
		matches int
	}{
		{"selective", "compound 4242 in", 1, 1},  // one entry
		{"broad", "KELVIN", 1, n},                // every entry, page 1
		{"broad-last-page", "kelvin", n / 50, n}, // every entry, the last page
		{"none", "nowhere at all", 1, 0},
	} {
		target := benchmarkURL("m", tc.q, tc.page)
		b.Run("request/"+tc.name, func(b *testing.B) {
			res, body := get(b, s, target)
			want := fmt.Sprintf("of %d matching", tc.matches)
			if tc.matches == 0 {
				want = "no entry matches"
			}
			if res.StatusCode != http.StatusOK || !strings.Contains(body, want) {
				b.Fatalf("%s: %s, want %q:\n%.2000s", target, res.Status, want, body)
			}
			measure(b, func() { get(b, s, target) })
		})
		b.Run("like-scan/"+tc.name, func(b *testing.B) {
			measure(b, func() {
				var k int
				if err := peer.QueryRow(`SELECT COUNT(*) FROM entries WHERE data LIKE ?`, "%"+tc.q+"%").Scan(&k); err != nil {
					b.Fatal(err)
				}
			})
		})
	}
}

// measure runs fn b.N times and reports its CPU time per call.
func measure(b *testing.B, fn func()) {
	b.ReportAllocs()
	c0 := cputime.Used()
	for b.Loop() {
		fn()
	}
	b.ReportMetric(float64(cputime.Used()-c0)/float64(time.Millisecond)/float64(b.N), "cpu-ms/op")
}
