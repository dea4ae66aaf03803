package registry_test

import (
	"fmt"
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
	needle := strings.ToLower(strings.TrimSpace(text))
	var out []registry.Entry
	n := 0
	for _, e := range all {
		if strings.Contains(strings.ToLower(e.ID), needle) || strings.Contains(strings.ToLower(e.Question), needle) ||
			strings.Contains(strings.ToLower(e.Answer), needle) {
			if n >= offset && (limit <= 0 || len(out) < limit) {
				out = append(out, e)
			}
			n++
		}
	}
	return out, n
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
				got, total, err := r.Search(bg(), "s", tc.text, pg.offset, pg.limit)
				if err != nil {
					t.Fatalf("Search(%q): %v", tc.text, err)
				}
				want, _ := searchReference(all, tc.text, pg.offset, pg.limit)
				if total != n || !reflect.DeepEqual(ids(got), ids(want)) {
					t.Errorf("Search(%q, offset %d, limit %d) = %v of %d, want %v of %d", tc.text, pg.offset, pg.limit, ids(got), total, ids(want), n)
				}
				if len(got) > 0 && !reflect.DeepEqual(got[0], want[0]) {
					t.Errorf("Search(%q) entry %+v, want %+v", tc.text, got[0], want[0])
				}
			}
		}
		// Empty text is every entry, as Entries.
		got, total, err := r.Search(bg(), "s", "  ", 0, 5)
		if err != nil || total != len(rows) || !reflect.DeepEqual(ids(got), ids(all[:5])) {
			t.Errorf("Search(empty) = %v of %d, %v", ids(got), total, err)
		}
		// A revision searched by its hash; an unknown benchmark fails as Get does.
		inf, _ := r.Get(bg(), "s")
		if _, total, err := r.Search(bg(), inf.Revision, "water", 0, 1); err != nil || total != 131 {
			t.Errorf("Search(%s) = %d, %v", inf.Revision, total, err)
		}
		if _, _, err := r.Search(bg(), "nope", "water", 0, 1); err == nil {
			t.Error("Search of an unknown benchmark succeeded")
		}
		// Revisions are searched apart: a second revision with other entries.
		if _, err := r.Create(bg(), "s", registry.Files{FS: fstest.MapFS{"s.jsonl": {Data: []byte(searchRows[0] + "\n")}}, Path: "s.jsonl"}); err != nil {
			t.Fatal(err)
		}
		if _, total, _ := r.Search(bg(), "s", "water", 0, 0); total != 1 {
			t.Errorf("the new revision has %d matches for water, want 1", total)
		}
		if _, total, _ := r.Search(bg(), inf.Revision, "water", 0, 0); total != 131 {
			t.Errorf("the old revision has %d matches for water, want 131", total)
		}
		// Deleting the benchmark removes its searched fields too.
		if err := r.Delete(bg(), "s", true); err != nil {
			t.Fatal(err)
		}
		if n := registry.CountSearchRows(t, r); n != 0 {
			t.Errorf("%d entry_text rows left after Delete", n)
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
