package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/chromedp/chromedp"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
)

const (
	top100 = "  - {name: top100, retriever: bm25, varied: [retriever_top_k]}\n"
	top1   = "  - {name: top1, retriever: bm25, top_k: 1, varied: [retriever_top_k]}\n"
)

// runOn runs the arms (YAML arms: list) over the benchmark at path of
// fsys and returns the bundle.
func runOn(t testing.TB, fsys fs.FS, path, arms string) *results.Bundle {
	t.Helper()
	sw, err := engine.ParseSweep([]byte("benchmarks:\n  - {path: "+path+"}\narms:\n"+arms), "sweep.yaml")
	if err != nil {
		t.Fatal(err)
	}
	runs, err := engine.LoadBenchmarks(fsys, sw)
	if err != nil {
		t.Fatal(err)
	}
	as, err := engine.BuiltinArms(sw)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := engine.Run(context.Background(), runs, as, engine.Options{})
	if err != nil {
		t.Fatal(err)
	}
	b, err := rep.Bundle(engine.BundleOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// synthFS is faq.jsonl with every row marked LLM-written
// (metadata.synthetic), as synth.jsonl.
func synthFS(t testing.TB) fstest.MapFS {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join("..", "..", "examples", "data", "faq.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	for line := range strings.SplitSeq(strings.TrimSpace(string(raw)), "\n") {
		var row map[string]any
		if err := json.Unmarshal([]byte(line), &row); err != nil {
			t.Fatal(err)
		}
		md, _ := row["metadata"].(map[string]any)
		if md == nil {
			md = map[string]any{}
		}
		md["synthetic"] = true
		row["metadata"] = md
		b, err := json.Marshal(row)
		if err != nil {
			t.Fatal(err)
		}
		out.Write(append(b, '\n'))
	}
	return fstest.MapFS{"synth.jsonl": {Data: out.Bytes()}}
}

// hubWithBoards is newHub with glasscoins and the synthetic benchmark in
// the registry, and the bundles of the leaderboard tests submitted: two
// arms on faq (top100 by bob, top1 by ann), glasscoins (native corpus)
// and the synthetic benchmark. It returns the server and the faq
// bundles.
func hubWithBoards(t *testing.T, dsn string) (*Server, *results.Bundle, *results.Bundle) {
	t.Helper()
	s, reg := newHub(t, dsn, 0)
	ctx := context.Background()
	examples := os.DirFS(filepath.Join("..", "..", "examples"))
	if _, err := reg.Create(ctx, "glasscoins", registry.Files{FS: os.DirFS(filepath.Join("..", "..", "examples", "data")), Path: "glasscoins"}); err != nil {
		t.Fatal(err)
	}
	synth := synthFS(t)
	if _, err := reg.Create(ctx, "synth", registry.Files{FS: synth, Path: "synth.jsonl"}); err != nil {
		t.Fatal(err)
	}
	best := rewritten(t, runOn(t, examples, "data/faq.jsonl", top100), "", "", func(b *results.Bundle) { b.Submitter = &results.Submitter{Name: "bob <b>"} })
	worst := rewritten(t, runOn(t, examples, "data/faq.jsonl", top1), "", "", func(b *results.Bundle) { b.Submitter = &results.Submitter{Name: "ann"} })
	// Submitted worst first: the rank is the metric's, not the order.
	for _, b := range []*results.Bundle{worst, best, runOn(t, examples, "data/glasscoins", stemmed), runOn(t, synth, "synth.jsonl", stemmed)} {
		if res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, b)), withToken(hubToken)...); res.StatusCode != 201 {
			t.Fatalf("%s: %s %+v", b.Configs[0].Benchmark, res.Status, ans)
		}
	}
	return s, best, worst
}

func getBoards(t *testing.T, h http.Handler, query string, headers ...string) (*http.Response, boardAnswer) {
	t.Helper()
	res, text := do(t, h, httptest.NewRequest(http.MethodGet, "http://localhost/api/leaderboards"+query, nil), headers...)
	var ans boardAnswer
	if err := json.Unmarshal([]byte(text), &ans); err != nil {
		t.Fatalf("%s: not JSON (%v): %s", res.Status, err, text)
	}
	return res, ans
}

// TestLeaderboards: on SQLite and PostgreSQL, GET /api/leaderboards
// groups the submitted bundles: the two arms on faq (a pooled gold
// corpus) share one group, the better (top100) first; glasscoins (its
// own, native corpus) and the synthetic benchmark are groups of their
// own, the synthetic one labelled "for development, not claims". A
// forged bundle is refused at submission and never ranked. ?metric=
// ranks by another metric; an unknown one is 400 with the known ones.
// The page shows the same groups, escapes the submitter and links each
// entry's report and comparison. Reads need the token as the server's
// other pages do.
func TestLeaderboards(t *testing.T) {
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			s, best, worst := hubWithBoards(t, be.dsn(t))
			forged := rewritten(t, best, "", "", func(b *results.Bundle) {
				for i := range b.Results[0].PerSampleScores {
					r := &b.Results[0].PerSampleScores[i]
					if len(r.RetrievedIDs) > 1 {
						r.RetrievedIDs[0], r.RetrievedIDs[1] = r.RetrievedIDs[1], r.RetrievedIDs[0]
						r.Retrieved[0].ID, r.Retrieved[1].ID = r.RetrievedIDs[0], r.RetrievedIDs[1]
					}
				}
				b.Submitter = &results.Submitter{Name: "mallory"}
			})
			if res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, forged)), withToken(hubToken)...); res.StatusCode != 422 || len(ans.Findings) == 0 {
				t.Fatalf("forged: %s %+v", res.Status, ans)
			}
			if res, _ := do(t, s, httptest.NewRequest(http.MethodGet, "http://localhost/api/leaderboards", nil)); res.StatusCode != 401 {
				t.Errorf("without the token: %s", res.Status)
			}

			res, ans := getBoards(t, s, "", withToken(hubToken)...)
			if res.StatusCode != 200 || len(ans.Groups) != 3 {
				t.Fatalf("%s: %d groups: %+v", res.Status, len(ans.Groups), ans)
			}
			by := map[string]boardGroup{}
			for _, g := range ans.Groups {
				by[strings.SplitN(g.Benchmark, "@", 2)[0]] = g
			}
			faq, glass, synth := by["local/faq"], by["local/glasscoins"], by["local/synth"]
			if len(faq.Entries) != 2 || faq.Entries[0].RunID != best.RunID || faq.Entries[1].RunID != worst.RunID ||
				faq.Entries[0].Arm != "top100" || faq.Entries[0].Submitter != "bob <b>" || faq.Entries[1].Above == nil {
				t.Errorf("faq group: %+v", faq.Entries)
			}
			if faq.Metric != "ndcg@10" || faq.Provenance != "pooled_gold" || faq.Synthetic || faq.Entries[0].Mean <= faq.Entries[1].Mean {
				t.Errorf("faq group: metric %s, provenance %s, synthetic %v, means %v %v", faq.Metric, faq.Provenance, faq.Synthetic,
					faq.Entries[0].Mean, faq.Entries[1].Mean)
			}
			if len(glass.Entries) != 1 || glass.Provenance != "native" || glass.Key == faq.Key {
				t.Errorf("glasscoins group: %+v", glass)
			}
			if len(synth.Entries) != 1 || !synth.Synthetic || synth.Label != "for development, not claims" {
				t.Errorf("synthetic group: %+v", synth)
			}
			for _, g := range ans.Groups {
				for _, e := range g.Entries {
					if e.Submitter == "mallory" {
						t.Error("the forged bundle is ranked")
					}
				}
			}

			res, ans = getBoards(t, s, "?metric=recall@10", withToken(hubToken)...)
			if res.StatusCode != 200 || ans.Groups[0].Metric != "recall@10" {
				t.Errorf("?metric=recall@10: %s %+v", res.Status, ans.Groups)
			}
			res, ans = getBoards(t, s, "?metric=ndcg@1000", withToken(hubToken)...)
			if res.StatusCode != 400 || !strings.Contains(ans.Error, "ndcg@1000") || len(ans.Known) == 0 {
				t.Errorf("unknown metric: %s %+v", res.Status, ans)
			}

			res, page := do(t, s, httptest.NewRequest(http.MethodGet, "http://localhost/leaderboards", nil), withToken(hubToken)...)
			if res.StatusCode != 200 || !strings.Contains(page, "bob &lt;b&gt;") || strings.Contains(page, "bob <b>") ||
				!strings.Contains(page, `href="/bundles/`+best.RunID+`"`) || !strings.Contains(page, `<option value="`+worst.RunID+`">`) ||
				!strings.Contains(page, "for development, not claims") {
				t.Errorf("the page: %s\n%s", res.Status, page)
			}
			res, _ = do(t, s, httptest.NewRequest(http.MethodGet, "http://localhost/leaderboards?metric=nope", nil), withToken(hubToken)...)
			if res.StatusCode != 400 {
				t.Errorf("page, unknown metric: %s", res.Status)
			}

			// The list at / shows the four submitted bundles, newest
			// first, each linked to its report; the forged one is not
			// there, and the submitter is escaped.
			res, page = do(t, s, httptest.NewRequest(http.MethodGet, "http://localhost/", nil), withToken(hubToken)...)
			sub := page[strings.Index(page, `<table id="submitted">`)+1:]
			if res.StatusCode != 200 || strings.Count(sub[:strings.Index(sub, "</table>")], `<a class="stored"`) != 4 ||
				!strings.Contains(sub, `href="/bundles/`+best.RunID+`"`) || strings.Index(sub, best.RunID) > strings.Index(sub, worst.RunID) ||
				!strings.Contains(sub, "bob &lt;b&gt;") || strings.Contains(page, "bob <b>") || strings.Contains(page, "mallory") {
				t.Errorf("the list: %s\n%s", res.Status, page)
			}
		})
	}
}

// TestBundlesListSubmitted: the list at / has a section of submitted
// bundles only with a registry; with one and nothing submitted it says
// how to submit; past 100 it shows the newest 100 and says how many more.
func TestBundlesListSubmitted(t *testing.T) {
	s, err := New(Options{Bundles: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	if res, page := do(t, s, httptest.NewRequest(http.MethodGet, "http://localhost/", nil)); res.StatusCode != 200 || strings.Contains(page, "Submitted bundles") {
		t.Errorf("without a registry: %s\n%s", res.Status, page)
	}
	hub, reg := newHub(t, sqliteDSN(t), 0)
	if res, page := do(t, hub, httptest.NewRequest(http.MethodGet, "http://localhost/", nil), withToken(hubToken)...); res.StatusCode != 200 || !strings.Contains(page, `id="no-submitted"`) {
		t.Errorf("nothing submitted: %s\n%s", res.Status, page)
	}
	ctx := context.Background()
	for i := range submittedShown + 3 {
		runID := fmt.Sprintf("%064x", i+1)
		if _, err := reg.PutBundle(ctx, runID, registry.StoredBundle{Benchmark: "faq", ContentHash: "0123456789ab", Submitter: "s"}, []byte("{}")); err != nil {
			t.Fatal(err)
		}
	}
	res, page := do(t, hub, httptest.NewRequest(http.MethodGet, "http://localhost/", nil), withToken(hubToken)...)
	if res.StatusCode != 200 || strings.Count(page, `<a class="stored"`) != submittedShown || !strings.Contains(page, "and 3 older ones") ||
		!strings.Contains(page, fmt.Sprintf(`href="/bundles/%064x"`, submittedShown+3)) || strings.Contains(page, fmt.Sprintf(`href="/bundles/%064x"`, 1)) {
		t.Errorf("%d stored: %s, %d shown", submittedShown+3, res.Status, strings.Count(page, `<a class="stored"`))
	}
}

// TestLeaderboardsWithoutRegistry: a server without a registry answers
// 404 on both, saying why.
func TestLeaderboardsWithoutRegistry(t *testing.T) {
	s, err := New(Options{Bundles: t.TempDir(), Version: "test"})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	res, ans := getBoards(t, s, "")
	if res.StatusCode != 404 || !strings.Contains(ans.Error, "no registry") {
		t.Errorf("%s %+v", res.Status, ans)
	}
}

// TestLeaderboardsInBrowser opens /leaderboards in headless Chromium
// behind the token: the faq group ranks top100 above top1, with the tie
// mark when their difference is not significant; the report link opens
// the entry's report and the comparison form its comparison with the
// other entry. A screenshot goes to the artifact folder (docs/reports.md
// shows it as leaderboards.png).
func TestLeaderboardsInBrowser(t *testing.T) {
	ctx := browser(t, 1280, 900)
	s, best, worst := hubWithBoards(t, sqliteDSN(t))
	srv := httptest.NewServer(s)
	defer srv.Close()
	var ev pageEvents
	if err := chromedp.Do(ctx); err != nil {
		t.Fatal(err)
	}
	ev.listen(t, ctx, srv.URL)
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/login?token="+hubToken), chromedp.WaitVisible(chromedp.ID("empty"))); err != nil {
		t.Fatal(err)
	}
	listed, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("#submitted tbody tr")].map(r => r.querySelector("a.stored").getAttribute("href") + " " + r.querySelector(".submitter").textContent)`))
	if err != nil {
		t.Fatal(err)
	}
	if len(listed) != 4 || !slices.Contains(listed, "/bundles/"+best.RunID+" bob <b>") {
		t.Errorf("submitted bundles listed at /: %q", listed)
	}
	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`nav a[href="/leaderboards"]`)), chromedp.WaitVisible(chromedp.CSS("table.leaderboard"))); err != nil {
		t.Fatal(err)
	}
	rows, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](`[...document.querySelectorAll("section.board")].filter(s => s.querySelector("h2").textContent.includes("faq")).flatMap(s => [...s.querySelectorAll("tr.entry")].map(r => r.querySelector(".rank").textContent.trim() + " " + r.querySelector(".arm").textContent))`))
	if err != nil {
		t.Fatal(err)
	}
	faq := rows
	tied, err := chromedp.Run(ctx, chromedp.Evaluate[bool](`!!document.querySelector("section.board tr.entry.tied .tie")`))
	if err != nil {
		t.Fatal(err)
	}
	// top1 is tied with top100 (rank 1 =) or below it (rank 2), by the
	// paired test; either way top100 is first.
	if len(faq) != 2 || faq[0] != "1 top100" || (faq[1] != "2 top1" && faq[1] != "1 = top1") || (faq[1] == "1 = top1") != tied {
		t.Errorf("faq rows %q, tie mark %v", faq, tied)
	}
	png, err := chromedp.Run(ctx, chromedp.FullScreenshot(100))
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.ArtifactDir(), "leaderboards.png")
	if err := os.WriteFile(p, png, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("screenshot: %s", p)
	if out := os.Getenv("LASAGNA_LEADERBOARD_SHOT"); out != "" {
		if err := os.WriteFile(out, png, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	if err := chromedp.Do(ctx, chromedp.Click(chromedp.CSS(`a.report[href="/bundles/`+best.RunID+`"]`)), chromedp.WaitVisible(chromedp.ID("queries"))); err != nil {
		t.Fatal(err)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); loc != srv.URL+"/bundles/"+best.RunID {
		t.Errorf("report link went to %s", loc)
	}
	if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/leaderboards"), chromedp.WaitVisible(chromedp.CSS("table.leaderboard")),
		chromedp.Click(chromedp.CSS(`form.compare:has(option[value="`+best.RunID+`"]) button`)), chromedp.WaitVisible(chromedp.CSS("p.verdict"))); err != nil {
		t.Fatal(err)
	}
	if loc, _ := chromedp.Run(ctx, chromedp.Location()); loc != srv.URL+"/compare?bundle="+best.RunID+"&baseline="+worst.RunID {
		t.Errorf("compare form went to %s", loc)
	}
	ev.check(t)
}
