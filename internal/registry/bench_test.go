package registry_test

import (
	"bufio"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/internal/pgtest"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// msmarcoShaped returns n JSONL rows shaped like MS MARCO: a short query,
// one answer and three passages, one of them the expected document.
func msmarcoShaped(n int) []byte {
	var b strings.Builder
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, `{"id":"q%d","question":"what is the boiling point of compound %d in kelvin","answer":"about %d kelvin","contexts":["Compound %d boils at about %d kelvin under standard pressure, as measured in the laboratory.","Compound %d is a colourless liquid used as a solvent in many industrial processes.","Unrelated passage %d about the history of the laboratory and its staff over the years."]}`+"\n", i, i, 300+i%200, i, 300+i%200, i, i)
	}
	return []byte(b.String())
}

// BenchmarkImport measures Create of an MS-MARCO-shaped JSONL file
// without a corpus (the corpus pooled from the rows' contexts, streamed by
// datasets.StreamPooled) from disk into each backend: validation, storage of the
// bytes and of one row per entry, in one transaction. peak-heap-MiB
// samples the heap during the import only.
func BenchmarkImport(b *testing.B) {
	for _, be := range []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return filepath.Join(b.TempDir(), "r.db") }},
		{"postgres", func(b *testing.B) string { return pgtest.Database(b) }},
	} {
		for _, n := range []int{1000, 10000, 100000, 300000} {
			b.Run(fmt.Sprintf("%s/%d", be.name, n), func(b *testing.B) {
				// from disk, so that the heap holds the import only
				dir := b.TempDir()
				data := msmarcoShaped(n)
				if err := os.WriteFile(filepath.Join(dir, "m.jsonl"), data, 0o644); err != nil {
					b.Fatal(err)
				}
				b.SetBytes(int64(len(data)))
				data = nil
				var peak float64
				for i := 0; b.Loop(); i++ {
					r, err := registry.Open(bg(), be.dsn(b))
					if err != nil {
						b.Fatal(err)
					}
					runtime.GC()
					stop := cputime.PeakHeap()
					inf, err := r.Create(bg(), "m", registry.Files{FS: os.DirFS(dir), Path: "m.jsonl"})
					peak = max(peak, stop())
					if err != nil {
						b.Fatal(err)
					}
					if inf.Questions != n || inf.Documents != 3*n {
						b.Fatalf("%d questions, %d documents; want %d, %d", inf.Questions, inf.Documents, n, 3*n)
					}
					r.Close()
				}
				b.ReportMetric(peak, "peak-heap-MiB")
				b.ReportMetric(float64(n), "entries/op")
			})
		}
	}
}

// writeMSMARCOFiles writes n MS-MARCO-shaped entries as registry/hf
// converts them: rows.jsonl (a query, one answer, the selected passage as
// expected_docs, query_id and query_type as metadata) and corpus.jsonl
// (nine distinct ~150-byte passages per row, so 100,000 rows hold 900,000
// documents).
func writeMSMARCOFiles(b *testing.B, dir string, n int) {
	b.Helper()
	write := func(name string, fill func(w *bufio.Writer)) {
		f, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			b.Fatal(err)
		}
		w := bufio.NewWriterSize(f, 1<<20)
		fill(w)
		if err := w.Flush(); err != nil {
			b.Fatal(err)
		}
		if err := f.Close(); err != nil {
			b.Fatal(err)
		}
	}
	write("rows.jsonl", func(w *bufio.Writer) {
		for i := 0; i < n; i++ {
			fmt.Fprintf(w, `{"id":"q%d","question":"what is the boiling point of compound %d in kelvin","answer":"about %d kelvin","expected_docs":["d%d"],"metadata":{"query_id":%d,"query_type":"NUMERIC"}}`+"\n", i, i, 300+i%200, i*9+i%9, i)
		}
	})
	write("corpus.jsonl", func(w *bufio.Writer) {
		for k := 0; k < 9*n; k++ {
			fmt.Fprintf(w, `{"_id":"d%d","title":"","text":"Passage %d: compound %d boils at about %d kelvin under standard pressure, as measured in the laboratory of site %d over the years."}`+"\n", k, k, k%997, 300+k%200, k%13)
		}
	})
}

// BenchmarkImportStreamed measures registry.Import of MS-MARCO-shaped
// files (writeMSMARCOFiles) into each backend: validation by the datasets
// loader, the files stored in chunks, one row per entry, one transaction.
// peak-heap-MiB samples the heap during the import only.
func BenchmarkImportStreamed(b *testing.B) {
	for _, be := range []struct {
		name string
		dsn  func(b *testing.B) string
	}{
		{"sqlite", func(b *testing.B) string { return filepath.Join(b.TempDir(), "r.db") }},
		{"postgres", func(b *testing.B) string { return pgtest.Database(b) }},
	} {
		for _, n := range []int{10000, 100000, 300000} {
			b.Run(fmt.Sprintf("%s/%d", be.name, n), func(b *testing.B) {
				dir := b.TempDir()
				writeMSMARCOFiles(b, dir, n)
				files := registry.Files{FS: os.DirFS(dir), Path: "rows.jsonl", Format: registry.FormatJSONL, Corpus: "corpus.jsonl"}
				var peak float64
				for b.Loop() {
					r, err := registry.Open(bg(), be.dsn(b))
					if err != nil {
						b.Fatal(err)
					}
					runtime.GC()
					stop := cputime.PeakHeap()
					inf, err := r.Create(bg(), "m", files)
					peak = max(peak, stop())
					if err != nil {
						b.Fatal(err)
					}
					if inf.Questions != n {
						b.Fatalf("%d questions, want %d", inf.Questions, n)
					}
					r.Close()
				}
				b.ReportMetric(peak, "peak-heap-MiB")
				b.ReportMetric(float64(n), "entries/op")
			})
		}
	}
}
