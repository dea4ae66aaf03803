package llm_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

func TestCacheHitsAndMisses(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{ModelNames: map[string]string{"gpt-4o": "gpt-4o-2024-08-06"}})
	defer f.Close()
	cfg := fast(f)
	cfg.CacheDir = t.TempDir()
	c := newClient(t, cfg)

	first, err := c.Chat(t.Context(), ask("q"))
	if err != nil || first.Cached {
		t.Fatalf("first: %+v %v", first, err)
	}
	// A new client on the same directory (a rerun) makes zero requests.
	c2 := newClient(t, cfg)
	second, err := c2.Chat(t.Context(), ask("q"))
	if err != nil || !second.Cached || f.Count("") != 1 {
		t.Fatalf("second: %+v %v, %d requests", second, err, f.Count(""))
	}
	second.Cached = false
	if second != first {
		t.Errorf("cached %+v, want %+v", second, first)
	}
	su := c2.Usage().Stage(llm.StageGenerator)
	if su.CacheHits != 1 || su.Requests != 0 || su.Usage.TotalTokens != 0 || su.CachedUsage != first.Usage || su.CostUSD != 0 {
		t.Errorf("usage after a hit %+v", su)
	}

	// Every part of the key matters.
	changed := []llm.ChatRequest{ask("q?"), ask("q"), ask("q"), ask("q"), ask("q"), ask("q")}
	changed[1].Repeat = 1
	changed[2].System = "other"
	changed[3].Model = "gpt-4o-mini"
	changed[4].MaxTokens = 7
	changed[5].JSON = true
	for i, r := range changed {
		before := f.Count("")
		resp, err := c.Chat(t.Context(), r)
		if err != nil || resp.Cached || f.Count("") != before+1 {
			t.Errorf("change %d: %+v %v, requests %d→%d", i, resp, err, before, f.Count(""))
		}
	}
	// The Stage is not part of the key: a judge reuses a generator's answer.
	r := ask("q")
	r.Stage = llm.StageJudge
	if resp, err := c.Chat(t.Context(), r); err != nil || !resp.Cached {
		t.Errorf("stage changed: %+v %v", resp, err)
	}
	// Another endpoint misses.
	g := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer g.Close()
	cfg.BaseURL = g.URL
	if resp, err := newClient(t, cfg).Chat(t.Context(), ask("q")); err != nil || resp.Cached || g.Count("") != 1 {
		t.Errorf("other endpoint: %+v %v", resp, err)
	}

	// Embeddings are cached too.
	n := f.Count("")
	cfg.BaseURL = f.URL
	for range 2 {
		if _, _, err := newClient(t, cfg).Embed(t.Context(), []string{"a", "b"}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if f.Count("") != n+1 {
		t.Errorf("embeddings: %d requests, want 1", f.Count("")-n)
	}
}

func TestErrorsAreNotCached(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	cfg := fast(f)
	cfg.CacheDir = t.TempDir()
	cfg.MaxRetries = -1
	c := newClient(t, cfg)
	f.Inject(fixtures.Fault{Status: 500}, fixtures.Fault{Malformed: true})
	for range 2 {
		if _, err := c.Chat(t.Context(), ask("q")); err == nil {
			t.Fatal("want an error")
		}
	}
	if entries(t, cfg.CacheDir) != 0 {
		t.Fatal("an error was cached")
	}
	resp, err := c.Chat(t.Context(), ask("q"))
	if err != nil || resp.Cached || resp.Content != "echo: q" || f.Count("") != 3 {
		t.Fatalf("after errors: %+v %v", resp, err)
	}
	if entries(t, cfg.CacheDir) != 1 {
		t.Fatal("the success was not cached")
	}
}

// entries counts cache entries and fails on any leftover temporary file or
// entry that is not valid JSON.
func entries(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		if !strings.HasSuffix(path, ".json") || strings.HasPrefix(d.Name(), ".tmp-") {
			t.Errorf("stray file %s", path)
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		var v map[string]any
		if err := json.Unmarshal(b, &v); err != nil {
			t.Errorf("corrupt entry %s: %v", path, err)
		}
		n++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func TestCorruptEntryIsAMiss(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	cfg := fast(f)
	cfg.CacheDir = t.TempDir()
	if _, err := newClient(t, cfg).Chat(t.Context(), ask("q")); err != nil {
		t.Fatal(err)
	}
	paths, _ := filepath.Glob(filepath.Join(cfg.CacheDir, "*", "*.json"))
	if len(paths) != 1 {
		t.Fatalf("entries %v", paths)
	}
	if err := os.WriteFile(paths[0], []byte(`{"content": "tru`), 0o644); err != nil {
		t.Fatal(err)
	}
	resp, err := newClient(t, cfg).Chat(t.Context(), ask("q"))
	if err != nil || resp.Cached || resp.Content != "echo: q" {
		t.Fatalf("%+v %v", resp, err)
	}
	if entries(t, cfg.CacheDir) != 1 {
		t.Error("the corrupt entry was not rewritten")
	}
}

func TestCacheAPI(t *testing.T) {
	c, err := llm.OpenCache(filepath.Join(t.TempDir(), "new", "dir"))
	if err != nil {
		t.Fatal(err)
	}
	k1, _ := llm.CacheKey("e", "m", map[string]int{"a": 1}, 0)
	k2, _ := llm.CacheKey("e", "m", map[string]int{"a": 1}, 1)
	k3, _ := llm.CacheKey("e", "m", map[string]int{"a": 1}, 0)
	if k1 == k2 || k1 != k3 || len(k1) != 64 {
		t.Fatalf("keys %s %s %s", k1, k2, k3)
	}
	var v string
	if ok, err := c.Get(k1, &v); ok || err != nil {
		t.Fatalf("empty cache: %v %v", ok, err)
	}
	if err := c.Put(k1, "hello"); err != nil {
		t.Fatal(err)
	}
	if ok, err := c.Get(k1, &v); !ok || err != nil || v != "hello" {
		t.Fatalf("get: %v %v %q", ok, err, v)
	}
	if _, err := c.Get("../../etc/passwd", &v); err == nil {
		t.Error("a path-like key was accepted")
	}
	if err := c.Put("zz", "x"); err == nil {
		t.Error("a short key was accepted")
	}
	if _, err := llm.OpenCache(""); err == nil {
		t.Error("empty dir accepted")
	}
}

const (
	helperEnv   = "LLM_CACHE_HELPER_DIR"
	helperURL   = "LLM_CACHE_HELPER_URL"
	helperCalls = 40
)

// hammer makes helperCalls chat calls from 4 goroutines, all processes
// asking the same questions in different orders.
func hammer(baseURL, dir string, offset int) error {
	c, err := llm.New(llm.Config{BaseURL: baseURL, Model: "m", CacheDir: dir})
	if err != nil {
		return err
	}
	var wg sync.WaitGroup
	errs := make(chan error, helperCalls*4)
	for g := range 4 {
		wg.Go(func() {
			for i := range helperCalls {
				q := fmt.Sprintf("question %d", (i*7+g*3+offset)%helperCalls)
				resp, err := c.Chat(context.Background(), ask(q))
				if err != nil {
					errs <- err
					return
				}
				if resp.Content != "echo: "+q {
					errs <- fmt.Errorf("%s: got %q", q, resp.Content)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	return errors.Join(func() []error {
		var all []error
		for e := range errs {
			all = append(all, e)
		}
		return all
	}()...)
}

// TestCacheHelperProcess is the second process of
// TestCacheSharedByTwoProcesses; it does nothing in a normal run.
func TestCacheHelperProcess(t *testing.T) {
	dir := os.Getenv(helperEnv)
	if dir == "" {
		t.Skip("helper process for TestCacheSharedByTwoProcesses")
	}
	if err := hammer(os.Getenv(helperURL), dir, 11); err != nil {
		t.Fatal(err)
	}
}

func TestCacheSharedByTwoProcesses(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second process; skipped with -short")
	}
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	dir := t.TempDir()
	cmd := exec.CommandContext(t.Context(), os.Args[0], "-test.run=^TestCacheHelperProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), helperEnv+"="+dir, helperURL+"="+f.URL)
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	err := hammer(f.URL, dir, 0)
	if werr := cmd.Wait(); werr != nil {
		t.Fatalf("helper process: %v\n%s", werr, out.String())
	}
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "PASS") {
		t.Fatalf("helper did not run:\n%s", out.String())
	}
	if n := entries(t, dir); n != helperCalls {
		t.Errorf("%d entries, want %d", n, helperCalls)
	}
	// Both processes together asked each question at most once per
	// process-goroutine race; a fresh run now makes no request at all.
	before := f.Count("")
	if before < helperCalls {
		t.Errorf("only %d requests for %d questions", before, helperCalls)
	}
	if err := hammer(f.URL, dir, 5); err != nil {
		t.Fatal(err)
	}
	if f.Count("") != before {
		t.Errorf("a warm cache made %d requests", f.Count("")-before)
	}
}
