package datasets

import (
	"fmt"
	"math/rand/v2"
	"runtime"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/cputime"
)

var benchWords = strings.Fields(`the of and glass coin silica soda lime furnace mint silver gold
	melting point emperor reform weight temperature annealing lehr blown vessel window tin
	float process copper bronze struck die hammer press steam engine century trade bank
	florin ducat solidus denarius tetradrachm owl lion electrum alloy purity assay touchstone
	café naïve "quoted" résumé 2024 1.5 percent grams ounces pound pence shilling`)

// benchText returns about n bytes of JSON-escaped text (some words need
// escapes, as real corpora do).
func benchText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		w := benchWords[r.IntN(len(benchWords))]
		if strings.Contains(w, `"`) {
			w = strings.ReplaceAll(w, `"`, `\"`)
		}
		b.WriteString(w)
		b.WriteByte(' ')
	}
	return b.String()
}

// benchJSONL generates a JSONL benchmark of about size bytes: rows with a
// question, an answer, two or three ~600-byte contexts (some shared by the
// next row) and metadata.
func benchJSONL(size int) []byte {
	r := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	prev := ""
	for i := 0; b.Len() < size; i++ {
		ctx := []string{benchText(r, 600), benchText(r, 600)}
		if i%4 == 1 {
			ctx = append(ctx, prev)
		}
		prev = ctx[0]
		fmt.Fprintf(&b, `{"id": "q%d", "question": "%s?", "answer": "%s", "contexts": ["%s"], "metadata": {"question_type": "factoid", "hops": %d}}`+"\n",
			i, benchText(r, 60), benchText(r, 30), strings.Join(ctx, `", "`), 1+i%2)
	}
	return []byte(b.String())
}

// benchCorpus generates a BEIR corpus.jsonl of about size bytes with
// ~1 KB documents, and a few queries and judgements.
func benchBEIR(size int) (fstest.MapFS, int) {
	r := rand.New(rand.NewPCG(2, 2))
	var c, q, j strings.Builder
	n := 0
	for ; c.Len() < size; n++ {
		fmt.Fprintf(&c, `{"_id": "doc%d", "title": "%s", "text": "%s", "metadata": {}}`+"\n", n, benchText(r, 40), benchText(r, 1000))
	}
	for i := range 1000 {
		fmt.Fprintf(&q, `{"_id": "q%d", "text": "%s"}`+"\n", i, benchText(r, 60))
		fmt.Fprintf(&j, "q%d\tdoc%d\t1\n", i, r.IntN(n))
	}
	fsys := mapFS(map[string]string{"b/corpus.jsonl": c.String(), "b/queries.jsonl": q.String(), "b/qrels/test.tsv": "query-id\tcorpus-id\tscore\n" + j.String()})
	return fsys, c.Len() + q.Len() + j.Len()
}

// The loader benchmarks report, beside wall-clock MB/s, "cpu-MB/s" (input
// bytes per second of process CPU time, GC included: the figure that does
// not depend on other load on the machine), "alloc-B/B" (bytes allocated
// per input byte) and "heap-B/B" (live heap of one loaded benchmark per
// input byte: about 1 means the corpus is held once).

func BenchmarkLoadJSONL(b *testing.B) {
	data := benchJSONL(32 << 20)
	fsys := fstest.MapFS{"bench.jsonl": {Data: data}}
	benchLoad(b, fsys, "bench.jsonl", len(data))
}

func benchLoad(b *testing.B, fsys fstest.MapFS, path string, size int) {
	b.SetBytes(int64(size))
	b.ReportAllocs()
	var ms0, ms1 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms0)
	cpu0, n := cputime.Used(), 0
	for b.Loop() {
		if _, err := Load(fsys, path, Options{}); err != nil {
			b.Fatal(err)
		}
		n++
	}
	cpu := cputime.Used() - cpu0
	runtime.ReadMemStats(&ms1)
	// Heap kept by one loaded benchmark, per input byte.
	var ms2, ms3 runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&ms2)
	bm, _ := Load(fsys, path, Options{})
	runtime.GC()
	runtime.ReadMemStats(&ms3)
	runtime.KeepAlive(bm)
	runtime.KeepAlive(fsys)
	b.ReportMetric(float64(ms3.HeapAlloc-ms2.HeapAlloc)/float64(size), "heap-B/B")
	if cpu > 0 {
		b.ReportMetric(float64(size)*float64(n)/cpu.Seconds()/1e6, "cpu-MB/s")
	}
	b.ReportMetric(float64(ms1.TotalAlloc-ms0.TotalAlloc)/float64(n)/float64(size), "alloc-B/B")
}

func BenchmarkLoadBEIRCorpus(b *testing.B) {
	fsys, size := benchBEIR(40 << 20)
	benchLoad(b, fsys, "b", size)
}
