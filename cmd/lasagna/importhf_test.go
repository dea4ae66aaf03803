package main

import (
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/servertest"
)

const hfTestdata = "../../internal/registry/hf/testdata/"

func TestImportHFCLI(t *testing.T) {
	servertest.NeedTag(t, "parquet", buildtag.Parquet)
	useRegistry(t)
	out, _ := mustCLI(t, 0, "benchmark", "import-hf", "microsoft/ms_marco", "--from", hfTestdata+"ms_marco", "--config", "v1.1")
	if !strings.HasPrefix(out, "created ms_marco-v1.1-validation@") || !strings.Contains(out, "3 questions, 4 documents, active, from microsoft/ms_marco v1.1 validation (huggingface parquet)") {
		t.Errorf("import-hf ms_marco: %s", out)
	}
	out, _ = mustCLI(t, 0, "benchmark", "import-hf", "microsoft/ms_marco", "--from", hfTestdata+"ms_marco", "--config", "v1.1")
	if !strings.HasPrefix(out, "unchanged ms_marco-v1.1-validation@") {
		t.Errorf("import-hf again: %s", out)
	}
	out, _ = mustCLI(t, 0, "benchmark", "import-hf", "Idavidrein/gpqa", "--from", hfTestdata+"gpqa", "--name", "gpqa", "--limit", "2")
	if !strings.HasPrefix(out, "created gpqa@") || !strings.Contains(out, "2 questions, 0 documents, active, from Idavidrein/gpqa gpqa_diamond train, first 2 rows (huggingface csv)") {
		t.Errorf("import-hf gpqa: %s", out)
	}
	out, _ = mustCLI(t, 0, "benchmark", "list", "--json")
	var list []struct {
		Name   string
		Source map[string]any
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[1].Source["dataset"] != "microsoft/ms_marco" || list[1].Source["config"] != "v1.1" || list[1].Source["split"] != "validation" || list[1].Source["kind"] != "huggingface" {
		t.Errorf("list --json: %s", out)
	}
	// an MS MARCO import evaluates (retrieval over its corpus)
	out, _ = mustCLI(t, 0, "benchmark", "run", "registry:ms_marco-v1.1-validation", "-o", filepath.Join(t.TempDir(), "b.json"))
	if !strings.Contains(out, "ms_marco-v1.1-validation@") || !strings.Contains(out, "bm25") {
		t.Errorf("run registry:ms_marco-v1.1-validation: %s", out)
	}

	// usage errors exit 2; bad data exits 1 and registers nothing
	mustCLI(t, 2, "benchmark", "import-hf", "squad", "--from", hfTestdata+"gpqa")
	useHub(t, "")
	t.Setenv("HF_HUB_OFFLINE", "1") // without --from: a download, here from an empty cache
	mustCLI(t, 1, "benchmark", "import-hf", "Idavidrein/gpqa")
	t.Setenv("HF_HUB_OFFLINE", "")
	mustCLI(t, 2, "benchmark", "import-hf", "Idavidrein/gpqa", "--from", hfTestdata+"nothing")
	_, errOut := mustCLI(t, 1, "benchmark", "import-hf", "Idavidrein/gpqa", "--from", hfTestdata+"ms_marco", "--name", "nope")
	if !strings.Contains(errOut, "gpqa_diamond.csv") {
		t.Errorf("gpqa from the wrong folder: %s", errOut)
	}
	mustCLI(t, 1, "benchmark", "show", "nope")
}
