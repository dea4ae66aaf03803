package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna/internal/pgtest"
)

const faqPath = "../../examples/data/faq.jsonl"

// useRegistry points LASAGNA_REGISTRY at a new SQLite file.
func useRegistry(t *testing.T) string {
	t.Helper()
	dsn := filepath.Join(t.TempDir(), "registry.db")
	t.Setenv("LASAGNA_REGISTRY", dsn)
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	return dsn
}

// TestRegistryCLIPostgres runs the CLI flows on a PostgreSQL registry: a
// throwaway cluster of this test's own (skipped where no server binary
// exists).
func TestRegistryCLIPostgres(t *testing.T) {
	c := pgtest.New(t)
	for name, flow := range map[string]func(*testing.T){
		"flow": testRegistryCLIFlow, "run": testRegistryRunIsTheFileRun, "refusals": testRegistryRunRefusesDraftAndArchived,
		"synthesize-into": testSynthesizeInto, "concurrent-creates": testConcurrentCreates,
	} {
		t.Run(name, func(t *testing.T) {
			t.Setenv("LASAGNA_REGISTRY", c.Database(t))
			t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
			flow(t)
		})
	}
}

func mustCLI(t *testing.T, want int, args ...string) (string, string) {
	t.Helper()
	out, errOut, code := runCLI(t, args...)
	if code != want {
		t.Fatalf("lasagna %s: exit %d, want %d\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), code, want, out, errOut)
	}
	return out, errOut
}

// TestConcurrentCreates: of three `benchmark create` of one file at once,
// one prints created and the others unchanged (the registry decides
// under its write lock), and one revision is stored.
func TestConcurrentCreates(t *testing.T) {
	useRegistry(t)
	testConcurrentCreates(t)
}

func testConcurrentCreates(t *testing.T) {
	mustCLI(t, 0, "benchmark", "list") // the registry exists before the race
	const n = 3
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			out, errOut, code := runCLI(t, "benchmark", "create", "faq", "--from", faqPath)
			if code != 0 {
				t.Errorf("create: exit %d: %s", code, errOut)
			}
			outs[i] = out
		})
	}
	wg.Wait()
	var created, unchanged int
	for _, out := range outs {
		switch {
		case strings.HasPrefix(out, "created faq@"):
			created++
		case strings.HasPrefix(out, "unchanged: faq@"):
			unchanged++
		}
	}
	if created != 1 || unchanged != n-1 {
		t.Errorf("outputs %q; want one created and %d unchanged", outs, n-1)
	}
	out, _ := mustCLI(t, 0, "benchmark", "show", "faq", "--json")
	var shown struct{ Revisions []json.RawMessage }
	if err := json.Unmarshal([]byte(out), &shown); err != nil || len(shown.Revisions) != 1 {
		t.Errorf("show --json after the race (%v): %d revisions, want 1", err, len(shown.Revisions))
	}
}

// TestReadOnlyRegistryCLI: a registry file without write permission is
// listed, shown, run and downloaded; a change says the file is read-only
// and how to fix it (exit 1). Root passes every permission check, so the
// test skips there (internal/registry forces the read-only open instead).
func TestReadOnlyRegistryCLI(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Skip("running as root, where file permissions do not apply")
	}
	dsn := useRegistry(t)
	mustCLI(t, 0, "benchmark", "create", "faq", "--from", faqPath)
	if err := os.Chmod(dsn, 0o444); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.Chmod(dsn, 0o644) })
	if out, _ := mustCLI(t, 0, "benchmark", "list"); !strings.Contains(out, "faq@ea3e86b12545") {
		t.Errorf("list:\n%s", out)
	}
	mustCLI(t, 0, "benchmark", "show", "faq")
	mustCLI(t, 0, "benchmark", "run", "registry:faq", "-o", filepath.Join(t.TempDir(), "run.json"))
	if out, _ := mustCLI(t, 0, "benchmark", "download", "faq"); strings.Count(out, "\n") != 47 {
		t.Errorf("download: %d lines", strings.Count(out, "\n"))
	}
	_, errOut := mustCLI(t, 1, "benchmark", "archive", "faq")
	for _, want := range []string{dsn + " is read-only (no write permission on the file)", "give this user write permission on " + dsn} {
		if !strings.Contains(errOut, want) {
			t.Errorf("archive: %s\nwant %q", errOut, want)
		}
	}
}

func TestRegistryCLIFlow(t *testing.T) {
	useRegistry(t)
	testRegistryCLIFlow(t)
}

func testRegistryCLIFlow(t *testing.T) {
	out, _ := mustCLI(t, 0, "benchmark", "list")
	if !strings.Contains(out, "no benchmarks") {
		t.Errorf("empty list: %s", out)
	}
	out, _ = mustCLI(t, 0, "benchmark", "create", "faq", "--from", faqPath)
	if out != "created faq@ea3e86b12545: 47 questions, 38 documents, active\n" {
		t.Errorf("create: %q", out)
	}
	out, _ = mustCLI(t, 0, "benchmark", "create", "faq", "--from", faqPath)
	if !strings.HasPrefix(out, "unchanged: faq@ea3e86b12545 is already the current revision") {
		t.Errorf("create again: %q", out)
	}
	out, _ = mustCLI(t, 0, "benchmark", "list", "--json")
	var list []map[string]any
	if err := json.Unmarshal([]byte(out), &list); err != nil || len(list) != 1 {
		t.Fatalf("list --json: %v\n%s", err, out)
	}
	for k, v := range map[string]any{"name": "faq", "status": "active", "questions": 47.0, "revision": "faq@ea3e86b12545"} {
		if list[0][k] != v {
			t.Errorf("list --json %s = %v, want %v", k, list[0][k], v)
		}
	}
	if src, _ := list[0]["source"].(map[string]any); src["sha256"] != "ea3e86b125454f2e38f54ca1bc585c36383565fd51f57728f30a1a47c7a7a33f" || src["path"] != faqPath {
		t.Errorf("source = %v", list[0]["source"])
	}
	if _, ok := list[0]["created"].(string); !ok {
		t.Errorf("created = %v", list[0]["created"])
	}
	out, _ = mustCLI(t, 0, "benchmark", "show", "faq", "--limit", "2")
	for _, want := range []string{"name:        faq\n", "status:      active\n", "revision:    faq@ea3e86b12545\n", "questions:   47\n", "entries (1–2 of 47):", "glass-01", "… 45 more"} {
		if !strings.Contains(out, want) {
			t.Errorf("show lacks %q:\n%s", want, out)
		}
	}
	out, _ = mustCLI(t, 0, "benchmark", "show", "faq@ea3e86b12545", "--json", "--limit", "0")
	var shown struct {
		Benchmark    map[string]any   `json:"benchmark"`
		Entries      []map[string]any `json:"entries"`
		EntriesTotal int              `json:"entries_total"`
	}
	if err := json.Unmarshal([]byte(out), &shown); err != nil || len(shown.Entries) != 47 || shown.EntriesTotal != 47 || shown.Benchmark["revision"] != "faq@ea3e86b12545" {
		t.Errorf("show --json: %v, %d entries", err, len(shown.Entries))
	}

	dir := t.TempDir()
	jsonl := filepath.Join(dir, "faq-entries.jsonl")
	mustCLI(t, 0, "benchmark", "download", "faq", "-o", jsonl)
	if data, err := os.ReadFile(jsonl); err != nil || bytes.Count(data, []byte("\n")) != 47 || !bytes.Contains(data, []byte(`"unanswerable":true`)) {
		t.Errorf("download: %v\n%.300s", err, data)
	}
	out, _ = mustCLI(t, 0, "benchmark", "download", "faq")
	if strings.Count(out, "\n") != 47 {
		t.Errorf("download to stdout: %d lines", strings.Count(out, "\n"))
	}

	csvPath := filepath.Join(dir, "faq.csv")
	_, errOut := mustCLI(t, 1, "benchmark", "export", "faq", "-o", csvPath)
	if !strings.Contains(errOut, "--skip-unanswerable") {
		t.Errorf("export of unanswerable entries: %s", errOut)
	}
	if _, err := os.Stat(csvPath); err == nil {
		t.Error("a failed export left its file")
	}
	_, errOut = mustCLI(t, 0, "benchmark", "export", "faq", "-o", csvPath, "--skip-unanswerable")
	if !strings.Contains(errOut, "left out 3 unanswerable (no answer): glass-") {
		t.Errorf("export stderr: %s", errOut)
	}
	out, _ = mustCLI(t, 0, "benchmark", "create", "faq-csv", "--from", csvPath)
	if !strings.HasPrefix(out, "created faq-csv@") || !strings.Contains(out, "44 questions") {
		t.Errorf("create from the export: %q", out)
	}
	again, _ := mustCLI(t, 0, "benchmark", "export", "faq-csv")
	if first, _ := os.ReadFile(csvPath); string(first) != again {
		t.Errorf("the export does not round-trip:\n%s\n---\n%s", first, again)
	}

	// Lifecycle.
	mustCLI(t, 0, "benchmark", "archive", "faq")
	out, _ = mustCLI(t, 0, "benchmark", "list", "--status", "archived")
	if !strings.Contains(out, "faq ") || strings.Contains(out, "faq-csv") {
		t.Errorf("list --status archived:\n%s", out)
	}
	mustCLI(t, 0, "benchmark", "activate", "faq")
	_, errOut = mustCLI(t, 1, "benchmark", "delete", "faq")
	if !strings.Contains(errOut, "--force") {
		t.Errorf("delete of an active benchmark: %s", errOut)
	}
	mustCLI(t, 0, "benchmark", "delete", "faq", "--force")
	out, _ = mustCLI(t, 0, "benchmark", "list")
	if strings.Contains(out, "faq ") || !strings.Contains(out, "faq-csv") {
		t.Errorf("list after delete:\n%s", out)
	}
	_, errOut = mustCLI(t, 1, "benchmark", "show", "faq")
	if !strings.Contains(errOut, "not in the registry") {
		t.Errorf("show of a deleted benchmark: %s", errOut)
	}

	// Drafts.
	out, _ = mustCLI(t, 0, "benchmark", "create", "wip", "--draft")
	if !strings.Contains(out, "empty draft") {
		t.Errorf("create --draft: %s", out)
	}
	out, _ = mustCLI(t, 0, "benchmark", "show", "wip", "--json")
	if !strings.Contains(out, `"revisions": []`) || !strings.Contains(out, `"entries": []`) || !strings.Contains(out, `"status": "draft"`) {
		t.Errorf("show --json of a draft:\n%s", out)
	}
	if out, _ = mustCLI(t, 0, "benchmark", "show", "wip"); !strings.Contains(out, "none (an empty draft)") {
		t.Errorf("show of a draft:\n%s", out)
	}
	out, _ = mustCLI(t, 0, "benchmark", "list", "--status", "draft")
	if f := strings.Fields(strings.Split(out, "\n")[1]); len(f) < 4 || f[0] != "wip" || f[1] != "draft" || f[2] != "0" || f[3] != "-" {
		t.Errorf("draft list:\n%s", out)
	}
	mustCLI(t, 1, "benchmark", "activate", "wip")
	mustCLI(t, 1, "benchmark", "archive", "wip")
	mustCLI(t, 0, "benchmark", "delete", "wip")
}

func TestRegistryCLIErrors(t *testing.T) {
	dsn := useRegistry(t)
	dir := t.TempDir()
	bad := filepath.Join(dir, "bad.jsonl")
	os.WriteFile(bad, []byte(`{"question":"q?","answer":"a"}`+"\n"+`{"question":"q2?","anwser":"b"}`+"\n"), 0o644)
	_, errOut := mustCLI(t, 1, "benchmark", "create", "x", "--from", bad)
	if !strings.Contains(errOut, bad+":2:") || !strings.Contains(errOut, `"anwser"`) {
		t.Errorf("invalid data: %s", errOut)
	}
	if out, _ := mustCLI(t, 0, "benchmark", "list"); !strings.Contains(out, "no benchmarks") {
		t.Errorf("a failed import left:\n%s", out)
	}
	for _, args := range [][]string{
		{"benchmark", "create", "x"},
		{"benchmark", "create", "x", "--draft", "--from", faqPath},
		{"benchmark", "create", "bad name", "--from", faqPath},
		{"benchmark", "create", "x", "--from", filepath.Join(dir, "missing.jsonl")},
		{"benchmark", "create", "x", "--from", faqPath, "--format", "parquet"},
		{"benchmark", "list", "--status", "gone"},
		{"benchmark", "show", "faq@zz"},
		{"benchmark", "archive", "faq@ea3e86b12545"},
		{"benchmark", "delete"},
		{"benchmark", "run", "registry:faq", "--name", "other"},
		{"benchmark", "run", "registry:"},
		{"benchmark", "run", "registry:faq@xyz"},
	} {
		mustCLI(t, 2, args...)
	}
	if _, err := os.Stat(dsn); err != nil {
		t.Errorf("the registry file: %v", err)
	}
}

func TestRegistryRunIsTheFileRun(t *testing.T) {
	useRegistry(t)
	testRegistryRunIsTheFileRun(t)
}

func testRegistryRunIsTheFileRun(t *testing.T) {
	mustCLI(t, 0, "benchmark", "create", "faq", "--from", faqPath)
	dir := t.TempDir()
	fromFile, fromReg := filepath.Join(dir, "file.json"), filepath.Join(dir, "reg.json")
	mustCLI(t, 0, "benchmark", "run", faqPath, "--name", "faq", "-o", fromFile)
	mustCLI(t, 0, "benchmark", "run", "registry:faq", "-o", fromReg)
	a, _ := os.ReadFile(fromFile)
	b, _ := os.ReadFile(fromReg)
	if len(a) == 0 || !bytes.Equal(a, b) {
		t.Fatalf("the registry run's bundle differs from the file run's (%d and %d bytes)", len(a), len(b))
	}
	if !bytes.Contains(a, []byte(`"faq@ea3e86b12545"`)) {
		t.Errorf("bundle does not name faq@ea3e86b12545")
	}

	// The same through sweep files.
	abs, _ := filepath.Abs(faqPath)
	sweeps := map[string]string{
		"file.yaml": "benchmarks:\n  - {path: " + abs + ", name: faq}\narms:\n  - {name: bm25, retriever: bm25}\n",
		"reg.yaml":  "benchmarks:\n  - {path: registry:faq@ea3e86b12545}\narms:\n  - {name: bm25, retriever: bm25}\n",
	}
	var bundles [][]byte
	for _, name := range []string{"file.yaml", "reg.yaml"} {
		p := filepath.Join(dir, name)
		os.WriteFile(p, []byte(sweeps[name]), 0o644)
		out := p + ".json"
		mustCLI(t, 0, "benchmark", "run", p, "-o", out)
		data, _ := os.ReadFile(out)
		bundles = append(bundles, data)
	}
	if len(bundles[0]) == 0 || !bytes.Equal(bundles[0], bundles[1]) {
		t.Errorf("sweep bundles differ: path: registry:faq@ea3e86b12545 vs the file with name: faq")
	}
}

func TestRegistryRunRefusesDraftAndArchived(t *testing.T) {
	useRegistry(t)
	testRegistryRunRefusesDraftAndArchived(t)
}

func testRegistryRunRefusesDraftAndArchived(t *testing.T) {
	mustCLI(t, 0, "benchmark", "create", "wip", "--draft")
	_, errOut := mustCLI(t, 2, "benchmark", "run", "registry:wip")
	if !strings.Contains(errOut, "wip is a draft with no entries") || !strings.Contains(errOut, "lasagna benchmark create wip --from") {
		t.Errorf("empty draft: %s", errOut)
	}
	mustCLI(t, 0, "benchmark", "create", "faq", "--from", faqPath)
	mustCLI(t, 0, "benchmark", "archive", "faq")
	_, errOut = mustCLI(t, 2, "benchmark", "run", "registry:faq")
	if !strings.Contains(errOut, "benchmark faq is archived") || !strings.Contains(errOut, "`lasagna benchmark activate faq`") {
		t.Errorf("archived: %s", errOut)
	}
	dir := t.TempDir()
	sweep := filepath.Join(dir, "s.yaml")
	os.WriteFile(sweep, []byte("benchmarks:\n  - path: registry:faq\narms:\n  - {name: bm25, retriever: bm25}\n"), 0o644)
	_, errOut = mustCLI(t, 2, "benchmark", "run", sweep)
	if !strings.Contains(errOut, sweep+":2: benchmark registry:faq: benchmark faq is archived") {
		t.Errorf("archived in a sweep: %s", errOut)
	}
	_, errOut = mustCLI(t, 1, "benchmark", "run", "registry:nothing")
	if !strings.Contains(errOut, "nothing: not in the registry") {
		t.Errorf("missing: %s", errOut)
	}
	mustCLI(t, 0, "benchmark", "activate", "faq")
	mustCLI(t, 0, "benchmark", "run", "registry:faq", "-o", filepath.Join(dir, "b.json"))
}

// TestDownloadCreateRoundTripCLI: `benchmark download faq -o f.jsonl &&
// benchmark create faq2 --from f.jsonl` keeps every entry and field (the
// unanswerable rows, their named passages, answer against answers):
// show --json of the two benchmarks lists the same entries, and faq2
// downloads as the same bytes.
func TestDownloadCreateRoundTripCLI(t *testing.T) {
	useRegistry(t)
	dir := t.TempDir()
	src := filepath.Join(dir, "src.jsonl")
	os.WriteFile(src, []byte(`{"id": "q1", "question": "Two answers?", "answers": ["x", "y"], "contexts": ["P one.", "P two."], "expected_docs": ["z-doc", "a-doc"]}
{"id": "q2", "question": "None?", "contexts": ["P three."], "expected_docs": ["kept-name"], "metadata": {"unanswerable": true, "n": 2}}
`), 0o644)
	for _, from := range []string{faqPath, src} {
		mustCLI(t, 0, "benchmark", "create", "faq", "--from", from)
		f := filepath.Join(dir, "f.jsonl")
		mustCLI(t, 0, "benchmark", "download", "faq", "-o", f)
		if out, _ := mustCLI(t, 0, "benchmark", "create", "faq2", "--from", f); !strings.HasPrefix(out, "created faq2@") {
			t.Errorf("%s: create from the download: %s", from, out)
		}
		entries := func(name string) string {
			out, _ := mustCLI(t, 0, "benchmark", "show", name, "--json", "--limit", "0")
			var shown struct {
				Benchmark struct{ Documents int }
				Entries   json.RawMessage `json:"entries"`
			}
			if err := json.Unmarshal([]byte(out), &shown); err != nil {
				t.Fatal(err)
			}
			return fmt.Sprintf("%d documents %s", shown.Benchmark.Documents, shown.Entries)
		}
		if a, b := entries("faq"), entries("faq2"); a != b {
			t.Errorf("%s: the entries differ after download → create:\n%s\n%s", from, a, b)
		}
		again, _ := mustCLI(t, 0, "benchmark", "download", "faq2")
		if first, _ := os.ReadFile(f); string(first) != again {
			t.Errorf("%s: faq2 downloads differently:\n%s---\n%s", from, first, again)
		}
		if from == src && !strings.Contains(again, `"expected_docs":["kept-name"]`) {
			t.Errorf("the unanswerable row's passage name is lost:\n%s", again)
		}
		mustCLI(t, 0, "benchmark", "delete", "faq", "--force")
		mustCLI(t, 0, "benchmark", "delete", "faq2", "--force")
	}
}
