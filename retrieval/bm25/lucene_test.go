package bm25

import (
	"fmt"
	"math"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/clipperhouse/uax29/v2/words"

	"github.com/lasagna-go/lasagna"
)

var lucene = Options{Analyzer: AnalyzerLucene, Stemming: true}

// TestWordBreakTest runs Unicode's WordBreakTest cases (UAX #29, Unicode
// 17.0.0; testdata/WordBreakTest.txt) through the segmenter the Lucene
// analyzer drives, the way it drives it (one iterator reused with SetText):
// every boundary must be where Unicode puts it.
func TestWordBreakTest(t *testing.T) {
	var s luceneScanner
	n := 0
	for i, line := range readLines(t, "testdata/WordBreakTest.txt") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		var want []string
		var cur []rune
		for _, f := range strings.Fields(line) {
			switch f {
			case "÷":
				if len(cur) > 0 {
					want = append(want, string(cur))
					cur = cur[:0]
				}
			case "×":
			default:
				cp, err := strconv.ParseUint(f, 16, 32)
				if err != nil {
					t.Fatalf("testdata/WordBreakTest.txt:%d: %q is not a code point", i+1, f)
				}
				cur = append(cur, rune(cp))
			}
		}
		text := strings.Join(want, "")
		s.scan("", func([]byte) {}) // make and reuse the iterator
		s.it.SetText(text)
		var got []string
		for s.it.Next() {
			got = append(got, s.it.Value())
		}
		if !slices.Equal(got, want) {
			t.Errorf("testdata/WordBreakTest.txt:%d: segments %q, want %q", i+1, got, want)
		}
		n++
	}
	if n < 1900 {
		t.Fatalf("only %d cases in testdata/WordBreakTest.txt; want the full 1,944", n)
	}
}

// TestLuceneReference compares the Lucene analyzer with Lucene itself on
// testdata/lucene/text.txt (hand-written lines on possessives, numbers,
// URLs, scripts, emoji and tokens over 255 characters, then 3,000 random
// lines over an alphabet of ASCII, punctuation and Unicode letters, marks
// and symbols). tokens.tsv is Lucene's StandardTokenizer,
// EnglishPossessiveFilter and LowerCaseFilter on each line; english.tsv is
// Lucene's EnglishAnalyzer (adding the stopwords and PorterStemFilter). Both
// were made with lucene-analyzers-common 8.7.0 (Debian's liblucene8-java).
func TestLuceneReference(t *testing.T) {
	text := readLines(t, filepath.Join("testdata", "lucene", "text.txt"))
	for _, c := range []struct {
		file string
		opts Options
	}{
		{"tokens.tsv", Options{Analyzer: AnalyzerLucene, KeepStopwords: true}},
		{"english.tsv", lucene},
	} {
		want := readLines(t, filepath.Join("testdata", "lucene", c.file))
		if len(want) != len(text) || len(text) < 3000 {
			t.Fatalf("testdata/lucene: text.txt has %d lines, %s %d; want the same number, ≥ 3000", len(text), c.file, len(want))
		}
		bad := 0
		for i, line := range text {
			var w []string
			if want[i] != "" {
				w = strings.Split(want[i], "\t")
			}
			got := Tokens(line, c.opts)
			if reason, ok := luceneKnownDiffs[i+1]; ok {
				if slices.Equal(got, w) || strings.Join(got, "") != strings.Join(w, "") {
					t.Errorf("%s:%d: Tokens(%q) = %q; the known difference (%s) is no longer the only one: Lucene gives %q",
						c.file, i+1, line, got, reason, w)
				}
				continue
			}
			if !slices.Equal(got, w) {
				bad++
				if bad <= 10 {
					t.Errorf("%s:%d: Tokens(%q) =\n  %q\nwant\n  %q", c.file, i+1, line, got, w)
				}
			}
		}
		if bad > 0 {
			t.Errorf("%s: %d of %d lines differ", c.file, bad, len(text))
		}
	}
}

// luceneKnownDiffs are the lines of testdata/lucene/text.txt where the
// Lucene analyzer follows a later Unicode than Lucene 8.7 (Unicode 9): since
// Unicode 11, UAX#29 rule WB3c keeps a zero-width joiner with the
// pictograph after it ("jj\u200d👍" is one token, Lucene 8.7 gives "jj\u200d"
// and "👍"). The tokens must join to the same text.
var luceneKnownDiffs = map[int]string{
	107:  "WB3c: ZWJ × Extended_Pictographic",
	1881: "WB3c: ZWJ × Extended_Pictographic",
}

// TestLuceneAnalyzerExamples pins the rules the package documentation
// states.
func TestLuceneAnalyzerExamples(t *testing.T) {
	for _, c := range []struct {
		in   string
		opts Options
		want []string
	}{
		{"e.g. don't U.S.A.", Options{Analyzer: AnalyzerLucene}, []string{"e.g", "don't", "u.s.a"}},
		{"e.g. don't", Options{}, []string{"e", "g", "don", "t"}},
		{"Anserini's results’s", Options{Analyzer: AnalyzerLucene}, []string{"anserini", "results"}},
		{"It's the state-of-the-art", Options{Analyzer: AnalyzerLucene}, []string{"state", "art"}},
		{"3.14 1,000 v1.2 snake_case", Options{Analyzer: AnalyzerLucene}, []string{"3.14", "1,000", "v1.2", "snake_case"}},
		{"relational generalizations archaeology", lucene, []string{"relat", "gener", "archaeolog"}},
		{"中文 ภาษาไทย", lucene, []string{"中", "文", "ภาษาไทย"}},
		{"!!! ... --", lucene, nil},
	} {
		if got := Tokens(c.in, c.opts); !slices.Equal(got, c.want) {
			t.Errorf("Tokens(%q, analyzer %q stemming %t) = %q, want %q", c.in, c.opts.Analyzer, c.opts.Stemming, got, c.want)
		}
	}
	// Lucene chops a token longer than 255 characters (UTF-16 units).
	long := strings.Repeat("a", 300)
	if got := Tokens(long, Options{Analyzer: AnalyzerLucene}); len(got) != 2 || len(got[0]) != 255 || len(got[1]) != 45 {
		t.Errorf("a 300-letter word gives tokens of %d pieces, want 255 + 45", len(got))
	}
}

// TestPorterStemConformance stems the original Porter algorithm's reference
// vocabulary (testdata/snowball/porter). The words listed in
// testdata/porter_lucene_known_diffs.tsv are those where Lucene's
// PorterStemFilter departs from the reference; PorterStem must give Lucene's
// stem there and the reference stem everywhere else.
func TestPorterStemConformance(t *testing.T) {
	known := map[string][2]string{}
	for i, line := range readLines(t, "testdata/porter_lucene_known_diffs.tsv") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		if len(f) != 3 {
			t.Fatalf("testdata/porter_lucene_known_diffs.tsv:%d: want word, Lucene stem, reference stem separated by tabs", i+1)
		}
		known[f[0]] = [2]string{f[1], f[2]}
	}
	dir := snowballData(t, "porter")
	voc := readLines(t, filepath.Join(dir, "voc.txt"))
	out := readLines(t, filepath.Join(dir, "output.txt"))
	if len(voc) != len(out) || len(voc) < 40000 {
		t.Fatalf("%s: voc.txt has %d lines and output.txt %d; want equal counts of the full vocabulary", dir, len(voc), len(out))
	}
	differ := 0
	for i, w := range voc {
		got := porterStem(w)
		k, listed := known[w]
		switch {
		case got == out[i] && listed:
			t.Errorf("voc.txt:%d PorterStem(%q) = the reference %q, but Lucene gives %q (testdata/porter_lucene_known_diffs.tsv)", i+1, w, got, k[0])
		case got != out[i] && !listed:
			t.Errorf("voc.txt:%d PorterStem(%q) = %q, want %q", i+1, w, got, out[i])
		case got != out[i] && (k[0] != got || k[1] != out[i]):
			t.Errorf("voc.txt:%d PorterStem(%q) = %q (reference %q), but the list says Lucene gives %q (reference %q)", i+1, w, got, out[i], k[0], k[1])
		case got != out[i]:
			differ++
		}
	}
	if differ != len(known) {
		t.Errorf("%d listed differences were seen, the list has %d (a listed word is missing from voc.txt)", differ, len(known))
	}
	t.Logf("%d words: %d match the reference, %d differ as Lucene does", len(voc), len(voc)-differ, differ)
}

// TestPorterLuceneRandom compares PorterStem with Lucene's PorterStemFilter
// on 5,000 random words built from letters, suffixes the algorithm rewrites
// and a few non-ASCII letters (testdata/porter_lucene_random.tsv).
func TestPorterLuceneRandom(t *testing.T) {
	n := 0
	for i, line := range readLines(t, "testdata/porter_lucene_random.tsv") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		w, want, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("testdata/porter_lucene_random.tsv:%d: want word and stem separated by a tab", i+1)
		}
		if got := porterStem(w); got != want {
			t.Errorf("testdata/porter_lucene_random.tsv:%d: PorterStem(%q) = %q, Lucene gives %q", i+1, w, got, want)
		}
		n++
	}
	if n < 5000 {
		t.Fatalf("only %d words", n)
	}
}

// TestSmallFloat checks Lucene's one-byte length encoding against values
// worked out by hand from the algorithm (SmallFloat.intToByte4): lengths
// below 24 are stored as they are; a larger length L stores 24 +
// enc(L − 24), where enc keeps values below 8 and otherwise the leading one
// bit and the next 3 bits, with the shift.
func TestSmallFloat(t *testing.T) {
	for _, c := range []struct {
		n    uint32
		b    byte
		back uint32
	}{
		{0, 0, 0}, {1, 1, 1}, {23, 23, 23},
		{24, 24, 24}, {31, 31, 31}, // L − 24 < 8: subnormal, exact
		{32, 32, 32},    // 8 = 1000b: shift 0, byte 24 + (1<<3 | 000b) = 32
		{39, 39, 39},    // 15 = 1111b: 24 + (1<<3 | 111b) = 39
		{40, 40, 40},    // 16 = 10000b: shift 1, 24 + (2<<3 | 000b) = 40
		{41, 40, 40},    // 17 = 10001b: the last bit is lost
		{42, 41, 42},    // 18 = 10010b: 24 + (2<<3 | 001b) = 41 → 24 + 1001b<<1 = 42
		{100, 57, 96},   // 76 = 1001100b: shift 3, 24 + (4<<3 | 001b) = 57 → 24 + 1001b<<3 = 96
		{1000, 87, 984}, // 976 = 1111010000b: shift 6, 24 + (7<<3 | 111b) = 87 → 24 + 1111b<<6 = 984
		{math.MaxUint32 >> 1, 255, 24 + 0xF<<27},
	} {
		if got := intToByte4(c.n); got != c.b {
			t.Errorf("intToByte4(%d) = %d, want %d", c.n, got, c.b)
		}
		if got := byte4ToInt(c.b); got != c.back {
			t.Errorf("byte4ToInt(%d) = %d, want %d", c.b, got, c.back)
		}
	}
	// Decoding is monotone and every byte round-trips.
	for b := 1; b < 256; b++ {
		if byte4ToInt(byte(b)) <= byte4ToInt(byte(b-1)) {
			t.Errorf("byte4ToInt(%d) = %d ≤ byte4ToInt(%d) = %d", b, byte4ToInt(byte(b)), b-1, byte4ToInt(byte(b-1)))
		}
		if got := intToByte4(byte4ToInt(byte(b))); got != byte(b) {
			t.Errorf("intToByte4(byte4ToInt(%d)) = %d", b, got)
		}
	}
}

// TestLuceneNorms scores a hand-computed corpus as Lucene's BM25Similarity
// does. Documents (no stemming, stopwords dropped):
//
//	x: "apple" + 40 × "pad"   dl 41 → stored as 40
//	y: "apple" + 39 × "pad"   dl 40 → 40
//	z: "pear"                 dl 1
//	e: "the of"               dl 0: not counted in N or avgdl
//
// N = 3, total = 82, avgdl = 82/3 = 27.333334 (float32).
// idf(apple, df 2) = ln(1 + (3 − 2 + 0.5)/(2 + 0.5)) = ln 1.6 = 0.47000363
// With k1 0.9, b 0.4: 1/norm(40) = 1/(0.9·(0.6 + 0.4·40/27.333334))
// = 1/(0.9·1.1853659) = 0.9373571; score = idf − idf/(1 + 1·0.9373571)
// = 0.47000363 · 0.9373571/1.9373571 = 0.2274032. x and y tie (same stored
// length), broken by id (descending), so y ranks first.
func TestLuceneNorms(t *testing.T) {
	docs := []lasagna.Document{
		{ID: "x", Text: "apple" + strings.Repeat(" pad", 40)},
		{ID: "y", Text: "apple" + strings.Repeat(" pad", 39)},
		{ID: "z", Text: "pear"},
		{ID: "e", Text: "the of"},
	}
	ix := build(t, docs, Options{Analyzer: AnalyzerLucene, Norms: NormsLucene})
	if math.Abs(ix.AvgDocLen()-82.0/3) > 1e-12 {
		t.Errorf("avgdl = %v, want 82/3 (documents with terms only)", ix.AvgDocLen())
	}
	const want = 0.2274032
	hits := ix.Search("apple", 10)
	if len(hits) != 2 || hits[0].ID != "y" || hits[1].ID != "x" || hits[0].Score != hits[1].Score ||
		math.Abs(hits[0].Score-want) > 1e-6 {
		t.Errorf("hits %v; want y and x tied at %.6f", hits, want)
	}
	// Exact norms tell the lengths apart: the shorter y ranks first with a
	// higher score.
	ex := build(t, docs, Options{Analyzer: AnalyzerLucene})
	hits = ex.Search("apple", 10)
	if len(hits) != 2 || hits[0].ID != "y" || hits[0].Score <= hits[1].Score {
		t.Errorf("exact norms: hits %v; want y strictly above x", hits)
	}
	if st := ix.Stats(); st != (Stats{Documents: 4, UniqueTerms: 3, TotalTerms: 82}) {
		t.Errorf("Stats() = %+v, want 4 documents, 3 unique terms, 82 total terms", st)
	}
}

// TestOptionErrors checks that unknown analyzers and norms are refused.
func TestOptionErrors(t *testing.T) {
	for _, o := range []Options{{Analyzer: "lucene9"}, {Norms: "byte"}} {
		if _, err := Build(tiny, o); err == nil {
			t.Errorf("Build with %+v succeeded; want an error", o)
		}
	}
	if _, err := Build(tiny, Options{Analyzer: "default", Norms: "exact"}); err != nil {
		t.Errorf("Build with the spelled-out defaults: %v", err)
	}
}

// TestLuceneBM25Run compares an index built with the Lucene analyzer and
// Lucene's norms (k1 0.9, b 0.4) with Lucene 8.7 itself on
// testdata/lucene/docs.tsv (400 generated passages punctuated as prose):
// the same corpus statistics, and for each query of queries.tsv the same
// matching documents with the same scores (bm25_run.tsv, Lucene's
// BM25Similarity under Anserini's bag-of-words query), up to float32
// rounding of the sum over query terms, in an order that never contradicts
// Lucene's. Lucene's ties stay ties.
func TestLuceneBM25Run(t *testing.T) {
	var docs []lasagna.Document
	for i, line := range readLines(t, "testdata/lucene/docs.tsv") {
		id, text, ok := strings.Cut(line, "\t")
		if !ok {
			t.Fatalf("testdata/lucene/docs.tsv:%d: want id and text separated by a tab", i+1)
		}
		docs = append(docs, lasagna.Document{ID: id, Text: text})
	}
	ix := build(t, docs, Options{Analyzer: AnalyzerLucene, Stemming: true, Norms: NormsLucene})
	type hit struct {
		id    string
		score float64
	}
	want := map[string][]hit{}
	for i, line := range readLines(t, "testdata/lucene/bm25_run.tsv") {
		if st, ok := strings.CutPrefix(line, "# documents "); ok {
			var d, u, tot, dc int64
			if _, err := fmt.Sscanf(st, "%d unique_terms %d total_terms %d doc_count %d", &d, &u, &tot, &dc); err != nil {
				t.Fatalf("bm25_run.tsv:%d: %v", i+1, err)
			}
			if got := ix.Stats(); got != (Stats{Documents: d, UniqueTerms: u, TotalTerms: tot}) {
				t.Errorf("Stats() = %+v; Lucene has %d documents, %d unique terms, %d total terms", got, d, u, tot)
			}
			continue
		}
		if strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Split(line, "\t")
		sc, err := strconv.ParseFloat(f[2], 32)
		if len(f) != 3 || err != nil {
			t.Fatalf("bm25_run.tsv:%d: want query, document, score", i+1)
		}
		want[f[0]] = append(want[f[0]], hit{f[1], sc})
	}
	exact, total := 0, 0
	for _, line := range readLines(t, "testdata/lucene/queries.tsv") {
		qid, q, _ := strings.Cut(line, "\t")
		hits := ix.Search(q, 1000)
		got := map[string]float64{}
		for _, h := range hits {
			got[h.ID] = h.Score
		}
		w := want[qid]
		if len(hits) != len(w) {
			t.Errorf("%s %q: %d hits, Lucene %d", qid, q, len(hits), len(w))
			continue
		}
		for i, h := range w {
			g, ok := got[h.id]
			switch {
			case !ok:
				t.Errorf("%s: %s (Lucene rank %d) is not among the hits", qid, h.id, i+1)
			case math.Abs(g-h.score) > 2e-6*math.Max(1, h.score):
				t.Errorf("%s: %s scores %v, Lucene %v", qid, h.id, g, h.score)
			case i > 0 && h.score < w[i-1].score && g > got[w[i-1].id]:
				t.Errorf("%s: %s ranks above %s, Lucene the other way (%v vs %v)", qid, h.id, w[i-1].id, h.score, w[i-1].score)
			case i > 0 && h.score == w[i-1].score && g != got[w[i-1].id]:
				t.Errorf("%s: %s and %s tie in Lucene (%v) but score %v and %v", qid, h.id, w[i-1].id, h.score, g, got[w[i-1].id])
			}
			if ok && float32(g) == float32(h.score) {
				exact++
			}
			total++
		}
	}
	if len(want) < 60 || total < 1000 {
		t.Fatalf("bm25_run.tsv holds %d queries and %d hits; want the full run", len(want), total)
	}
	t.Logf("%d hits over %d queries: %d with Lucene's exact float32 score", total, len(want), exact)
}

// TestASCIIWordEnd checks scan's shortcut against the segmenter: wherever a
// run of ASCII letters and digits starts a segment and asciiWordEnd says
// the run ends it, the segmenter's segment is exactly the run. Strings are
// drawn at random from letters, digits and every character that joins or
// could join a word (. : ' , ; _ " and non-ASCII letters, marks, format
// characters).
func TestASCIIWordEnd(t *testing.T) {
	alphabet := []string{"a", "b", "Z", "1", "9", " ", ".", ":", "'", ",", ";", "_", "\"", "-", "!", "é", "\u0301",
		"\u00ad", "\u200d", "\u2019", "中", "א", "ก", "\u0e38", "👍", "\n"}
	r := rand.New(rand.NewPCG(1, 2))
	it := words.FromString("")
	checked := 0
	for range 20000 {
		var sb strings.Builder
		for range 1 + r.IntN(12) {
			sb.WriteString(alphabet[r.IntN(len(alphabet))])
		}
		text := sb.String()
		for pos := 0; pos < len(text); {
			it.SetText(text[pos:])
			it.Next()
			seg := it.Value()
			if isASCIIAlnum(text[pos]) {
				end := pos + 1
				for end < len(text) && isASCIIAlnum(text[end]) {
					end++
				}
				if asciiWordEnd(text, end) {
					checked++
					if seg != text[pos:end] {
						t.Fatalf("%q at %d: asciiWordEnd cuts %q, the segmenter %q", text, pos, text[pos:end], seg)
					}
				}
			}
			pos += len(seg)
		}
	}
	if checked < 5000 {
		t.Errorf("only %d shortcuts checked", checked)
	}
}

// FuzzLuceneTokens feeds arbitrary bytes (invalid UTF-8 included) to the
// Lucene analyzer: it must not panic or hang, and every token must be
// non-empty, lower-case ASCII letters unchanged, and at most 255 UTF-16
// units before stemming.
func FuzzLuceneTokens(f *testing.F) {
	f.Add("Anserini's e.g. U.S.A. 3.14 don't")
	f.Add("ภาษาไทย 中文 👩\u200d👩\u200d👧 " + strings.Repeat("ab.", 120))
	f.Add("\xff\xfe a\u0301 \u200d\u00ad'\u2019s")
	f.Fuzz(func(t *testing.T, text string) {
		for _, tok := range Tokens(text, Options{Analyzer: AnalyzerLucene, KeepStopwords: true}) {
			if tok == "" || prefixUnits(tok, maxTokenLen) < len(tok) && utf8.ValidString(tok) {
				t.Fatalf("Tokens(%q) gave token %q", text, tok)
			}
			if strings.ContainsAny(tok, "ABCDEFGHIJKLMNOPQRSTUVWXYZ \n\t") {
				t.Fatalf("Tokens(%q) gave token %q with an upper-case letter or white space", text, tok)
			}
		}
		Tokens(text, lucene)
	})
}

// TestLuceneLongRuns checks texts without spaces: a run is cut every 255
// characters as Lucene cuts it, in time linear in its length (the loop
// would not finish on a megabyte otherwise).
func TestLuceneLongRuns(t *testing.T) {
	const n = 1 << 20
	plain := Options{Analyzer: AnalyzerLucene, KeepStopwords: true}
	for _, c := range []struct {
		text   string
		tokens int
	}{
		{strings.Repeat("a", n), n/255 + 1},
		{strings.Repeat("é", n/2), (n/2)/255 + 1},
		{strings.Repeat("ab.", n/3), -1},
		{"a" + strings.Repeat("\u0301", n/2), -1},
		{strings.Repeat("ก", n/3), (n/3)/255 + 1},
	} {
		got := Tokens(c.text, plain)
		if len(got) == 0 || c.tokens >= 0 && len(got) != c.tokens {
			t.Errorf("%q…: %d tokens, want %d", c.text[:6], len(got), c.tokens)
		}
		for _, tok := range got {
			if prefixUnits(tok, maxTokenLen) < len(tok) {
				t.Fatalf("%q…: token of %d bytes is over 255 characters", c.text[:6], len(tok))
			}
		}
	}
}

// TestLuceneInvalidUTF8: bytes that are not UTF-8 read as U+FFFD, as
// Lucene's reader decodes them, and split words; a truncated sequence at
// the end of the text does not take the bytes after it into a token (the
// segmenter alone gives "000\xe2 " as one segment, space included; found
// by FuzzLuceneTokens).
func TestLuceneInvalidUTF8(t *testing.T) {
	for text, want := range map[string][]string{
		"000\xe2 ":    {"000"},
		"abc\xe2\x82": {"abc"},
		"x\xffy Z":    {"x", "y", "z"},
	} {
		if got := Tokens(text, Options{Analyzer: AnalyzerLucene, KeepStopwords: true}); !slices.Equal(got, want) {
			t.Errorf("Tokens(%q) = %q, want %q", text, got, want)
		}
	}
}
