package bm25

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/corpusgen"
	"github.com/lasagna-go/lasagna/internal/cputime"
)

// BenchmarkIndex builds an index over 20,000 generated passages.
func BenchmarkIndex(b *testing.B) {
	docs, _ := corpusgen.Zipf(20_000, 0)
	b.ReportAllocs()
	cpu := cputime.Used()
	for b.Loop() {
		if _, err := Build(docs, DefaultOptions()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64((cputime.Used()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(len(docs))*float64(b.N)/b.Elapsed().Seconds(), "docs/s")
}

// BenchmarkSearch runs single-threaded top-100 queries against an index of
// 20,000 generated passages.
func BenchmarkSearch(b *testing.B) {
	docs, queries := corpusgen.Zipf(20_000, 1000)
	ix, err := Build(docs, DefaultOptions())
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	cpu := cputime.Used()
	for b.Loop() {
		ix.Search(queries[i%len(queries)], 100)
		i++
	}
	b.ReportMetric(float64((cputime.Used()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "queries/s")
}

// BenchmarkAnalyzers tokenises 20,000 generated passages, builds an index
// over them and runs single-threaded top-100 queries with each analyzer: the default, and
// Lucene's with Lucene's norms. The passages are the generated corpus as it
// is (lower-case words and spaces: the segmenter's fast path) and the same
// words punctuated like prose (capitals, commas, full stops, possessives,
// hyphens, decimals and abbreviations), where most tokens go through the
// full UAX#29 rules.
func BenchmarkAnalyzers(b *testing.B) {
	plain, queries := corpusgen.Zipf(20_000, 1000)
	for _, c := range []struct {
		name string
		docs []lasagna.Document
	}{{"zipf", plain}, {"prose", punctuate(plain)}} {
		size := 0
		for _, d := range c.docs {
			size += len(d.Title) + len(d.Text)
		}
		for _, a := range []struct {
			name string
			opts Options
		}{
			{"default", DefaultOptions()},
			{"lucene", Options{Analyzer: AnalyzerLucene, Stemming: true, Norms: NormsLucene}},
		} {
			b.Run("tokenize/"+c.name+"/"+a.name, func(b *testing.B) {
				b.SetBytes(int64(size))
				tok := tokenizer{lucene: a.opts.Analyzer == AnalyzerLucene}
				n := 0
				cpu := cputime.Used()
				for b.Loop() {
					for _, d := range c.docs {
						tok.scan(d.Text, func([]byte) { n++ })
					}
				}
				b.ReportMetric(float64(size)*float64(b.N)/(cputime.Used()-cpu).Seconds()/1e6, "cpu-MB/s")
			})
			b.Run("index/"+c.name+"/"+a.name, func(b *testing.B) {
				b.SetBytes(int64(size))
				b.ReportAllocs()
				cpu := cputime.Used()
				for b.Loop() {
					if _, err := Build(c.docs, a.opts); err != nil {
						b.Fatal(err)
					}
				}
				b.ReportMetric(float64((cputime.Used()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			})
			b.Run("search/"+c.name+"/"+a.name, func(b *testing.B) {
				ix, err := Build(c.docs, a.opts)
				if err != nil {
					b.Fatal(err)
				}
				b.ReportAllocs()
				i := 0
				cpu := cputime.Used()
				for b.Loop() {
					ix.Search(queries[i%len(queries)], 100)
					i++
				}
				b.ReportMetric(float64((cputime.Used()-cpu).Microseconds())/float64(b.N), "cpu-µs/op")
			})
		}
	}
}

// punctuate returns docs with their words set as prose, deterministically:
// sentences of 6–20 words, capitalised, ending in a full stop; a comma
// after 1 word in 12; and 1 word in 25 each made a possessive ('s),
// hyphenated with the next, or followed by a decimal or "e.g.".
func punctuate(docs []lasagna.Document) []lasagna.Document {
	r := rand.New(rand.NewPCG(7, 11))
	out := make([]lasagna.Document, len(docs))
	var sb strings.Builder
	for i, d := range docs {
		sb.Reset()
		left := 0
		for j, w := range strings.Fields(d.Text) {
			if j > 0 {
				sb.WriteByte(' ')
			}
			if left == 0 {
				left = 6 + r.IntN(15)
				w = strings.ToUpper(w[:1]) + w[1:]
			}
			sb.WriteString(w)
			switch r.IntN(25) {
			case 0:
				sb.WriteString("'s")
			case 1:
				sb.WriteByte('-')
				left++
			case 2:
				fmt.Fprintf(&sb, " %d.%d", r.IntN(100), r.IntN(10))
			case 3:
				sb.WriteString(" e.g.")
			}
			left--
			switch {
			case left == 0:
				sb.WriteByte('.')
			case r.IntN(12) == 0:
				sb.WriteByte(',')
			}
		}
		out[i] = lasagna.Document{ID: d.ID, Title: d.Title, Text: strings.ReplaceAll(sb.String(), "- ", "-")}
	}
	return out
}
