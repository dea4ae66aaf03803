package registry_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/registry"
)

// searchRows are entries chosen to tell matching rules apart: Unicode
// case (É, the Kelvin sign, dotted İ, final sigma, ß), the LIKE
// wildcards % and _ and the escape \, a second answer, contexts and
// metadata (not searched), an id that differs from its question.
var searchRows = []string{
	`{"id":"Alpha-1","question":"What is the BOILING point of water?","answer":"100 °C"}`,
	`{"id":"alpha-2","question":"Où est l'ÉCOLE ?","answer":"à Paris"}`,
	`{"id":"kelvin","question":"Temperature in \u212a (the Kelvin sign)","answer":"273 K"}`,
	`{"id":"istanbul","question":"Where is İstanbul?","answer":"Türkiye"}`,
	`{"id":"sigma","question":"ΟΔΟΣ means road","answer":"ὁδός"}`,
	`{"id":"strasse","question":"Was heißt STRASSE?","answer":"Straße"}`,
	`{"id":"wild","question":"100% of a_b and c\\d","answer":"50%"}`,
	`{"id":"two","question":"two answers","answers":["first one","second one"]}`,
	`{"id":"ctx","question":"has contexts","answer":"x","contexts":["needle in a context"],"metadata":{"note":"needle in metadata"}}`,
	`{"id":"NEEDLE-id","question":"plain","answer":"y"}`,
}

// searchReference is the dashboard's search before it moved into the
// database, the rule Search documents: an entry matches when
// strings.ToLower of its id, question or answer contains strings.ToLower
// of the trimmed text; matches in entry order, then paged.
func searchReference(all []registry.Entry, text string, offset, limit int) ([]registry.Entry, int) {
	matches := referenceMatches(all, text)
	if offset >= len(matches) {
		return nil, len(matches)
	}
	page := matches[offset:]
	if limit > 0 && len(page) > limit {
		page = page[:limit]
	}
	return page, len(matches)
}

// referenceMatches is every entry of all the rule keeps for text.
func referenceMatches(all []registry.Entry, text string) []registry.Entry {
	needle := strings.ToLower(strings.TrimSpace(text))
	var out []registry.Entry
	for _, e := range all {
		if strings.Contains(strings.ToLower(e.ID), needle) || strings.Contains(strings.ToLower(e.Question), needle) ||
			strings.Contains(strings.ToLower(e.Answer), needle) {
			out = append(out, e)
		}
	}
	return out
}

// referenceSearch is what Search should return for q by the rule: the
// page of q (from the end with FromEnd), the count capped at
// q.CountLimit (but for empty text: the revision's entry count).
func referenceSearch(all []registry.Entry, q registry.SearchQuery) registry.SearchResult {
	matches := referenceMatches(all, q.Text)
	res := registry.SearchResult{Matches: len(matches), Exact: true}
	// Empty text is every entry, counted from the revision: exactly.
	if q.CountLimit > 0 && len(matches) > q.CountLimit && strings.TrimSpace(q.Text) != "" {
		res.Matches, res.Exact = q.CountLimit, false
	}
	lo, hi := q.Offset, len(matches)
	if q.Limit > 0 {
		hi = lo + q.Limit
	}
	if q.FromEnd {
		lo, hi = len(matches)-hi, len(matches)-lo
		if q.Limit <= 0 {
			lo = 0
		}
	}
	lo, hi = max(lo, 0), min(hi, len(matches))
	if lo < hi {
		res.Entries = matches[lo:hi]
	}
	return res
}

// TestSearchMatchesTheDocumentedRule: Search gives, on SQLite and on
// PostgreSQL, the entries and counts of the reference rule for needles
// that tell case folding, wildcards, the fields searched and the paging
// apart.
func TestSearchMatchesTheDocumentedRule(t *testing.T) {
	// 130 more entries, so that paging crosses pages of 50.
	rows := append([]string(nil), searchRows...)
	for i := range 130 {
		rows = append(rows, fmt.Sprintf(`{"id":"item-%03d","question":"Item %d asks about Water","answer":"answer %d"}`, i, i, i))
	}
	data := []byte(strings.Join(rows, "\n") + "\n")
	eachBackend(t, func(t *testing.T, dsn string) {
		r, err := registry.Open(bg(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Create(bg(), "s", registry.Files{FS: fstest.MapFS{"s.jsonl": {Data: data}}, Path: "s.jsonl"}); err != nil {
			t.Fatal(err)
		}
		all, _, err := r.Entries(bg(), "s", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, tc := range []struct {
			text  string
			count int // what the rule gives, written out so that the reference is checked too
		}{
			{"boiling", 1}, {"BOILING", 1}, {"  boiling  ", 1},
			{"école", 1}, {"ÉCOLE", 1}, {"ecole", 0}, // no accent folding
			{"k (the", 1}, {"\u212a", 2}, // the Kelvin sign lower-cases to k: "kelvin", "273 k" and ids with k
			{"i\u0307stanbul", 0}, {"istanbul", 1}, // İ lower-cases to a plain i (simple mapping), not i + combining dot
			{"οδοσ", 1}, {"οδος", 0}, {"ὁδός", 1}, // ToLower maps Σ to σ, never to final ς
			{"strasse", 1}, {"straße", 1}, {"heiss", 0}, // no full case folding (ß ≠ ss)
			{"%", 1}, {"_", 1}, {"a_b", 1}, {"a%b", 0}, {`c\d`, 1}, {"50%", 1}, // literal, no wildcards
			{"first one", 1}, {"second one", 0}, // the first answer only
			{"needle", 1}, // the id NEEDLE-id; contexts and metadata are not searched
			{"alpha", 2}, {"water", 131}, {"item", 130}, {"zzz", 0},
		} {
			_, n := searchReference(all, tc.text, 0, 0)
			if tc.text == "\u212a" {
				tc.count = n // every entry with a k: counted by the reference
			}
			if n != tc.count {
				t.Errorf("reference for %q: %d matches, the test says %d", tc.text, n, tc.count)
			}
			for _, pg := range []struct{ offset, limit int }{{0, 0}, {0, 50}, {50, 50}, {100, 50}, {3, 7}, {n, 50}, {n + 10, 50}} {
				res, err := r.Search(bg(), "s", registry.SearchQuery{Text: tc.text, Offset: pg.offset, Limit: pg.limit})
				if err != nil {
					t.Fatalf("Search(%q): %v", tc.text, err)
				}
				want, _ := searchReference(all, tc.text, pg.offset, pg.limit)
				if res.Matches != n || !res.Exact || !reflect.DeepEqual(ids(res.Entries), ids(want)) {
					t.Errorf("Search(%q, offset %d, limit %d) = %v of %d (exact %v), want %v of %d", tc.text, pg.offset, pg.limit, ids(res.Entries), res.Matches, res.Exact, ids(want), n)
				}
				if len(res.Entries) > 0 && !reflect.DeepEqual(res.Entries[0], want[0]) {
					t.Errorf("Search(%q) entry %+v, want %+v", tc.text, res.Entries[0], want[0])
				}
			}
		}
		// Empty text is every entry, as Entries.
		res, err := r.Search(bg(), "s", registry.SearchQuery{Text: "  ", Limit: 5})
		if err != nil || res.Matches != len(rows) || !res.Exact || !reflect.DeepEqual(ids(res.Entries), ids(all[:5])) {
			t.Errorf("Search(empty) = %v of %d, %v", ids(res.Entries), res.Matches, err)
		}
		// A revision searched by its hash; an unknown benchmark fails as Get does.
		inf, _ := r.Get(bg(), "s")
		if res, err := r.Search(bg(), inf.Revision, registry.SearchQuery{Text: "water", Limit: 1}); err != nil || res.Matches != 131 {
			t.Errorf("Search(%s) = %d, %v", inf.Revision, res.Matches, err)
		}
		if _, err := r.Search(bg(), "nope", registry.SearchQuery{Text: "water", Limit: 1}); err == nil {
			t.Error("Search of an unknown benchmark succeeded")
		}
		// Revisions are searched apart: a second revision with other entries.
		if _, err := r.Create(bg(), "s", registry.Files{FS: fstest.MapFS{"s.jsonl": {Data: []byte(searchRows[0] + "\n")}}, Path: "s.jsonl"}); err != nil {
			t.Fatal(err)
		}
		if res, _ := r.Search(bg(), "s", registry.SearchQuery{Text: "water"}); res.Matches != 1 {
			t.Errorf("the new revision has %d matches for water, want 1", res.Matches)
		}
		if res, _ := r.Search(bg(), inf.Revision, registry.SearchQuery{Text: "water"}); res.Matches != 131 {
			t.Errorf("the old revision has %d matches for water, want 131", res.Matches)
		}
		// Importing the first content again restores its revision and
		// drops the copy, search rows included.
		if _, err := r.Create(bg(), "s", registry.Files{FS: fstest.MapFS{"s.jsonl": {Data: data}}, Path: "s.jsonl"}); err != nil {
			t.Fatal(err)
		}
		if text, fts := registry.CountSearchRows(t, r); text != len(rows)+1 || (fts != -1 && fts != text) {
			t.Errorf("%d entry_text and %d entry_fts rows for %d entries", text, fts, len(rows)+1)
		}
		if res, _ := r.Search(bg(), "s", registry.SearchQuery{Text: "water"}); res.Matches != 131 {
			t.Errorf("the restored revision has %d matches for water, want 131", res.Matches)
		}
		// Deleting the benchmark removes its searched fields and their index too.
		if err := r.Delete(bg(), "s", true); err != nil {
			t.Fatal(err)
		}
		if text, fts := registry.CountSearchRows(t, r); text != 0 || fts > 0 {
			t.Errorf("%d entry_text and %d entry_fts rows left after Delete", text, fts)
		}
	})
}

// searchAlphabet is what TestIndexedSearchIsTheScan builds entries and
// needles from: letters in both cases (ASCII and not, the Kelvin sign,
// dotted İ, ß, Σ and final ς), a combining accent, an emoji (4 bytes in
// UTF-8), the characters FTS5's query syntax and LIKE give a meaning to
// (" * ^ : ( ) - + % _ \ [ ]), FTS5's keywords, white space, and U+FFFD,
// U+FFFE and U+FFFF, which SQLite's trigram tokenizer reads as one
// character. No NUL: import refuses it (the needles have some).
var searchAlphabet = []string{"a", "b", "c", "ab", "abc", "A", "B", "AB", "é", "É", "\u212a", "k", "K", "İ", "i", "ß", "SS", "Σ", "σ", "ς",
	"\u0301", "😀", `"`, `""`, "*", "^", ":", "(", ")", "-", "+", "%", "_", `\`, "[", "]", "'", "AND", "OR", "NOT", "NEAR", " ", "  ", "\t",
	"\uFFFD", "\uFFFE", "\uFFFF", "x", "yz"}

// TestIndexedSearchIsTheScan: the indexed search (SQLite's FTS5
// trigram table, PostgreSQL's pg_trgm index) gives the entries and counts
// of the plain scan of entry_text and of the documented rule, for
// random and adversarial needles (short, Unicode case, quotes, FTS5
// syntax, LIKE wildcards, the characters the tokenizer conflates), over
// random entries made of the same pieces, with pages from either end
// and capped counts, on SQLite and PostgreSQL.
func TestIndexedSearchIsTheScan(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		rng := rand.New(rand.NewPCG(39, 5))
		alphabet := searchAlphabet
		word := func(n int) string {
			var b strings.Builder
			for range n {
				b.WriteString(alphabet[rng.IntN(len(alphabet))])
			}
			return b.String()
		}
		var data bytes.Buffer
		for i := range 250 {
			e := map[string]any{"id": fmt.Sprintf("%s-%d", word(rng.IntN(3)), i), "question": "q " + word(rng.IntN(12))}
			if a := word(rng.IntN(8)); a != "" || rng.IntN(2) == 0 {
				e["answer"] = a
			}
			line, err := json.Marshal(e)
			if err != nil {
				t.Fatal(err)
			}
			data.Write(line)
			data.WriteByte('\n')
		}
		r, err := registry.Open(bg(), dsn)
		if err != nil {
			t.Fatal(err)
		}
		defer r.Close()
		if _, err := r.Create(bg(), "other", registry.Files{FS: fstest.MapFS{"s.jsonl": {Data: []byte(strings.Join(searchRows, "\n") + "\n")}}, Path: "s.jsonl"}); err != nil {
			t.Fatal(err)
		}
		if _, err := r.Create(bg(), "rand", registry.Files{FS: fstest.MapFS{"s.jsonl": {Data: data.Bytes()}}, Path: "s.jsonl"}); err != nil {
			t.Fatal(err)
		}
		all, _, err := r.Entries(bg(), "rand", 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		needles := []string{`"`, `""`, `"abc"`, `a"b`, `" OR "`, "a*", "*", "**", "ab*", "^ab", "ab:c", "(ab)", "NEAR(a b)", "ab AND c", "NOT ab", "-ab",
			"%", "_", "a%b", "a_b", `\`, `\%`, "[ab]", "[", "'", "''", "abc", "ABC", "aBc", "\u212a\u212a\u212a", "kkk", "ss", "ß", "σς", "ΣΣΣ",
			"\uFFFD\uFFFD\uFFFD", "\uFFFE", "a\uFFFEb", "a\uFFFFb", "a\uFFFDb", "😀", "😀😀", "a😀b", "é\u0301", "\u0301\u0301\u0301", "\x00", "a\x00b",
			"q ", " q", "  ", "q", "qq", "-1", "-12", "1-", "zzz", "\xff\xfe", "\xffab", "A-1"}
		random := 120
		if raceOn {
			random = 30
		}
		for range random {
			// A piece of an entry's field (most often a match), changed in case at times, or a random word.
			e := all[rng.IntN(len(all))]
			f := []string{e.ID, e.Question, e.Answer}[rng.IntN(3)]
			switch {
			case f != "" && rng.IntN(4) != 0:
				rs := []rune(f)
				i := rng.IntN(len(rs))
				n := strings.TrimSpace(string(rs[i:min(len(rs), i+1+rng.IntN(6))]))
				if rng.IntN(3) == 0 {
					n = strings.ToUpper(n)
				}
				needles = append(needles, n)
			default:
				needles = append(needles, word(1+rng.IntN(4)))
			}
		}
		failures := 0
		for _, n := range needles {
			// Pages from the start and from the end; counts not capped,
			// capped and counted in the walk of the page (SQLite: a page
			// that ends within CountLimit + 1), capped past the page's end.
			// The scan is compared on the first and the last.
			queries := []registry.SearchQuery{
				{Text: n}, {Text: n, Offset: 7, Limit: 7}, {Text: n, Offset: 3, Limit: 5, FromEnd: true},
				{Text: n, Offset: 4, Limit: 4, CountLimit: 5}, {Text: n, Offset: 1, Limit: 6, CountLimit: 40, FromEnd: true},
				{Text: n, Offset: 30, Limit: 20, CountLimit: 40}, {Text: n, Offset: 2, Limit: 0, CountLimit: 3, FromEnd: true},
				{Text: n, Limit: 4, CountLimit: 5, FromEnd: true},
			}
			for k, q := range queries {
				want := referenceSearch(all, q)
				got, err := r.Search(bg(), "rand", q)
				if err != nil {
					t.Fatalf("Search(%+q): %v", q.Text, err)
				}
				results := map[string]registry.SearchResult{"Search": got}
				if k == 0 || k == len(queries)-1 {
					scan, err := registry.SearchScan(bg(), r, "rand", q)
					if err != nil {
						t.Fatalf("the scan of %+q: %v", q.Text, err)
					}
					results["the scan"] = scan
				}
				for what, res := range results {
					if res.Matches != want.Matches || res.Exact != want.Exact || !reflect.DeepEqual(ids(res.Entries), ids(want.Entries)) {
						t.Errorf("%s(%+q, offset %d, limit %d, from end %v, count limit %d) = %.200q, %d matches (exact %v), want %.200q, %d (exact %v)",
							what, q.Text, q.Offset, q.Limit, q.FromEnd, q.CountLimit, ids(res.Entries), res.Matches, res.Exact, ids(want.Entries), want.Matches, want.Exact)
						failures++
					}
				}
				if failures > 20 {
					t.Fatal("too many differences")
				}
			}
		}
	})
}

func ids(es []registry.Entry) []string {
	out := make([]string, len(es))
	for i, e := range es {
		out[i] = e.ID
	}
	return out
}
