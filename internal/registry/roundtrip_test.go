package registry_test

import (
	"bytes"
	"errors"
	"reflect"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// roundTripRows holds every corner of the JSONL format a download has to
// keep: several answers and one answer, a numeric id and a missing one
// (row<line>), named passages out of sorted order, a row citing a passage
// by name without its text, an unanswerable row whose passage is named
// (its expected_docs name a document relevant to nothing), an unnamed
// passage, an unanswerable row sharing a named passage, and nested
// metadata with numbers.
const roundTripRows = `{"id": "a", "question": "Which two?", "answers": ["x", "y"], "contexts": ["Text one.", "Text two."], "expected_docs": ["zeta", "alpha"], "metadata": {"n": 3, "nested": {"k": [1, "s", true]}}}
{"id": 7, "question": "Cited by name?", "answer": "one", "expected_docs": ["alpha"]}
{"id": "c", "question": "Nobody knows?", "contexts": ["Text three."], "expected_docs": ["ghost"], "metadata": {"unanswerable": true, "topic": "t"}}
{"question": "No id, nothing else?"}
{"id": "e", "question": "Unnamed?", "answer": "four", "context": "Text four."}
{"id": "f", "question": "Shared and unanswerable?", "contexts": ["Text one."], "metadata": {"unanswerable": true}}
`

// TestDownloadCreateRoundTrip: download → create of a JSONL benchmark and
// of a CSV one gives the same benchmark — every query, id, answer,
// passage, passage id, judgement and metadata value — and downloading
// the copy gives the same bytes.
func TestDownloadCreateRoundTrip(t *testing.T) {
	fsys := fstest.MapFS{
		"rt.jsonl": {Data: []byte(roundTripRows)},
		"rt.csv":   {Data: []byte("id,question,answer,contexts\nq1,First?,yes,Alpha passage.|||Beta passage.\nq2,Second?,,Beta passage.\n")},
	}
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		for _, src := range []string{"rt.jsonl", "rt.csv"} {
			if _, err := r.Create(bg(), "orig", registry.Files{FS: fsys, Path: src}); err != nil {
				t.Fatalf("%s: %v", src, err)
			}
			var first bytes.Buffer
			if err := r.Download(bg(), "orig", &first); err != nil {
				t.Fatalf("%s: download: %v", src, err)
			}
			dl := fstest.MapFS{"copy.jsonl": {Data: first.Bytes()}}
			if _, err := r.Create(bg(), "copy", registry.Files{FS: dl, Path: "copy.jsonl"}); err != nil {
				t.Fatalf("%s: create from the download: %v\n%s", src, err, first.String())
			}
			orig, err := r.Resolve(bg(), "orig")
			if err != nil {
				t.Fatal(err)
			}
			cp, err := r.Resolve(bg(), "copy")
			if err != nil {
				t.Fatal(err)
			}
			if len(orig.Queries) == 0 || len(orig.Corpus) == 0 || len(orig.Qrels) == 0 {
				t.Fatalf("%s: the benchmark is empty: %+v", src, orig)
			}
			a, b := comparable(orig), comparable(cp)
			if !reflect.DeepEqual(a.Queries, b.Queries) {
				t.Errorf("%s: the queries differ after download → create:\n%+v\n%+v", src, a.Queries, b.Queries)
			}
			if !reflect.DeepEqual(a.Corpus, b.Corpus) {
				t.Errorf("%s: the corpus differs after download → create:\n%+v\n%+v", src, a.Corpus, b.Corpus)
			}
			if !reflect.DeepEqual(a.Qrels, b.Qrels) {
				t.Errorf("%s: the judgements differ after download → create:\n%v\n%v", src, a.Qrels, b.Qrels)
			}
			if a.Provenance != b.Provenance || b.Format != lasagna.FormatJSONL {
				t.Errorf("%s: provenance %q → %q, format %q", src, a.Provenance, b.Provenance, b.Format)
			}
			var second bytes.Buffer
			if err := r.Download(bg(), "copy", &second); err != nil {
				t.Fatal(err)
			}
			if first.String() != second.String() {
				t.Errorf("%s: the copy downloads differently:\n%s---\n%s", src, first.String(), second.String())
			}
			for _, name := range []string{"orig", "copy"} {
				if err := r.Delete(bg(), name, true); err != nil {
					t.Fatal(err)
				}
			}
		}
	})
}

// TestFindRevision: Stamp changes with an import; a revision is found by its content digest (full or a
// 12-digit prefix) whatever the benchmark's name; an unknown digest is
// ErrNotFound and a malformed one an error.
func TestFindRevision(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		before, err := r.Stamp(bg())
		if err != nil {
			t.Fatal(err)
		}
		inf, err := r.Create(bg(), "mine", file("examples/data", "faq.jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		if after, err := r.Stamp(bg()); err != nil || after == before {
			t.Errorf("Stamp %q before an import, %q (%v) after", before, after, err)
		}
		for _, d := range []string{inf.Digest, inf.Digest[:12]} {
			b, err := r.FindRevision(bg(), d)
			if err != nil || b.Revision != inf.Digest || b.Name != "mine@"+inf.Digest[:12] || len(b.Queries) != 47 {
				t.Errorf("FindRevision(%s) = %v, %v", d, b, err)
			}
		}
		if _, err := r.FindRevision(bg(), strings.Repeat("0", 64)); !errors.Is(err, registry.ErrNotFound) {
			t.Errorf("unknown digest: %v", err)
		}
		if _, err := r.FindRevision(bg(), "ea3e%"); err == nil || !strings.Contains(err.Error(), "hex digits") {
			t.Errorf("malformed digest: %v", err)
		}
	})
}
