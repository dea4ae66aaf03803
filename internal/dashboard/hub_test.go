package dashboard

import (
	"bytes"
	"context"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/pgtest"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
)

// worstTwo removes the two rows of b's first result with the lowest
// ndcg@10 (a forger's choice).
func worstTwo(b *results.Bundle) {
	rows := b.Results[0].PerSampleScores
	slices.SortStableFunc(rows, func(x, y results.Sample) int {
		switch {
		case x.Scores["ndcg@10"] < y.Scores["ndcg@10"]:
			return -1
		case x.Scores["ndcg@10"] > y.Scores["ndcg@10"]:
			return 1
		}
		return 0
	})
	rows = rows[2:]
	slices.SortFunc(rows, func(x, y results.Sample) int { return strings.Compare(x.QueryID, y.QueryID) })
	b.Results[0].PerSampleScores = rows
}

// relabelNative makes every arm of b claim a native corpus and drops
// POOLED_GOLD_CORPUS from its warnings.
func relabelNative(b *results.Bundle) {
	for i := range b.Configs {
		b.Configs[i].HeldFixed.CorpusProvenance = lasagna.ProvenanceNative
	}
	b.Integrity.Warnings = slices.DeleteFunc(b.Integrity.Warnings, func(f results.Finding) bool { return f.Code == lasagna.PooledGoldCorpus })
}

// flagSynthetic appends SYNTHETIC_BENCHMARK for b's first benchmark.
func flagSynthetic(b *results.Bundle) {
	b.Integrity.Warnings = append(b.Integrity.Warnings, results.Finding{Code: lasagna.SyntheticBenchmark, Where: b.Configs[0].Benchmark,
		Detail: "44 of 44 queries are LLM-written (metadata.synthetic)"})
	b.Submitter = &results.Submitter{Name: "mallory"}
}

// TestForgeriesRefused: the three forgeries of issue 37, each with its
// aggregates, keys and run_id recomputed as a forger would (rewritten):
// (1) the honest faq run with its two worst rows removed and marked a
// go test -run subset, and an honest-looking half of the queries marked
// the same way; (2) the pooled-gold run relabelled native without
// POOLED_GOLD_CORPUS; (3) a glasscoins run (human-written) that lists
// SYNTHETIC_BENCHMARK. Each is refused (422) with the finding saying
// what the registry's data says; the honest runs are accepted and ranked,
// and no group is relabelled.
func TestForgeriesRefused(t *testing.T) {
	s, reg := newHub(t, sqliteDSN(t), 0)
	ctx := context.Background()
	if _, err := reg.Create(ctx, "glasscoins", registry.Files{FS: os.DirFS(filepath.Join("..", "..", "examples", "data")), Path: "glasscoins"}); err != nil {
		t.Fatal(err)
	}
	examples := os.DirFS(filepath.Join("..", "..", "examples"))
	honest := sharedBundle(t, stemmed)
	glass := runOn(t, examples, "data/glasscoins", stemmed)
	for _, b := range []*results.Bundle{honest, glass} {
		if res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, b)), withToken(hubToken)...); res.StatusCode != 201 {
			t.Fatalf("honest %s: %s %+v", b.Configs[0].Benchmark, res.Status, ans)
		}
	}
	half := func(b *results.Bundle) {
		b.Results[0].PerSampleScores = b.Results[0].PerSampleScores[:len(b.Results[0].PerSampleScores)/2]
		b.Subset = &results.Subset{Selection: "test.run=TestRAG/g/bm25/glass"}
	}
	forgeries := []struct {
		name   string
		b      *results.Bundle
		code   string
		detail string
	}{
		{"subset without the worst rows", rewritten(t, honest, "", "", func(b *results.Bundle) {
			worstTwo(b)
			b.Subset = &results.Subset{Selection: "test.run=TestRAG"}
		}), string(codePartialSample), "not the whole sample"},
		{"half the queries", rewritten(t, honest, "", "", half), string(codePartialSample), "not the whole sample"},
		{"pooled gold relabelled native", rewritten(t, honest, "", "", relabelNative), string(codeNotTheData), "has a pooled_gold corpus"},
		{"synthetic label on a human benchmark", rewritten(t, glass, "", "", flagSynthetic), string(codeNotTheData), "none of the"},
	}
	for _, f := range forgeries {
		res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, f.b)), withToken(hubToken)...)
		if res.StatusCode != 422 || ans.Status != "refused" || !hasFinding(ans, f.code, f.detail) {
			t.Errorf("%s: %s %+v", f.name, res.Status, ans)
		}
	}
	// The rows removed and no subset marked: refused by the data check.
	if res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, rewritten(t, honest, "", "", worstTwo))), withToken(hubToken)...); res.StatusCode != 422 {
		t.Errorf("rows removed, no subset: %s %+v", res.Status, ans)
	}

	// Stored before the hub checked these claims (put straight into the
	// registry): listed as partial, never ranked, and the labels stay
	// the data's.
	for _, f := range forgeries {
		if _, err := reg.PutBundle(ctx, f.b.RunID, registry.StoredBundle{Submitter: "mallory " + f.name}, bundleBytes(t, f.b)); err != nil {
			t.Fatal(err)
		}
	}
	res, ans := getBoards(t, s, "", withToken(hubToken)...)
	if res.StatusCode != 200 {
		t.Fatalf("%s %+v", res.Status, ans)
	}
	var ranked, partial []string
	for _, g := range ans.Groups {
		for _, e := range g.Entries {
			ranked = append(ranked, e.RunID)
		}
		for _, e := range g.Partial {
			partial = append(partial, e.RunID)
			if e.NotRanked == "" {
				t.Errorf("partial entry %s without a reason", e.RunID)
			}
		}
		if g.Synthetic {
			t.Errorf("group %s labelled synthetic: %+v", g.Benchmark, g)
		}
		if strings.Contains(g.Benchmark, "faq") && g.Provenance != lasagna.ProvenancePooledGold {
			t.Errorf("faq group %s shown as %s", g.Key[:12], g.Provenance)
		}
		if g.Revision == "" || g.Drawn == 0 || g.Queries == 0 {
			t.Errorf("group %s: revision %q, sample %d of %d", g.Benchmark, g.Revision, g.Drawn, g.Queries)
		}
	}
	slices.Sort(ranked)
	want := []string{honest.RunID, glass.RunID}
	slices.Sort(want)
	if !slices.Equal(ranked, want) || len(partial) != len(forgeries) {
		t.Errorf("ranked %v (want the honest %v), %d partial (want %d)", ranked, want, len(partial), len(forgeries))
	}
	_, page := get(t, s, "/leaderboards", withToken(hubToken)...)
	if !strings.Contains(page, "Partial: not ranked") || strings.Contains(page, "for development, not claims") {
		t.Errorf("the page:\n%s", page)
	}
}

// TestLeaderboardCopiesAndDistinct: the same results submitted again
// under another run_id (another submitter in the bundle) are listed once,
// counted as a copy; the same run named as the registry's faq and as the
// file faq.jsonl are two groups, each header saying the held-fixed
// setting that tells them apart (the benchmark's name). ?submitter= is
// recorded and shown; a submitter with a control character is 400.
func TestLeaderboardCopiesAndDistinct(t *testing.T) {
	s, _ := newHub(t, sqliteDSN(t), 0)
	honest := sharedBundle(t, stemmed)
	again := rewritten(t, honest, "", "", func(b *results.Bundle) { b.Submitter = &results.Submitter{Name: "someone else"} })
	named := strings.SplitN(honest.Configs[0].Benchmark, "@", 2)[1]
	asRegistry := rewritten(t, honest, "local/faq@"+named, "faq@"+named, nil)
	if asRegistry.Configs[0].Benchmark != "faq@"+named {
		t.Fatalf("renamed to %s", asRegistry.Configs[0].Benchmark)
	}
	for i, b := range []*results.Bundle{honest, again, asRegistry} {
		r := httptest.NewRequest(http.MethodPost, "http://localhost/api/bundles?submitter=ci+bot+%C3%A9", bytes.NewReader(bundleBytes(t, b)))
		res, text := do(t, s, r, withToken(hubToken)...)
		if res.StatusCode != 201 {
			t.Fatalf("bundle %d: %s %s", i, res.Status, text)
		}
	}
	res, ans := getBoards(t, s, "", withToken(hubToken)...)
	if res.StatusCode != 200 || len(ans.Groups) != 2 {
		t.Fatalf("%s: %+v", res.Status, ans)
	}
	for _, g := range ans.Groups {
		if len(g.Distinct) == 0 || g.Distinct[0].Name != "benchmark" {
			t.Errorf("group %s: distinct %+v", g.Benchmark, g.Distinct)
		}
		if g.Benchmark == honest.Configs[0].Benchmark {
			if len(g.Entries) != 1 || g.Entries[0].Copies != 1 || g.Entries[0].RunID != honest.RunID || g.Entries[0].Submitter != "ci bot é" {
				t.Errorf("file group: %+v", g.Entries)
			}
		}
	}
	_, page := get(t, s, "/leaderboards", withToken(hubToken)...)
	if !strings.Contains(page, "(+1 identical)") || !strings.Contains(page, "Unlike the other groups of this benchmark") || !strings.Contains(page, "ci bot é") {
		t.Errorf("the page:\n%s", page)
	}
	r := httptest.NewRequest(http.MethodPost, "http://localhost/api/bundles?submitter=a%07b", bytes.NewReader(bundleBytes(t, honest)))
	if res, text := do(t, s, r, withToken(hubToken)...); res.StatusCode != 400 {
		t.Errorf("control character in ?submitter=: %s %s", res.Status, text)
	}
}

// thousandEntries stores n submissions of one group into reg (arms
// bm25-0000 …, each its own submission) and returns the function that
// stores the i-th.
func thousandEntries(t testing.TB, reg *registry.Registry, n int) func(i int) {
	ctx := context.Background()
	raw := bundleBytes(t, sharedBundle(t, stemmed))
	put := func(i int) {
		t.Helper()
		b, err := results.Unmarshal(raw)
		if err != nil {
			t.Fatal(err)
		}
		arm := fmt.Sprintf("bm25-%04d", i)
		b.Configs[0].Name, b.Results[0].ConfigName = arm, arm
		b.Configs[0].VariedLevels = map[string]string{"bm25_stemming": arm}
		for j := range b.Integrity.Warnings {
			if w := &b.Integrity.Warnings[j]; strings.HasSuffix(w.Where, "/bm25") {
				w.Where = strings.TrimSuffix(w.Where, "bm25") + arm
			}
		}
		b.RunID = ""
		if err := results.Finalize(b); err != nil {
			t.Fatal(err)
		}
		if _, err := reg.PutBundle(ctx, b.RunID, registry.StoredBundle{Submitter: "bot", SubmittedAt: time.Unix(int64(i), 0)}, bundleBytes(t, b)); err != nil {
			t.Fatal(err)
		}
	}
	for i := range n {
		put(i)
	}
	return put
}

// TestLeaderboardThousand: a group of 1,000 entries renders in pages of
// boardPage: /leaderboards and /api/leaderboards stay under 1 MB, the
// comparison form lists the page's bundles once (not every bundle per
// row), ?group=KEY&page=10 is the last page and page 11 is 404; after one
// more submission the page is built again within 1 s (the comparisons of
// the pairs seen before are kept).
func TestLeaderboardThousand(t *testing.T) {
	if testing.Short() {
		t.Skip("-short: 1,000 bundles")
	}
	s, reg := newHub(t, sqliteDSN(t), 0)
	put := thousandEntries(t, reg, 1000)
	start := time.Now()
	res, page := get(t, s, "/leaderboards", withToken(hubToken)...)
	t.Logf("first build and page of 1,000 entries: %v, %d bytes", time.Since(start), len(page))
	if res.StatusCode != 200 || len(page) > 1<<20 || strings.Count(page, `<tr class="entry`) != boardPage || strings.Count(page, "<option ") != 2*boardPage ||
		!strings.Contains(page, "Entries 1–100 of 1000") {
		t.Fatalf("%s, %d bytes, %d rows, %d options", res.Status, len(page), strings.Count(page, `<tr class="entry`), strings.Count(page, "<option "))
	}
	put(1000)
	start = time.Now()
	res, page = get(t, s, "/leaderboards", withToken(hubToken)...)
	if took := time.Since(start); res.StatusCode != 200 || took > time.Second || len(page) > 1<<20 {
		t.Errorf("after one more submission: %s in %v, %d bytes", res.Status, took, len(page))
	}
	res, ans := getBoards(t, s, "", withToken(hubToken)...)
	if res.StatusCode != 200 || len(ans.Groups) != 1 || ans.Groups[0].Total != 1001 || len(ans.Groups[0].Entries) != boardPage || ans.Groups[0].Pages != 11 {
		t.Fatalf("%s: %d groups", res.Status, len(ans.Groups))
	}
	key := ans.Groups[0].Key
	res, text := do(t, s, httptest.NewRequest(http.MethodGet, "http://localhost/api/leaderboards?group="+key+"&page=11", nil), withToken(hubToken)...)
	if res.StatusCode != 200 || len(text) > 1<<20 {
		t.Errorf("last page: %s, %d bytes", res.Status, len(text))
	}
	_, ans = getBoards(t, s, "?group="+key+"&page=11", withToken(hubToken)...)
	if len(ans.Groups) != 1 || len(ans.Groups[0].Entries) != 1 || ans.Groups[0].Entries[0].Rank == 0 {
		t.Errorf("last page: %+v", ans.Groups)
	}
	for _, q := range []string{"?group=" + key + "&page=12", "?group=nope"} {
		if res, _ := get(t, s, "/leaderboards"+q, withToken(hubToken)...); res.StatusCode != 404 {
			t.Errorf("%s: %s", q, res.Status)
		}
	}
	for _, q := range []string{"?page=2", "?group=" + key + "&page=0", "?group=" + key + "&page=x"} {
		if res, _ := get(t, s, "/leaderboards"+q, withToken(hubToken)...); res.StatusCode != 400 {
			t.Errorf("%s: %s", q, res.Status)
		}
	}
	res, page = get(t, s, "/leaderboards?group="+key+"&page=2", withToken(hubToken)...)
	if res.StatusCode != 200 || !strings.Contains(page, "Entries 101–200 of 1001") || !strings.Contains(page, `class="prev"`) {
		t.Errorf("page 2: %s", res.Status)
	}
}

// TestBadRefIs400: a malformed reference is the user's error, 400, on
// the benchmark page and both downloads.
func TestBadRefIs400(t *testing.T) {
	s, _ := newHub(t, sqliteDSN(t), 0)
	for _, p := range []string{"/benchmark", "/benchmark/export.csv", "/benchmark/download.jsonl"} {
		for _, ref := range []string{"faq@../../x", "../x", "faq@zz"} {
			if res, _ := get(t, s, p+"?ref="+ref, withToken(hubToken)...); res.StatusCode != 400 {
				t.Errorf("%s?ref=%s: %s", p, ref, res.Status)
			}
		}
	}
}

// TestPublicRead: with PublicRead, the leaderboards, a stored bundle's
// report and JSON, the comparison of two stored bundles and the list of
// stored bundles need no token; the folder's list, the registry's pages,
// a submission and every POST still do.
func TestPublicRead(t *testing.T) {
	dsn := sqliteDSN(t)
	_, reg := newHub(t, dsn, 0)
	s, err := New(Options{Bundles: t.TempDir(), Token: hubToken, Version: "test", Registry: reg, SchemaCheck: schema.Check, PublicRead: true})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	a, b := sharedBundle(t, stemmed), sharedBundle(t, unstemmed)
	for _, x := range []*results.Bundle{a, b} {
		if res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, x)), withToken(hubToken)...); res.StatusCode != 201 {
			t.Fatalf("%s %+v", res.Status, ans)
		}
	}
	for _, p := range []string{"/leaderboards", "/api/leaderboards", "/api/bundles", "/api/bundles/" + a.RunID, "/bundles/" + a.RunID,
		"/compare?bundle=" + a.RunID + "&baseline=" + b.RunID} {
		if res, _ := get(t, s, p); res.StatusCode != 200 {
			t.Errorf("public %s: %s", p, res.Status)
		}
	}
	for _, p := range []string{"/", "/benchmarks", "/benchmark?ref=faq", "/benchmark/download.jsonl?ref=faq", "/evaluations", "/compare?bundle=x.json&baseline=y.json"} {
		if res, _ := get(t, s, p); res.StatusCode != 401 {
			t.Errorf("private %s: %s", p, res.Status)
		}
	}
	if res, _ := submit(t, s, bytes.NewReader(bundleBytes(t, a))); res.StatusCode != 401 {
		t.Errorf("a submission without the token: %s", res.Status)
	}
	for _, p := range []string{"/rescan", "/benchmark/archive", "/evaluate"} {
		if res, _ := post(t, s, p, url.Values{}); res.StatusCode != 401 {
			t.Errorf("POST %s without the token: %s", p, res.Status)
		}
	}
	// Without PublicRead, the same reads need the token.
	closed, _ := newHub(t, sqliteDSN(t), 0)
	if res, _ := get(t, closed, "/leaderboards"); res.StatusCode != 401 {
		t.Errorf("without PublicRead: %s", res.Status)
	}
}

// TestStorageUnavailable: with its PostgreSQL server down, the hub
// answers a submission and the leaderboards 503 with Retry-After (the
// bundle is not judged, and worth sending again), not 422 or 500.
func TestStorageUnavailable(t *testing.T) {
	cl := pgtest.New(t)
	s, _ := newHub(t, cl.Database(t), 0)
	honest := sharedBundle(t, stemmed)
	cl.Stop()
	res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, honest)), withToken(hubToken)...)
	if res.StatusCode != 503 || res.Header.Get("Retry-After") == "" || ans.Status != "unavailable" {
		t.Errorf("submission: %s (Retry-After %q) %+v", res.Status, res.Header.Get("Retry-After"), ans)
	}
	for _, p := range []string{"/api/leaderboards", "/leaderboards", "/benchmark?ref=faq"} {
		if res, _ := get(t, s, p, withToken(hubToken)...); res.StatusCode != 503 || res.Header.Get("Retry-After") == "" {
			t.Errorf("%s: %s (Retry-After %q)", p, res.Status, res.Header.Get("Retry-After"))
		}
	}
}
