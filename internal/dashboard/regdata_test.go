package dashboard

import (
	"context"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// TestReportShowsRegistryData: the report page of a bundle run on a
// registry benchmark shows each query's question and gold answers and
// marks the relevant documents: the dashboard finds the benchmark in the
// registry by the bundle's content hash. So does the comparison page.
func TestReportShowsRegistryData(t *testing.T) {
	deps := func(*engine.Sweep) (engine.Deps, error) {
		return engine.Deps{Generator: func(engine.GeneratorSpec) (lasagna.Generator, error) {
			return lasagna.GeneratorFunc(func(_ context.Context, q lasagna.Query, _ []lasagna.Document) (lasagna.Answer, error) {
				return lasagna.Answer{Text: "generated for " + q.ID}, nil
			}), nil
		}}, nil
	}
	f := newRegFixture(t, sqliteDSN(t), deps)
	sweep := "arms:\n  - {name: gen, retriever: bm25, generator: {kind: grounded, model: m}}\n"
	if err := os.WriteFile(filepath.Join(f.sweeps, "gen.yaml"), []byte(sweep), 0o644); err != nil {
		t.Fatal(err)
	}
	id := evaluate(t, f.s, url.Values{"ref": {"faq"}, "sweep": {"gen.yaml"}})
	v := waitEvaluation(t, f.s, id)
	if v.State != "done" {
		t.Fatalf("%+v", v)
	}
	res, body := get(t, f.s, "/bundles/"+v.Bundle)
	if res.StatusCode != 200 {
		t.Fatalf("the report: %s\n%s", res.Status, body)
	}
	for _, want := range []string{
		`<th data-type="text">question</th>`, `<th data-type="text">gold</th>`, "relevant marked",
		// glass-02: its question, its answer and both gold answers.
		`<td class="id">glass-02</td><td>Which ingredient makes soda-lime glass stable in water?</td>`,
		`<td>generated for glass-02</td><td>Lime | calcium oxide</td>`,
		`<span class="rel" title="relevant">soda-lime</span>`,
	} {
		if !strings.Contains(body, want) {
			t.Errorf("the report of a registry benchmark's bundle lacks %q", want)
		}
	}
	_, cmp := get(t, f.s, "/compare?bundle="+url.QueryEscape(v.Bundle)+"&baseline="+url.QueryEscape(v.Bundle))
	if !strings.Contains(cmp, `<td>Which ingredient makes soda-lime glass stable in water?</td>`) {
		t.Errorf("the comparison page shows no questions")
	}

	// The cached page follows the registry: with faq's content deleted
	// (faq, and old, an archived copy) the page shows ids only; imported
	// again, its questions come back.
	for _, name := range []string{"faq", "old"} {
		if err := f.reg.Delete(t.Context(), name, true); err != nil {
			t.Fatal(err)
		}
	}
	if _, body := get(t, f.s, "/bundles/"+v.Bundle); strings.Contains(body, `<th data-type="text">question</th>`) {
		t.Error("the page still shows the questions of a deleted benchmark")
	}
	faq := registry.Files{FS: os.DirFS(filepath.Join("..", "..", "examples", "data")), Path: "faq.jsonl"}
	if _, err := f.reg.Create(t.Context(), "faq-again", faq); err != nil {
		t.Fatal(err)
	}
	if _, body := get(t, f.s, "/bundles/"+v.Bundle); !strings.Contains(body, `<td>Which ingredient makes soda-lime glass stable in water?</td>`) {
		t.Error("the page does not show the questions once the benchmark is imported again")
	}

	// Without the benchmark in the registry the page shows ids only.
	g, err := New(Options{Bundles: f.bundles, Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer g.Close()
	if _, body := get(t, g, "/bundles/"+v.Bundle); strings.Contains(body, `<th data-type="text">question</th>`) || !strings.Contains(body, "glass-02") {
		t.Errorf("a dashboard without the registry shows questions it cannot know")
	}
}
