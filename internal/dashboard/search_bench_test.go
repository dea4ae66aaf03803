package dashboard

import (
	"bufio"
	"context"
	"database/sql"
	"fmt"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/internal/pgtest"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// BenchmarkSearchRequest measures GET /benchmark?ref=m&q=… over a registry
// holding 100,000 MS-MARCO-shaped entries (a question, an answer, three
// passages), the whole request through the handler, against the peer in
// the same run: one plain LIKE scan of the same rows (`SELECT COUNT(*)
// FROM entries WHERE data LIKE '%needle%'`, the entries' JSON, which
// holds the id, question and answer) in the same database through the
// same driver. Each op is one request, and every scanEvery-th op a scan
// too, so that both see the same load; it reports the median (p50) wall
// time of each, their ratio, and the CPU time of each (the process's, per
// call). The target (issue
// 39): the request's p50 at most 5 ms and at most half the scan's.
// SQLite always; PostgreSQL too with -tags postgres (the throwaway
// cluster of internal/pgtest). BENCHMARKS.md, "Dashboard search".
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
	for _, backend := range []struct {
		name   string
		dsn    func(b *testing.B) string
		driver string
		peer   func(dsn string) string
	}{
		{"sqlite", func(b *testing.B) string { return filepath.Join(b.TempDir(), "registry.db") }, "sqlite", func(dsn string) string { return dsn + "?mode=ro" }},
		{"postgres", func(b *testing.B) string { return pgtest.New(b).Database(b) }, "pgx", func(dsn string) string { return dsn }},
	} {
		b.Run(backend.name, func(b *testing.B) {
			dsn := backend.dsn(b)
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
			peer, err := sql.Open(backend.driver, backend.peer(dsn))
			if err != nil {
				b.Fatal(err)
			}
			defer peer.Close()
			like := `SELECT COUNT(*) FROM entries WHERE data LIKE ?`
			if backend.driver == "pgx" {
				like = `SELECT COUNT(*) FROM entries WHERE data LIKE $1`
				// The planner's statistics, as autovacuum would leave them.
				if _, err := peer.Exec(`ANALYZE`); err != nil {
					b.Fatal(err)
				}
			}
			more := "of more than " + thousands(searchCountLimit) + " matching"
			for _, tc := range []struct {
				name, q string
				page    int
				shown   string // what the page says
			}{
				{"selective", "compound 4242 in", 1, "entries 1–1 of 1 matching"},         // one entry
				{"broad", "KELVIN", 1, "entries 1–50 " + more},                            // every entry, page 1
				{"broad-long", "What is the boiling point of", 1, "entries 1–50 " + more}, // every entry, 26 trigrams
				{"broad-last-page", "kelvin", -1, "the last 50 entries " + more},          // every entry, the last page (the "last" link)
				{"broad-page-20", "kelvin", 20, "entries 951–1000 " + more},               // the 1,000th match
				{"broad-page-200", "kelvin", 200, "entries 9951–10000 " + more},           // the 10,000th match
				{"broad-page-2000", "kelvin", n / 50, "entries 99951–100000 " + more},     // the last page by its number: a walk of 99,950 matches
				{"none", "nowhere at all", 1, "no entry matches"},
				{"short", "q7", 1, "entries 1–50 " + more},  // two characters: a scan, cut at the count limit
				{"short-none", "zq", 1, "no entry matches"}, // two characters, no match: a whole scan of entry_text
			} {
				target := benchmarkURL("m", tc.q, tc.page)
				b.Run(tc.name, func(b *testing.B) {
					res, body := get(b, s, target)
					if res.StatusCode != http.StatusOK || !strings.Contains(body, tc.shown) {
						b.Fatalf("%s: %s, want %q:\n%.2000s", target, res.Status, tc.shown, body)
					}
					var req, scan samples
					scanOnce := func() {
						scan.time(func() {
							var k int
							if err := peer.QueryRow(like, "%"+strings.ToLower(tc.q)+"%").Scan(&k); err != nil {
								b.Fatal(err)
							}
						})
					}
					for b.Loop() {
						req.time(func() { get(b, s, target) })
						if len(req.wall)%scanEvery == 1 {
							scanOnce()
						}
					}
					for len(scan.wall) < 3 {
						scanOnce()
					}
					rp, sp := req.p50(), scan.p50()
					b.ReportMetric(ms(rp), "p50-ms")
					b.ReportMetric(ms(sp), "like-p50-ms")
					b.ReportMetric(float64(rp)/float64(sp), "p50/like")
					met := "met"
					if rp > 5*time.Millisecond || 2*rp > sp {
						met = "NOT met"
					}
					b.Logf("%s: request p50 %.2f ms, LIKE scan p50 %.1f ms (%.3f×): the target (≤ 5 ms and ≤ 0.5×) %s", tc.name, ms(rp), ms(sp), float64(rp)/float64(sp), met)
					b.ReportMetric(ms(req.cpu)/float64(len(req.wall)), "cpu-ms/op")
					b.ReportMetric(ms(scan.cpu)/float64(len(scan.wall)), "like-cpu-ms/op")
				})
			}
		})
	}
}

// scanEvery is how many requests BenchmarkSearchRequest makes per LIKE
// scan: the two are interleaved, so that both see the same load, but
// each scan reads the whole table, which leaves the CPU's caches cold for
// the request after it, as a server that serves nothing else would not.
const scanEvery = 5

// samples are the wall times of the calls of one kind in a benchmark, and
// the process's CPU time they took in all.
type samples struct {
	wall []time.Duration
	cpu  time.Duration
}

func (s *samples) time(fn func()) {
	c0, t0 := cputime.Used(), time.Now()
	fn()
	s.wall = append(s.wall, time.Since(t0))
	s.cpu += cputime.Used() - c0
}

// p50 is the median wall time (the lower middle of an even count).
func (s *samples) p50() time.Duration {
	w := slices.Clone(s.wall)
	slices.Sort(w)
	return w[(len(w)-1)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }
