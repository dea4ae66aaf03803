package main

import (
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/lasagna-go/lasagna/internal/corpusgen"
)

// writeBEIR writes a generated BEIR folder of n passages and nq queries
// (each judged relevant to the passage its words come from) under dir and
// returns its path and the corpus file's size.
func writeBEIR(tb testing.TB, dir string, n, nq int) (string, int64) {
	tb.Helper()
	docs, queries, sources := corpusgen.ZipfJudged(n, nq)
	root := filepath.Join(dir, fmt.Sprintf("zipf-%d", n))
	if err := os.MkdirAll(filepath.Join(root, "qrels"), 0o755); err != nil {
		tb.Fatal(err)
	}
	var c, q, j strings.Builder
	enc := func(b *strings.Builder, v any) {
		data, err := json.Marshal(v)
		if err != nil {
			tb.Fatal(err)
		}
		b.Write(data)
		b.WriteByte('\n')
	}
	for _, d := range docs {
		enc(&c, map[string]string{"_id": d.ID, "title": "", "text": d.Text})
	}
	j.WriteString("query-id\tcorpus-id\tscore\n")
	for i, text := range queries {
		id := fmt.Sprintf("q%05d", i)
		enc(&q, map[string]string{"_id": id, "text": text})
		fmt.Fprintf(&j, "%s\t%s\t1\n", id, sources[i])
	}
	for name, data := range map[string]string{"corpus.jsonl": c.String(), "queries.jsonl": q.String(), "qrels/test.tsv": j.String()} {
		if err := os.WriteFile(filepath.Join(root, name), []byte(data), 0o644); err != nil {
			tb.Fatal(err)
		}
	}
	return root, int64(c.Len())
}

// BenchmarkRunDepth runs `lasagna benchmark run DIR --profile speed
// --top-k K` in a child process on a generated BEIR folder of 10,000
// passages and 1,000 queries, at K = 10 and K = 1,000, and reports the
// child's CPU seconds (user + system), its peak resident memory and the
// bundle's size per kept hit. Set LASAGNA_DEPTH_PASSAGES to change the
// corpus size (500000 for the memory-per-corpus-byte check).
func BenchmarkRunDepth(b *testing.B) {
	n := 10_000
	if v := os.Getenv("LASAGNA_DEPTH_PASSAGES"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n < 1 {
			b.Fatalf("LASAGNA_DEPTH_PASSAGES=%q: want a positive number", v)
		}
	}
	dir := b.TempDir()
	data, corpusBytes := writeBEIR(b, dir, n, 1000)
	for _, k := range []int{10, 1000} {
		b.Run(fmt.Sprintf("top-k=%d", k), func(b *testing.B) {
			var cpu, rss float64
			var size int64
			for b.Loop() {
				out := filepath.Join(dir, fmt.Sprintf("b%d.json", k))
				cmd := exec.Command(os.Args[0], "benchmark", "run", data, "--profile", "speed", "--top-k", fmt.Sprint(k), "-o", out)
				cmd.Env = append(os.Environ(), "LASAGNA_TEST_CLI_CHILD=1", "LASAGNA_CACHE_DIR="+filepath.Join(dir, "cache"))
				if msg, err := cmd.CombinedOutput(); err != nil {
					b.Fatalf("%v\n%s", err, msg)
				}
				ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
				cpu += float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
				rss = max(rss, float64(ru.Maxrss)*1024) // Linux reports KiB
				st, err := os.Stat(out)
				if err != nil {
					b.Fatal(err)
				}
				size = st.Size()
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
			b.ReportMetric(rss/(1<<20), "peak-MiB")
			b.ReportMetric(rss/float64(corpusBytes), "peak/corpus")
			b.ReportMetric(float64(size)/float64(1000*k), "bundle-B/hit")
		})
	}
}
