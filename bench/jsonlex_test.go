package bench

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"
	"testing/fstest"

	jsonv2 "github.com/go-json-experiment/json"
	"github.com/go-json-experiment/json/jsontext"

	"github.com/lasagna-go/lasagna/internal/cputime"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

// The JSONL loader comparison (issue 12, item 7): does
// github.com/go-json-experiment/json keep 100 MB per CPU-second on
// benchmark rows, so that it could replace datasets' hand-written lexer?
// Three readers of the same 32 MB JSONL file:
//
//   - lasagna: datasets.Load, the whole loader (lexer, validation, pooling
//     the contexts into a corpus, building the benchmark);
//   - jsontext: jsontext.Decoder reading every token of every line and
//     unquoting every string, the least a loader built on it would do;
//   - json-v2: json.Unmarshal (go-json-experiment) of each line into a
//     struct with the row's fields.
//
// Each reports cpu-MB/s: input bytes per second of process CPU time.

var jsonlWords = strings.Fields(`the of and glass coin silica soda lime furnace mint silver gold
	melting point emperor reform weight temperature annealing lehr blown vessel window tin
	float process copper bronze struck die hammer press steam engine century trade bank
	café naïve "quoted" résumé 2024 1.5 percent grams ounces pound pence shilling`)

func jsonlText(r *rand.Rand, n int) string {
	var b strings.Builder
	for b.Len() < n {
		w := jsonlWords[r.IntN(len(jsonlWords))]
		b.WriteString(strings.ReplaceAll(w, `"`, `\"`))
		b.WriteByte(' ')
	}
	return b.String()
}

// jsonlRows is the shape of datasets' own loader benchmark: rows with a
// question, an answer, two or three ~600-byte contexts and metadata.
func jsonlRows(size int) []byte {
	r := rand.New(rand.NewPCG(1, 1))
	var b strings.Builder
	prev := ""
	for i := 0; b.Len() < size; i++ {
		ctx := []string{jsonlText(r, 600), jsonlText(r, 600)}
		if i%4 == 1 {
			ctx = append(ctx, prev)
		}
		prev = ctx[0]
		fmt.Fprintf(&b, `{"id": "q%d", "question": "%s?", "answer": "%s", "contexts": ["%s"], "metadata": {"question_type": "factoid", "hops": %d}}`+"\n",
			i, jsonlText(r, 60), jsonlText(r, 30), strings.Join(ctx, `", "`), 1+i%2)
	}
	return []byte(b.String())
}

type jsonlRow struct {
	ID       string         `json:"id"`
	Question string         `json:"question"`
	Answer   string         `json:"answer"`
	Contexts []string       `json:"contexts"`
	Metadata map[string]any `json:"metadata"`
}

func BenchmarkJSONL(b *testing.B) {
	data := jsonlRows(32 << 20)
	lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
	report := func(b *testing.B, cpu0 int64, n int) {
		used := cputime.Used().Nanoseconds() - cpu0
		if used > 0 {
			b.ReportMetric(float64(len(data))*float64(n)/(float64(used)/1e9)/1e6, "cpu-MB/s")
		}
	}
	b.Run("lasagna", func(b *testing.B) {
		fsys := fstest.MapFS{"rows.jsonl": {Data: data}}
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		cpu, n := cputime.Used().Nanoseconds(), 0
		for b.Loop() {
			bm, err := datasets.Load(fsys, "rows.jsonl", datasets.Options{})
			if err != nil {
				b.Fatal(err)
			}
			if len(bm.Queries) != len(lines) {
				b.Fatalf("%d queries, want %d", len(bm.Queries), len(lines))
			}
			n++
		}
		report(b, cpu, n)
	})
	b.Run("jsontext", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		cpu, n := cputime.Used().Nanoseconds(), 0
		var r bytes.Reader
		dec := jsontext.NewDecoder(&r)
		for b.Loop() {
			strs := 0
			for _, l := range lines {
				r.Reset(l)
				dec.Reset(&r)
				for {
					tok, err := dec.ReadToken()
					if err != nil {
						break
					}
					if tok.Kind() == '"' {
						_ = tok.String()
						strs++
					}
				}
			}
			if strs < 5*len(lines) {
				b.Fatalf("%d strings in %d lines", strs, len(lines))
			}
			n++
		}
		report(b, cpu, n)
	})
	b.Run("json-v2", func(b *testing.B) {
		b.SetBytes(int64(len(data)))
		b.ReportAllocs()
		cpu, n := cputime.Used().Nanoseconds(), 0
		for b.Loop() {
			for _, l := range lines {
				var row jsonlRow
				if err := jsonv2.Unmarshal(l, &row); err != nil {
					b.Fatal(err)
				}
			}
			n++
		}
		report(b, cpu, n)
	})
}
