package evalregistry_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/evaltest"
	"github.com/lasagna-go/lasagna/evaltest/evalregistry"
	"github.com/lasagna-go/lasagna/internal/registry"
)

func TestLoadFeedsEvaltest(t *testing.T) {
	dsn := filepath.Join(t.TempDir(), "reg.db")
	t.Setenv(registry.EnvVar, dsn)
	t.Setenv("LASAGNA_OUT", t.TempDir())
	ctx := context.Background()
	r, err := registry.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := r.Create(ctx, "faq", registry.Files{FS: os.DirFS("../../examples/data"), Path: "faq.jsonl"}); err != nil {
		t.Fatal(err)
	}
	if _, err := r.CreateDraft(ctx, "wip"); err != nil {
		t.Fatal(err)
	}
	r.Close()

	data, err := evalregistry.Load(ctx, "registry:faq")
	if err != nil || len(data) != 1 || data[0].Name != "faq@ea3e86b12545" {
		t.Fatalf("Load = %v, %v", data, err)
	}
	_, err = evalregistry.Load(ctx, "registry:faq", "registry:wip", "registry:nope")
	if err == nil || !strings.Contains(err.Error(), "wip is a draft") || !strings.Contains(err.Error(), "nope: not in the registry") {
		t.Errorf("Load of a draft and a missing benchmark: %v", err)
	}

	ev, err := evaltest.Evaluate(ctx, "TestFAQ", evaltest.Config{Data: data, Arms: []evaltest.Arm{evaltest.BM25()}})
	if err != nil {
		t.Fatal(err)
	}
	if ev.Failed() {
		t.Fatalf("evaluation failed: %+v", ev.Tests[0])
	}
	if _, ok := ev.Test("TestFAQ/faq/bm25"); !ok {
		var names []string
		for _, tr := range ev.Tests {
			names = append(names, tr.Name)
		}
		t.Errorf("no arm subtest for faq@ea3e86b12545: %v", names)
	}
}

// A registry: path given to evaltest directly says where registered
// benchmarks come from in a Go test (evaltest links no registry).
func TestEvaltestPointsHere(t *testing.T) {
	ev, err := evaltest.Evaluate(context.Background(), "X", evaltest.Config{Benchmarks: []string{"registry:faq"}, Arms: []evaltest.Arm{evaltest.BM25()}})
	if err != nil {
		t.Fatal(err)
	}
	if !ev.Failed() || !strings.Contains(ev.Tests[0].Failure(), "evaltest/evalregistry (evalregistry.Load) into evaltest.Config.Data") {
		t.Errorf("evaltest with a registry: path: failed=%v %q", ev.Failed(), ev.Tests[0].Failure())
	}
}
