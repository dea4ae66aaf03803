package main

import (
	"bytes"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/registry/hf/hftest"
)

const hubToken = "hf_cliFIXTUREsecret9876543210"

// useHub points the CLI at a fake Hub serving GPQA (gated) and MS MARCO,
// with an empty Hugging Face cache of the test's own and token as HF_TOKEN
// ("" for none). It returns the hub and HF_HOME.
func useHub(t *testing.T, token string) (*hftest.Hub, string) {
	t.Helper()
	hub := hftest.New(t, hubToken, hftest.GPQA(), hftest.MSMARCO())
	home := t.TempDir()
	for k, v := range map[string]string{"HF_ENDPOINT": hub.URL, "HF_HOME": home, "HF_TOKEN": token,
		"HF_HUB_CACHE": "", "HUGGINGFACE_HUB_CACHE": "", "HF_HUB_OFFLINE": "", "TRANSFORMERS_OFFLINE": ""} {
		t.Setenv(k, v)
	}
	return hub, home
}

// TestImportHFDownloadCLI: import-hf without --from downloads GPQA from
// the Hub with HF_TOKEN, which appears in no output, no file of the cache
// and no byte of the registry; the revision and files are listed; a second
// import and an offline one read the cache.
func TestImportHFDownloadCLI(t *testing.T) {
	dsn := useRegistry(t)
	hub, home := useHub(t, hubToken)
	sha := hftest.GPQA().SHA()
	var outs []string
	out, errOut := mustCLI(t, 0, "benchmark", "import-hf", "Idavidrein/gpqa")
	outs = append(outs, out, errOut)
	if want := "created gpqa_diamond@e2de6f886899: 3 questions, 0 documents, active, from Idavidrein/gpqa gpqa_diamond train@" + sha[:12] + " (huggingface csv)\n"; out != want || errOut != "" {
		t.Errorf("import-hf: %q, stderr %q; want %q (no progress line off a terminal)", out, errOut, want)
	}
	files := hub.FileRequests()
	out, errOut = mustCLI(t, 0, "benchmark", "import-hf", "Idavidrein/gpqa")
	outs = append(outs, out, errOut)
	if !strings.HasPrefix(out, "unchanged gpqa_diamond@e2de6f886899") || hub.FileRequests() != files {
		t.Errorf("again: %s (%d file requests more)", out, hub.FileRequests()-files)
	}
	t.Setenv("HF_HUB_OFFLINE", "1")
	n := len(hub.Requests())
	out, errOut = mustCLI(t, 0, "benchmark", "import-hf", "Idavidrein/gpqa", "--name", "gpqa-offline")
	outs = append(outs, out, errOut)
	if !strings.HasPrefix(out, "created gpqa-offline@e2de6f886899") || len(hub.Requests()) != n {
		t.Errorf("offline: %s (%d requests)", out, len(hub.Requests())-n)
	}
	t.Setenv("HF_HUB_OFFLINE", "")
	out, errOut = mustCLI(t, 0, "benchmark", "list", "--json")
	outs = append(outs, out, errOut)
	var list []struct {
		Name   string
		Source map[string]any
	}
	if err := json.Unmarshal([]byte(out), &list); err != nil {
		t.Fatal(err)
	}
	if len(list) != 2 || list[0].Source["revision"] != sha || list[0].Source["dataset"] != "Idavidrein/gpqa" ||
		len(list[0].Source["files"].([]any)) != 1 || list[0].Source["files"].([]any)[0] != "gpqa_diamond.csv" || list[0].Source["path"] != nil {
		t.Errorf("list --json: %s", out)
	}
	out, errOut = mustCLI(t, 0, "benchmark", "show", "gpqa_diamond")
	outs = append(outs, out, errOut)
	for i, o := range outs {
		if strings.Contains(o, hubToken) {
			t.Errorf("output %d holds the token: %s", i, o)
		}
	}
	for _, dir := range []string{home, filepath.Dir(dsn)} {
		filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
			if err == nil && d.Type().IsRegular() {
				if data, _ := os.ReadFile(p); bytes.Contains(data, []byte(hubToken)) || strings.Contains(p, hubToken) {
					t.Errorf("%s holds the token", p)
				}
			}
			return nil
		})
	}
}

// TestImportHFDownloadRefusals: a gated dataset without a token, a
// revision or dataset the Hub lacks, and --revision with --from.
func TestImportHFDownloadRefusals(t *testing.T) {
	useRegistry(t)
	hub, _ := useHub(t, "")
	_, errOut := mustCLI(t, 1, "benchmark", "import-hf", "Idavidrein/gpqa")
	if !strings.Contains(errOut, "lasagna: import-hf Idavidrein/gpqa: Idavidrein/gpqa is gated (401)") || !strings.Contains(errOut, "accept the conditions on the dataset page, "+hub.URL+"/datasets/Idavidrein/gpqa, and set HF_TOKEN") {
		t.Errorf("gated: %s", errOut)
	}
	mustCLI(t, 1, "benchmark", "show", "gpqa_diamond")
	_, errOut = mustCLI(t, 1, "benchmark", "import-hf", "microsoft/ms_marco", "--config", "v1.1", "--revision", "v3")
	if !strings.Contains(errOut, `microsoft/ms_marco has no revision "v3" (404)`) {
		t.Errorf("revision: %s", errOut)
	}
	_, errOut = mustCLI(t, 2, "benchmark", "import-hf", "Idavidrein/gpqa", "--from", hfTestdata+"gpqa", "--revision", "main")
	if !strings.Contains(errOut, "--revision chooses what to download") {
		t.Errorf("--from and --revision: %s", errOut)
	}
	t.Setenv("HF_ENDPOINT", "ftp://example.invalid")
	_, errOut = mustCLI(t, 2, "benchmark", "import-hf", "Idavidrein/gpqa")
	if !strings.Contains(errOut, "HF_ENDPOINT") {
		t.Errorf("bad HF_ENDPOINT: %s", errOut)
	}
}

func TestDownloadProgress(t *testing.T) {
	var b bytes.Buffer
	p := downloadProgress(&b)
	p("a.csv", 0, 2000)
	p("a.csv", 5, 2000) // under 1%: no redraw
	p("a.csv", 1000, 2000)
	p("a.csv", 2000, 2000)
	if want := "\r\033[Kdownloading a.csv: 0 B of 2.0 kB (0%)\r\033[Kdownloading a.csv: 1.0 kB of 2.0 kB (50%)\r\033[Kdownloading a.csv: 2.0 kB of 2.0 kB (100%)\n"; b.String() != want {
		t.Errorf("progress = %q, want %q", b.String(), want)
	}
}
