package main

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/lasagna-go/lasagna/internal/corpusgen"
)

// writeBEIR writes a generated BEIR folder of n passages and nq queries
// (each judged relevant to the passage its words come from) under dir and
// returns its path and the corpus file's size.
func writeBEIR(dir string, n, nq int) (string, int64, error) {
	docs, queries, sources := corpusgen.ZipfJudged(n, nq)
	root := filepath.Join(dir, fmt.Sprintf("zipf-%d", n))
	if err := os.MkdirAll(filepath.Join(root, "qrels"), 0o755); err != nil {
		return "", 0, err
	}
	write := func(name string, fill func(w *bufio.Writer) error) (int64, error) {
		f, err := os.Create(filepath.Join(root, name))
		if err != nil {
			return 0, err
		}
		defer f.Close()
		w := bufio.NewWriter(f)
		if err := fill(w); err != nil {
			return 0, err
		}
		if err := w.Flush(); err != nil {
			return 0, err
		}
		st, err := f.Stat()
		if err != nil {
			return 0, err
		}
		return st.Size(), f.Close()
	}
	line := func(w *bufio.Writer, v any) error {
		data, err := json.Marshal(v)
		if err != nil {
			return err
		}
		w.Write(data)
		return w.WriteByte('\n')
	}
	size, err := write("corpus.jsonl", func(w *bufio.Writer) error {
		for _, d := range docs {
			if err := line(w, map[string]string{"_id": d.ID, "title": "", "text": d.Text}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		return "", 0, err
	}
	if _, err := write("queries.jsonl", func(w *bufio.Writer) error {
		for i, text := range queries {
			if err := line(w, map[string]string{"_id": fmt.Sprintf("q%05d", i), "text": text}); err != nil {
				return err
			}
		}
		return nil
	}); err != nil {
		return "", 0, err
	}
	if _, err := write("qrels/test.tsv", func(w *bufio.Writer) error {
		w.WriteString("query-id\tcorpus-id\tscore\n")
		for i := range queries {
			fmt.Fprintf(w, "q%05d\t%s\t1\n", i, sources[i])
		}
		return nil
	}); err != nil {
		return "", 0, err
	}
	return root, size, nil
}

// With LASAGNA_TEST_DEPTH_WRITE=DIR:N the test binary writes the BEIR folder
// of N passages under DIR, prints its path and the corpus size, and exits.
// BenchmarkRunDepth writes its data this way, in a child process, so that
// the memory of the generated corpus never counts in the peak of the
// measured run: Linux carries the parent's peak resident size into a child
// started by fork and exec (its ru_maxrss is at least the parent's).
func init() {
	arg := os.Getenv("LASAGNA_TEST_DEPTH_WRITE")
	if arg == "" {
		return
	}
	i := strings.LastIndexByte(arg, ':')
	n, err := strconv.Atoi(arg[i+1:])
	dir := arg[:max(i, 0)]
	if err != nil || n < 1 {
		fmt.Fprintf(os.Stderr, "LASAGNA_TEST_DEPTH_WRITE=%q: want DIR:N with N a positive number\n", arg)
		os.Exit(2)
	}
	root, size, err := writeBEIR(dir, n, 1000)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(root, size)
	os.Exit(0)
}

// keptHits counts the hits of every _retrieved list of the named bundle,
// streaming, so that the benchmark process stays small.
func keptHits(name string) (int64, error) {
	f, err := os.Open(name)
	if err != nil {
		return 0, err
	}
	defer f.Close()
	d := jsontext.NewDecoder(bufio.NewReader(f))
	var hits int64
	for {
		tok, err := d.ReadToken()
		if err == io.EOF {
			return hits, nil
		}
		if err != nil {
			return 0, err
		}
		if tok.Kind() != '[' || !strings.HasSuffix(string(d.StackPointer()), "/_retrieved") {
			continue
		}
		for d.PeekKind() != ']' {
			if err := d.SkipValue(); err != nil {
				return 0, err
			}
			hits++
		}
	}
}

// BenchmarkRunDepth runs `lasagna benchmark run DIR --profile speed
// --top-k K` in a child process on a generated BEIR folder of 10,000
// passages and 1,000 queries, at K = 10 and K = 1,000, and reports the
// child's CPU seconds (user + system), its peak resident memory (also as a
// multiple of the corpus file's bytes), the bundle's size per kept hit
// (hits the bundle's rows hold: a query keeps fewer than K when fewer
// passages share a term with it) and the kept hits per query. Set
// LASAGNA_DEPTH_PASSAGES to change the corpus size (500000 for the
// memory-per-corpus-byte check). The folder is written by another child
// (see init), so the benchmark process stays small: a child's peak
// memory includes its parent's.
func BenchmarkRunDepth(b *testing.B) {
	n := 10_000
	if v := os.Getenv("LASAGNA_DEPTH_PASSAGES"); v != "" {
		if _, err := fmt.Sscan(v, &n); err != nil || n < 1 {
			b.Fatalf("LASAGNA_DEPTH_PASSAGES=%q: want a positive number", v)
		}
	}
	dir := b.TempDir()
	gen := exec.Command(os.Args[0])
	gen.Env = append(os.Environ(), fmt.Sprintf("LASAGNA_TEST_DEPTH_WRITE=%s:%d", dir, n))
	msg, err := gen.Output()
	if err != nil {
		b.Fatalf("write the BEIR folder: %v\n%s", err, msg)
	}
	var data string
	var corpusBytes int64
	if _, err := fmt.Sscan(string(msg), &data, &corpusBytes); err != nil {
		b.Fatalf("write the BEIR folder: %q: %v", msg, err)
	}
	for _, k := range []int{10, 1000} {
		b.Run(fmt.Sprintf("top-k=%d", k), func(b *testing.B) {
			var cpu, rss float64
			var size, hits int64
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
				if hits, err = keptHits(out); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(cpu/float64(b.N), "cpu-s/op")
			b.ReportMetric(rss/(1<<20), "peak-MiB")
			b.ReportMetric(rss/float64(corpusBytes), "peak/corpus")
			b.ReportMetric(float64(size)/float64(hits), "bundle-B/hit")
			b.ReportMetric(float64(hits)/1000, "hits/query")
		})
	}
}

// childRun runs the test binary as the lasagna command with args and
// returns its CPU seconds (user + system) and peak resident MiB.
func childRun(b *testing.B, dir string, args ...string) (cpu, peakMiB float64) {
	b.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), "LASAGNA_TEST_CLI_CHILD=1", "LASAGNA_CACHE_DIR="+filepath.Join(dir, "cache"))
	if msg, err := cmd.CombinedOutput(); err != nil {
		b.Fatalf("lasagna %s: %v\n%s", strings.Join(args, " "), err, msg)
	}
	ru := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	return float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9, float64(ru.Maxrss) / 1024 // Linux reports KiB
}

// BenchmarkValidateDepth measures `lasagna results validate` of the bundle
// a depth-1000 run writes (BenchmarkRunDepth's data: 10,000 passages,
// 1,000 queries, --top-k 1000), against the run that wrote it, each in a
// child process: the run's and the validation's CPU seconds, their ratio
// (the target is at most 3) and the validation's peak resident memory
// (at most 300 MiB), and the same for validate --data, which re-scores
// every row against the data.
func BenchmarkValidateDepth(b *testing.B) {
	dir := b.TempDir()
	gen := exec.Command(os.Args[0])
	gen.Env = append(os.Environ(), fmt.Sprintf("LASAGNA_TEST_DEPTH_WRITE=%s:%d", dir, 10_000))
	msg, err := gen.Output()
	if err != nil {
		b.Fatalf("write the BEIR folder: %v\n%s", err, msg)
	}
	data := strings.Fields(string(msg))[0]
	bundle := filepath.Join(dir, "b.json")
	var runCPU, valCPU, valMiB, dataCPU, dataMiB float64
	for b.Loop() {
		c, _ := childRun(b, dir, "benchmark", "run", data, "--profile", "speed", "--top-k", "1000", "-o", bundle)
		runCPU += c
		c, m := childRun(b, dir, "results", "validate", bundle)
		valCPU += c
		valMiB = max(valMiB, m)
		c, m = childRun(b, dir, "results", "validate", bundle, "--data", data)
		dataCPU += c
		dataMiB = max(dataMiB, m)
	}
	st, err := os.Stat(bundle)
	if err != nil {
		b.Fatal(err)
	}
	n := float64(b.N)
	b.ReportMetric(float64(st.Size())/(1<<20), "bundle-MiB")
	b.ReportMetric(runCPU/n, "run-cpu-s")
	b.ReportMetric(valCPU/n, "validate-cpu-s")
	b.ReportMetric(valCPU/runCPU, "validate/run")
	b.ReportMetric(valMiB, "validate-peak-MiB")
	b.ReportMetric(dataCPU/n, "data-cpu-s")
	b.ReportMetric(dataCPU/runCPU, "data/run")
	b.ReportMetric(dataMiB, "data-peak-MiB")
}
