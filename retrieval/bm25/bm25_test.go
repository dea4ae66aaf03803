package bm25

import (
	"context"
	"fmt"
	"maps"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/corpusgen"
)

// tiny is the hand-computed corpus. Without stemming, stopwords dropped:
//
//	a: apple banana apple      dl 3  (apple tf 2, banana tf 1)
//	b: banana cherry           dl 2
//	c: cherry cherry cherry date  dl 4
//	d: the of and              dl 0  (all stopwords)
//
// N = 4, avgdl = (3+2+4+0)/4 = 2.25.
// df: apple 1, banana 2, cherry 2, date 1.
// idf(df=1) = ln(1 + (4−1+0.5)/(1+0.5)) = ln(1 + 3.5/1.5) = ln(3.3333…) = 1.2039728
// idf(df=2) = ln(1 + (4−2+0.5)/(2+0.5)) = ln(1 + 1)      = ln 2        = 0.6931472
var tiny = []lasagna.Document{
	{ID: "a", Text: "apple banana apple"},
	{ID: "b", Text: "banana cherry"},
	{ID: "c", Text: "cherry cherry cherry date"},
	{ID: "d", Text: "the of and"},
}

func build(t *testing.T, docs []lasagna.Document, opts Options) *Index {
	t.Helper()
	ix, err := Build(docs, opts)
	if err != nil {
		t.Fatal(err)
	}
	return ix
}

func checkHits(t *testing.T, what string, got, want []lasagna.Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: got %d hits %v, want %d %v", what, len(got), got, len(want), want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-5*math.Max(1, want[i].Score) {
			t.Errorf("%s: rank %d = %v, want %v", what, i+1, got[i], want[i])
		}
	}
}

func TestHandComputedLucene(t *testing.T) {
	// k1 = 1.2, b = 0.75: norm(d) = k1·(1 − b + b·dl/avgdl)
	//   norm(a) = 1.2·(0.25 + 0.75·3/2.25) = 1.2·1.25     = 1.5
	//   norm(b) = 1.2·(0.25 + 0.75·2/2.25) = 1.2·0.916667 = 1.1
	//   norm(c) = 1.2·(0.25 + 0.75·4/2.25) = 1.2·1.583333 = 1.9
	ix := build(t, tiny, Options{K1: 1.2, B: 0.75})
	if ix.AvgDocLen() != 2.25 || ix.Len() != 4 || ix.Terms() != 4 || ix.Postings() != 6 {
		t.Errorf("avgdl %v, N %d, terms %d, postings %d; want 2.25, 4, 4, 6", ix.AvgDocLen(), ix.Len(), ix.Terms(), ix.Postings())
	}
	// "banana cherry":
	//   b: 2 · 0.6931472·1·2.2/(1+1.1)  = 2 · 0.7261542 = 1.4523084
	//   c: 0.6931472·3·2.2/(3+1.9)      = 0.6931472·6.6/4.9 = 0.9336268
	//   a: 0.6931472·1·2.2/(1+1.5)      = 0.6931472·0.88    = 0.6099695
	checkHits(t, "banana cherry", ix.Search("banana cherry", 10), []lasagna.Hit{
		{ID: "b", Score: 1.4523084}, {ID: "c", Score: 0.9336268}, {ID: "a", Score: 0.6099695},
	})
	// "apple": a: 1.2039728·2·2.2/(2+1.5) = 1.2039728·4.4/3.5 = 1.5135658
	checkHits(t, "apple", ix.Search("apple", 10), []lasagna.Hit{{ID: "a", Score: 1.5135658}})
	// A repeated query word counts again: "banana banana" gives a 2·0.6099695.
	checkHits(t, "banana banana", ix.Search("banana banana", 1), []lasagna.Hit{{ID: "b", Score: 1.4523084}})
	checkHits(t, "Banana, BANANA!", ix.Search("Banana, BANANA!", 3), []lasagna.Hit{
		{ID: "b", Score: 1.4523084}, {ID: "a", Score: 1.2199390},
	})
}

func TestHandComputedDefaults(t *testing.T) {
	// k1 = 0.9, b = 0.4 (the zero Options): norm(c) = 0.9·(0.6 + 0.4·4/2.25)
	// = 0.9·1.311111 = 1.18; "date": c = 1.2039728·1·1.9/(1+1.18) = 1.0493341.
	ix := build(t, tiny, Options{})
	if o := ix.Options(); o.K1 != 0.9 || o.B != 0.4 {
		t.Errorf("zero Options resolved to k1 %v b %v, want 0.9 0.4", o.K1, o.B)
	}
	checkHits(t, "date", ix.Search("date", 5), []lasagna.Hit{{ID: "c", Score: 1.0493341}})
}

func TestNoHits(t *testing.T) {
	ix := build(t, tiny, DefaultOptions())
	for _, q := range []string{"", "   ", "?!", "the and of", "zebra"} {
		if got := ix.Search(q, 10); got != nil {
			t.Errorf("Search(%q) = %v, want no hit", q, got)
		}
	}
	if got := ix.Search("apple", 0); got != nil {
		t.Errorf("Search with k = 0 = %v, want no hit", got)
	}
	if got := ix.Search("apple", -1); got != nil {
		t.Errorf("Search with k = -1 = %v, want no hit", got)
	}
	empty, err := Build(nil, DefaultOptions())
	if err != nil || empty.Len() != 0 || empty.Search("apple", 3) != nil {
		t.Errorf("empty corpus: %v, Len %d; want an index matching nothing", err, empty.Len())
	}
	allStop := build(t, []lasagna.Document{{ID: "s", Text: "the and"}}, DefaultOptions())
	if allStop.AvgDocLen() != 0 || allStop.Search("the and", 3) != nil {
		t.Errorf("all-stopword corpus: avgdl %v, want 0 and no hit", allStop.AvgDocLen())
	}
	if got := (&Index{}).Search("apple", 3); got != nil {
		t.Errorf("zero Index Search = %v, want no hit", got)
	}
	// k > N: every matching document, no more.
	if got := ix.Search("banana cherry date apple", 1000); len(got) != 3 {
		t.Errorf("k > N: %d hits %v, want the 3 matching documents", len(got), got)
	}
}

func TestStopwords(t *testing.T) {
	ix := build(t, tiny, Options{})
	if got := ix.Search("the", 5); got != nil {
		t.Errorf("stopword query = %v, want no hit", got)
	}
	keep := build(t, tiny, Options{KeepStopwords: true})
	if got := keep.Search("the", 5); len(got) != 1 || got[0].ID != "d" {
		t.Errorf("KeepStopwords: Search(the) = %v, want d", got)
	}
	if len(Stopwords()) != 33 || len(stopwords) != 33 {
		t.Errorf("stopword list has %d/%d words, want Lucene's 33", len(Stopwords()), len(stopwords))
	}
	for _, w := range Stopwords() {
		if !stopwords[w] {
			t.Errorf("Stopwords() lists %q, which the analyser keeps", w)
		}
	}
}

func TestStemming(t *testing.T) {
	docs := []lasagna.Document{
		{ID: "1", Title: "Running", Text: "She runs every morning."},
		{ID: "2", Text: "A connection was connected."},
	}
	stem := build(t, docs, DefaultOptions())
	plain := build(t, docs, Options{})
	for _, c := range []struct {
		q         string
		stem, raw []string
	}{
		{"run", []string{"1"}, nil},
		{"running", []string{"1"}, []string{"1"}},
		{"connections", []string{"2"}, nil},
		{"connected", []string{"2"}, []string{"2"}},
	} {
		if got := ids(stem.Search(c.q, 5)); !slices.Equal(got, c.stem) {
			t.Errorf("stemming on: Search(%q) = %v, want %v", c.q, got, c.stem)
		}
		if got := ids(plain.Search(c.q, 5)); !slices.Equal(got, c.raw) {
			t.Errorf("stemming off: Search(%q) = %v, want %v", c.q, got, c.raw)
		}
	}
	if got := stem.DocFreq("run"); got != 1 {
		t.Errorf("DocFreq(run) = %d, want 1 (running and runs are one term in one document)", got)
	}
}

func ids(hits []lasagna.Hit) []string {
	var out []string
	for _, h := range hits {
		out = append(out, h.ID)
	}
	return out
}

func TestTokens(t *testing.T) {
	for _, c := range []struct {
		text string
		opts Options
		want []string
	}{
		{"State-of-the-art QA, don't", Options{}, []string{"state", "art", "qa", "don", "t"}},
		{"The Café ÉCOLE 42nd", Options{KeepStopwords: true}, []string{"the", "café", "école", "42nd"}},
		{"Ponies running quickly", DefaultOptions(), []string{"poni", "run", "quick"}},
		{"", DefaultOptions(), nil},
	} {
		if got := Tokens(c.text, c.opts); !slices.Equal(got, c.want) {
			t.Errorf("Tokens(%q, %+v) = %q, want %q", c.text, c.opts, got, c.want)
		}
	}
}

func TestTiesByID(t *testing.T) {
	docs := []lasagna.Document{
		{ID: "z", Text: "same words here"},
		{ID: "m", Text: "same words here"},
		{ID: "a", Text: "same words here"},
		{ID: "q", Text: "other text"},
	}
	ix := build(t, docs, DefaultOptions())
	if got := ids(ix.Search("words", 10)); !slices.Equal(got, []string{"z", "m", "a"}) {
		t.Errorf("tied hits in order %v, want z m a (id descending, as trec_eval)", got)
	}
	if got := ids(ix.Search("words", 2)); !slices.Equal(got, []string{"z", "m"}) {
		t.Errorf("tied hits cut at 2 = %v, want z m", got)
	}
}

func TestBuildErrors(t *testing.T) {
	for _, c := range []struct {
		docs []lasagna.Document
		opts Options
		want string
	}{
		{[]lasagna.Document{{ID: "a"}, {ID: ""}}, Options{}, "document 1 (0-based) has an empty id"},
		{[]lasagna.Document{{ID: "a"}, {ID: "b"}, {ID: "a"}}, Options{}, `"a" appears twice (documents 0 and 2`},
		{nil, Options{K1: -1}, "K1 = -1"},
		{nil, Options{K1: math.Inf(1)}, "K1 = +Inf"},
		{nil, Options{B: 1.5}, "B = 1.5"},
		{nil, Options{B: math.NaN()}, "B = NaN"},
	} {
		_, err := Build(c.docs, c.opts)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Build(%v, %+v) error = %v, want one containing %q", c.docs, c.opts, err, c.want)
		}
	}
}

func TestRetrieve(t *testing.T) {
	ix := build(t, tiny, Options{K1: 1.2, B: 0.75})
	var r lasagna.Retriever = ix
	hits, err := r.Retrieve(context.Background(), lasagna.Query{ID: "q", Text: "apple"}, 5)
	if err != nil || len(hits) != 1 || hits[0].ID != "a" {
		t.Errorf("Retrieve = %v, %v; want [a]", hits, err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if _, err := r.Retrieve(ctx, lasagna.Query{Text: "apple"}, 5); err != context.Canceled {
		t.Errorf("Retrieve on a cancelled context: err = %v, want context.Canceled", err)
	}
}

// randomCorpus makes n documents over a small vocabulary so terms repeat.
func randomCorpus(r *rand.Rand, n int) []lasagna.Document {
	vocab := strings.Fields("alpha beta gamma delta epsilon zeta eta theta iota kappa lambda mu nu xi omicron pi rho sigma tau the of and runs running ran")
	docs := make([]lasagna.Document, n)
	for i := range docs {
		var w []string
		for range r.IntN(12) {
			w = append(w, vocab[r.IntN(len(vocab))])
		}
		docs[i] = lasagna.Document{ID: fmt.Sprintf("d%03d", r.IntN(1000)*1000+i), Text: strings.Join(w, " ")}
	}
	return docs
}

// TestAgainstDirectFormula compares Search with a direct float64 evaluation
// of the formula over Tokens, written independently of the index layout.
func TestAgainstDirectFormula(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for round := range 20 {
		docs := randomCorpus(r, 1+r.IntN(60))
		opts := Options{K1: 0.5 + r.Float64(), B: 0.1 + 0.9*r.Float64(), Stemming: round%2 == 0}
		ix := build(t, docs, opts)
		toks := make([][]string, len(docs))
		df := map[string]int{}
		total := 0
		for i, d := range docs {
			toks[i] = Tokens(d.Title+" "+d.Text, opts)
			total += len(toks[i])
			seen := map[string]bool{}
			for _, tk := range toks[i] {
				if !seen[tk] {
					seen[tk] = true
					df[tk]++
				}
			}
		}
		n := float64(len(docs))
		avgdl := float64(total) / n
		for range 10 {
			q := randomCorpus(r, 1)[0].Text
			var want []lasagna.Hit
			for i, d := range docs {
				score := 0.0
				for _, qt := range Tokens(q, opts) {
					tf := 0
					for _, tk := range toks[i] {
						if tk == qt {
							tf++
						}
					}
					if tf == 0 {
						continue
					}
					idf := math.Log(1 + (n-float64(df[qt])+0.5)/(float64(df[qt])+0.5))
					score += idf * float64(tf) * (opts.K1 + 1) / (float64(tf) + opts.K1*(1-opts.B+opts.B*float64(len(toks[i]))/avgdl))
				}
				if score > 0 {
					want = append(want, lasagna.Hit{ID: d.ID, Score: score})
				}
			}
			sort.Slice(want, func(i, j int) bool {
				if want[i].Score != want[j].Score {
					return want[i].Score > want[j].Score
				}
				return want[i].ID < want[j].ID
			})
			k := 1 + r.IntN(8)
			got := ix.Search(q, k)
			if len(want) > k {
				want = want[:k]
			}
			if len(got) != len(want) {
				t.Fatalf("query %q k %d: %d hits, want %d", q, k, len(got), len(want))
			}
			for i := range want {
				// Scores must agree; ids may differ only between near-ties
				// (float32 accumulation).
				if math.Abs(got[i].Score-want[i].Score) > 1e-5*want[i].Score {
					t.Errorf("query %q rank %d: %v, want %v", q, i+1, got[i], want[i])
				}
			}
		}
	}
}

func TestConcurrentSearch(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	docs := randomCorpus(r, 300)
	ix := build(t, docs, DefaultOptions())
	queries := []string{"alpha beta", "running ran", "sigma tau pi", "the", "kappa"}
	want := make([][]lasagna.Hit, len(queries))
	for i, q := range queries {
		want[i] = ix.Search(q, 10)
	}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 50 {
				qi := (g + i) % len(queries)
				if got := ix.Search(queries[qi], 10); !slices.Equal(got, want[qi]) {
					t.Errorf("concurrent Search(%q) = %v, want %v", queries[qi], got, want[qi])
					return
				}
			}
		})
	}
	wg.Wait()
}

// FuzzTokens checks the analyser on arbitrary text: no panic, no empty
// term, no upper case, no stopword, and every term found again when
// analysed on its own (so Search looks up what Build indexed).
func FuzzTokens(f *testing.F) {
	f.Add("State-of-the-art QA, don't")
	f.Add("Café ÉCOLE 42nd naïve İstanbul ǅ")
	f.Fuzz(func(t *testing.T, text string) {
		for _, opts := range []Options{{}, DefaultOptions(), {KeepStopwords: true}} {
			for _, tok := range Tokens(text, opts) {
				if tok == "" {
					t.Fatalf("Tokens(%q) gave an empty term", text)
				}
				if !opts.KeepStopwords && stopwords[tok] && !opts.Stemming {
					t.Fatalf("Tokens(%q) kept stopword %q", text, tok)
				}
			}
		}
		plain := Options{KeepStopwords: true}
		for _, tok := range Tokens(text, plain) {
			if again := Tokens(tok, plain); len(again) != 1 || again[0] != tok {
				t.Fatalf("term %q of %q analyses to %q on its own", tok, text, again)
			}
		}
	})
}

// TestShardedBuild checks that analysing the corpus in several parallel
// shards gives the same index as one shard.
func TestShardedBuild(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	docs := randomCorpus(r, 500)
	for _, opts := range []Options{DefaultOptions(), {K1: 1.2, B: 0.75}} {
		one, err := buildSharded(docs, opts, 1, false)
		if err != nil {
			t.Fatal(err)
		}
		for _, w := range []int{2, 3, 7, 1000} {
			many, err := buildSharded(docs, opts, w, false)
			if err != nil {
				t.Fatal(err)
			}
			if many.Terms() != one.Terms() || many.Postings() != one.Postings() || many.AvgDocLen() != one.AvgDocLen() {
				t.Fatalf("%d shards: terms %d postings %d avgdl %v; one shard: %d %d %v", w, many.Terms(), many.Postings(), many.AvgDocLen(), one.Terms(), one.Postings(), one.AvgDocLen())
			}
			for term := range one.terms {
				if many.DocFreq(term) != one.DocFreq(term) {
					t.Errorf("%d shards: DocFreq(%q) = %d, one shard %d", w, term, many.DocFreq(term), one.DocFreq(term))
				}
			}
			for range 30 {
				q := randomCorpus(r, 1)[0].Text
				if got, want := many.Search(q, 20), one.Search(q, 20); !slices.Equal(got, want) {
					t.Errorf("%d shards: Search(%q) = %v, one shard %v", w, q, got, want)
				}
			}
		}
	}
}

// TestBuildReleasing checks that a build that clears the texts as it
// analyses them (in several rounds) gives the index Build gives, keeps the
// ids and leaves no text behind.
func TestBuildReleasing(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	docs := randomCorpus(r, 3*2*minShard+17)
	for i := range docs {
		docs[i].ID = fmt.Sprintf("d%06d", i) // unique beyond 1000 documents
		docs[i].Title = fmt.Sprintf("title %d", i%97)
	}
	want, err := Build(docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	released := slices.Clone(docs)
	got, err := buildSharded(released, DefaultOptions(), 2, true) // 3 rounds of 2 shards
	if err != nil {
		t.Fatal(err)
	}
	if got.Terms() != want.Terms() || got.Postings() != want.Postings() || got.AvgDocLen() != want.AvgDocLen() || got.Stats() != want.Stats() {
		t.Fatalf("released build: terms %d postings %d avgdl %v; Build: %d %d %v", got.Terms(), got.Postings(), got.AvgDocLen(), want.Terms(), want.Postings(), want.AvgDocLen())
	}
	for range 50 {
		q := randomCorpus(r, 1)[0].Text
		if g, w := got.Search(q, 50), want.Search(q, 50); !slices.Equal(g, w) {
			t.Fatalf("Search(%q) = %v, Build's %v", q, g, w)
		}
	}
	for i, d := range released {
		if d.ID != docs[i].ID || d.Title != "" || d.Text != "" {
			t.Fatalf("document %d after BuildReleasing = %+v; want id %q and no texts", i, d, docs[i].ID)
		}
	}
	if _, err := BuildReleasing(slices.Clone(docs[:10]), DefaultOptions()); err != nil {
		t.Fatal(err)
	}
}

// TestScoresAtFloat32Precision checks that a hit's Score is the float32
// the index computed (recomputed here from the postings, term by term in
// Search's order), recorded as the float64 nearest to that float32's
// shortest decimal, so that JSON writes float32's digits.
func TestScoresAtFloat32Precision(t *testing.T) {
	docs, queries := corpusgen.Zipf(3000, 200)
	ix, err := Build(docs, DefaultOptions())
	if err != nil {
		t.Fatal(err)
	}
	num := make(map[string]uint32, len(ix.ids))
	for i, id := range ix.ids {
		num[id] = uint32(i)
	}
	hits := 0
	for _, q := range queries {
		qtf := map[string]int{}
		for _, term := range Tokens(q, ix.opts) {
			if _, ok := ix.terms[term]; ok {
				qtf[term]++
			}
		}
		terms := slices.Sorted(maps.Keys(qtf))
		for _, h := range ix.Search(q, 50) {
			var want float32
			for _, term := range terms {
				tid := ix.terms[term]
				lo, hi := ix.offsets[tid], ix.offsets[tid+1]
				if p, ok := slices.BinarySearch(ix.docs[lo:hi], num[h.ID]); ok {
					if qtf[term] == 1 {
						want += ix.impacts[lo+p]
					} else {
						want += float32(qtf[term]) * ix.impacts[lo+p]
					}
				}
			}
			if float32(h.Score) != want {
				t.Fatalf("query %q, %s: float32(Score) = %v, the index computed %v", q, h.ID, float32(h.Score), want)
			}
			dec := strconv.FormatFloat(float64(want), 'g', -1, 32)
			if def, _ := strconv.ParseFloat(dec, 64); h.Score != def {
				t.Fatalf("query %q, %s: Score = %v, want %v (the float64 nearest to %s)", q, h.ID, h.Score, def, dec)
			}
			if g := strconv.FormatFloat(h.Score, 'g', -1, 64); g != dec {
				t.Fatalf("query %q, %s: the score's shortest text is %s, want float32's %s", q, h.ID, g, dec)
			}
			hits++
		}
	}
	if hits < 1000 {
		t.Fatalf("only %d hits checked", hits)
	}
}

// TestPairStorage checks the analysis' pair storage where it changes
// representation: frequencies around the one-byte limit (254, 255, 256 and
// far above, kept beside the pairs) and enough pairs to fill several blocks
// in each shard, against the direct formula.
func TestPairStorage(t *testing.T) {
	tfs := []int{1, 2, 254, 255, 256, 300, 1000, 70_000}
	var docs []lasagna.Document
	for i := range 6000 {
		var w []string
		for j := range 25 {
			w = append(w, fmt.Sprintf("w%dx%d", (i*7+j*13)%997, j%5))
		}
		if i%700 == 0 {
			w = append(w, strings.Repeat("apple ", tfs[(i/700)%len(tfs)]))
		}
		docs = append(docs, lasagna.Document{ID: fmt.Sprintf("d%05d", i), Text: strings.Join(w, " ")})
	}
	for _, workers := range []int{1, 3} {
		ix, err := buildSharded(docs, Options{}, workers, false)
		if err != nil {
			t.Fatal(err)
		}
		if ix.Postings() <= 2*pairBlock {
			t.Fatalf("%d postings; the test wants several blocks", ix.Postings())
		}
		opts := ix.Options()
		n, df := float64(len(docs)), 0
		dl := make([]int, len(docs))
		tf := make([]int, len(docs))
		total := 0
		for i, d := range docs {
			for _, tk := range Tokens(d.Text, opts) {
				dl[i]++
				if tk == "apple" {
					tf[i]++
				}
			}
			if tf[i] > 0 {
				df++
			}
			total += dl[i]
		}
		avgdl := float64(total) / n
		idf := math.Log(1 + (n-float64(df)+0.5)/(float64(df)+0.5))
		got := ix.Search("apple", len(docs))
		if len(got) != df {
			t.Fatalf("workers %d: %d hits for apple, want %d", workers, len(got), df)
		}
		for _, h := range got {
			i := slices.IndexFunc(docs, func(d lasagna.Document) bool { return d.ID == h.ID })
			x := float64(tf[i])
			want := idf * x * (opts.K1 + 1) / (x + opts.K1*(1-opts.B+opts.B*float64(dl[i])/avgdl))
			if math.Abs(h.Score-want) > 1e-6*want {
				t.Errorf("workers %d: %s (tf %d) scores %v, want %v", workers, h.ID, tf[i], h.Score, want)
			}
		}
		// Every posting of a common word, across blocks and shards.
		for _, w := range []string{"w0x0", "w996x1", "w500x3"} {
			want := 0
			for _, d := range docs {
				if strings.Contains(" "+d.Text+" ", " "+w+" ") {
					want++
				}
			}
			if got := ix.DocFreq(w); got != want || len(ix.Search(w, len(docs))) != want {
				t.Errorf("workers %d: df(%s) = %d, want %d", workers, w, got, want)
			}
		}
	}
}
