package hf_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/registry/hf"
	"github.com/lasagna-go/lasagna/internal/registry/hf/hftest"
)

const (
	ctxGlass = "Soda-lime glass is made from silica, soda ash and lime. The soda lowers the melting point of the silica; the lime makes the glass stable in water."
	ctxCoin  = "The solidus was a gold coin introduced by Constantine the Great in about 312. It was replaced by the hyperpyron in 1092."
)

// TestHFImportQADatasets: SQuAD v1.1 and v2.0 and NQ-open downloaded from
// the fake Hub become the entries their rules say; without the parquet
// reader the download happens and the import is refused with the command
// that builds one.
func TestHFImportQADatasets(t *testing.T) {
	repos := map[string]hftest.Repo{hf.SQuAD: hftest.SQuAD(), hf.SQuADv2: hftest.SQuADv2(), hf.NQOpen: hftest.NQOpen()}
	hub := hftest.New(t, token, repos[hf.SQuAD], repos[hf.SQuADv2], repos[hf.NQOpen])
	home := t.TempDir()
	r, dbPath := sqlite(t)
	// A token is sent (a user's HF_TOKEN) and must appear nowhere.
	h := hubEnv(t, hub.URL, home, "HF_TOKEN", token)
	t.Cleanup(func() { noSecret(t, home); noSecret(t, filepath.Dir(dbPath)) })
	for _, c := range []struct {
		dataset, name, file string
		n                   int
		first, last         registry.Entry
	}{
		{hf.SQuAD, "squad-validation", "plain_text/validation-00000-of-00001.parquet", 3,
			registry.Entry{ID: "5733be284776f41900661182", Question: "What lowers the melting point of silica?", Answer: "The soda", Answers: []string{"The soda", "soda"}, Contexts: []string{ctxGlass}, Metadata: map[string]any{"title": "Glass"}},
			registry.Entry{ID: "5733be284776f41900661184", Question: "Who introduced the solidus?", Answer: "Constantine the Great", Answers: []string{"Constantine the Great", "Constantine"}, Contexts: []string{ctxCoin}, Metadata: map[string]any{"title": "Solidus"}}},
		{hf.SQuADv2, "squad_v2-validation", "squad_v2/validation-00000-of-00001.parquet", 4,
			registry.Entry{ID: "5733be284776f41900661182", Question: "What lowers the melting point of silica?", Answer: "The soda", Answers: []string{"The soda", "soda"}, Contexts: []string{ctxGlass}, Metadata: map[string]any{"title": "Glass"}},
			registry.Entry{ID: "5ad39d53604f3c001a3fe8d1", Question: "What did the solidus cost to mint?", Unanswerable: true, Contexts: []string{ctxCoin}, Metadata: map[string]any{"title": "Solidus", "unanswerable": true}}},
		{hf.NQOpen, "nq_open-validation", "nq_open/validation-00000-of-00001.parquet", 3,
			registry.Entry{ID: "nq-" + hftest.QuestionHash("who introduced the solidus"), Question: "who introduced the solidus", Answer: "Constantine the Great", Answers: []string{"Constantine the Great", "Constantine I"}},
			registry.Entry{ID: "nq-" + hftest.QuestionHash("what does soda lower in glass making"), Question: "what does soda lower in glass making", Answer: "the melting point of silica"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: c.dataset, Hub: h})
			if !buildtag.Parquet {
				if err == nil || !strings.Contains(err.Error(), c.dataset+": reading its parquet files needs a lasagna built with the parquet reader; build one, from a clone of the repository: go install -tags postgres,weaviate,parquet ./cmd/lasagna") {
					t.Errorf("without parquet: err = %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inf.Name != c.name || inf.Questions != c.n || !reflect.DeepEqual(inf.Source.Files, []string{c.file}) || inf.Source.Path != "" || inf.Source.Format != "parquet" {
				t.Errorf("info = %+v, source %+v", inf, inf.Source)
			}
			// The revision recorded, the file in the Hub's cache layout, and
			// a second import served from the cache.
			repo := repos[c.dataset]
			if inf.Source.Revision != repo.SHA() {
				t.Errorf("revision %q, want the repository's commit %s", inf.Source.Revision, repo.SHA())
			}
			snap := filepath.Join(home, "hub", "datasets--"+strings.ReplaceAll(c.dataset, "/", "--"), "snapshots", repo.SHA(), filepath.FromSlash(c.file))
			if _, err := os.Stat(snap); err != nil {
				t.Errorf("not in the Hub's cache layout: %v", err)
			}
			files := hub.FileRequests()
			if again, _, err := hf.Import(bg(), r, hf.Options{Dataset: c.dataset, Hub: h}); err != nil || again.Digest != inf.Digest || hub.FileRequests() != files {
				t.Errorf("a second import: %v, digest %s, %d file requests more", err, again.Digest, hub.FileRequests()-files)
			}
			es, _, err := r.Entries(bg(), inf.Name, 0, 0)
			if err != nil {
				t.Fatal(err)
			}
			if len(es) != c.n {
				t.Fatalf("%d entries", len(es))
			}
			for i, want := range []registry.Entry{c.first, c.last} {
				got := es[0]
				if i == 1 {
					got = es[len(es)-1]
				}
				got.ExpectedDocs = nil
				if !reflect.DeepEqual(got, want) {
					t.Errorf("entry %d:\n got %+v\nwant %+v", i, got, want)
				}
			}
		})
	}
}
