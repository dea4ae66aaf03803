package registry_test

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// A draft started for a fill lists with its pending source; a failed fill
// leaves it a draft with the error; a fill of rows activates it and
// records the given source (with the rows' sha256), and clears the error.
func TestDraftFilledFromRows(t *testing.T) {
	eachBackend(t, func(t *testing.T, dsn string) {
		r := open(t, dsn)
		src := registry.Source{Kind: registry.SourceKindSynthesis, Synthesis: &registry.Synthesis{
			Model: "m", N: 2, Mix: "factoid=1,multihop=0,unanswerable=0", Seed: 7,
			Documents: []registry.SourceDocument{{ID: "a.md", SHA256: strings.Repeat("ab", 32)}},
		}}
		inf, err := r.StartDraft(bg(), "syn", src)
		if err != nil || inf.Status != registry.StatusDraft || inf.Source == nil || inf.Source.Synthesis == nil || inf.Source.Synthesis.Seed != 7 {
			t.Fatalf("StartDraft = %+v, %v", inf, err)
		}
		if _, err := r.Resolve(bg(), "syn"); err == nil {
			t.Fatal("an empty draft resolved")
		}
		if err := r.FailDraft(bg(), "syn", "no question passed verification"); err != nil {
			t.Fatal(err)
		}
		list, err := r.List(bg(), registry.ListOptions{Status: registry.StatusDraft})
		if err != nil || len(list) != 1 || list[0].Error != "no question passed verification" || list[0].Source.Kind != "synthesis" {
			t.Fatalf("List after a failed fill = %+v, %v", list, err)
		}
		// A retry reuses the draft and clears the error.
		if inf, err = r.StartDraft(bg(), "syn", src); err != nil || inf.Error != "" {
			t.Fatalf("second StartDraft = %+v, %v", inf, err)
		}
		rows := []datasets.Row{
			{ID: "synth-0001", Question: "Q1?", Answers: []string{"a1"}, Contexts: []string{"c1"}},
			{ID: "synth-0002", Question: "Q2?", Answers: []string{"a2"}, Contexts: []string{"c2"}},
		}
		inf, err = r.ImportRows(bg(), "syn", "synthesis.jsonl", rows, registry.ImportOptions{Source: &src})
		if err != nil || inf.Status != registry.StatusActive || inf.Questions != 2 || inf.Error != "" {
			t.Fatalf("ImportRows = %+v, %v", inf, err)
		}
		if inf.Source == nil || inf.Source.Kind != "synthesis" || inf.Source.SHA256 != inf.Digest || inf.Source.Format != "jsonl" || inf.Source.Path != "" {
			t.Errorf("source = %+v (digest %s)", inf.Source, inf.Digest)
		}
		js, _ := json.Marshal(inf.Source)
		if !strings.Contains(string(js), `"documents":[{"id":"a.md","sha256":"abab`) {
			t.Errorf("source JSON %s", js)
		}
		// The revision is the one the same rows give as a JSONL file.
		var buf strings.Builder
		if err := datasets.WriteJSONL(&buf, rows); err != nil {
			t.Fatal(err)
		}
		b, err := datasets.LoadJSONL(fstest.MapFS{"x.jsonl": {Data: []byte(buf.String())}}, "x.jsonl", datasets.Options{Name: "syn"})
		if err != nil || inf.Revision != b.Name {
			t.Errorf("revision %s, the rows as a file give %v (%v)", inf.Revision, b, err)
		}
		if _, err := r.Resolve(bg(), "syn"); err != nil {
			t.Errorf("Resolve after the fill: %v", err)
		}
		// An active benchmark is never taken back to draft; a failure
		// recorded late leaves it alone.
		if _, err := r.StartDraft(bg(), "syn", src); !errors.Is(err, registry.ErrExists) || !strings.Contains(err.Error(), "is active") {
			t.Errorf("StartDraft on an active benchmark: %v", err)
		}
		if err := r.FailDraft(bg(), "syn", "late"); err != nil {
			t.Fatal(err)
		}
		if inf, _ := r.Get(bg(), "syn"); inf.Status != registry.StatusActive || inf.Error != "" {
			t.Errorf("after a late FailDraft: %+v", inf)
		}
		// Invalid rows leave the draft unchanged.
		if _, err := r.StartDraft(bg(), "bad", src); err != nil {
			t.Fatal(err)
		}
		if _, err := r.ImportRows(bg(), "bad", "synthesis.jsonl", []datasets.Row{{ID: "x", Question: ""}}, registry.ImportOptions{Source: &src}); err == nil {
			t.Error("rows without a question imported")
		}
		if inf, _ := r.Get(bg(), "bad"); inf.Status != registry.StatusDraft || inf.Revision != "" {
			t.Errorf("after a failed fill: %+v", inf)
		}
	})
}
