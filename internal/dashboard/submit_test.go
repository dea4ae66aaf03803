package dashboard

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
	"github.com/lasagna-go/lasagna/results/schema"
)

const hubToken = "hub-token-0123456789abcdef"

// newHub returns a dashboard with hubToken over a registry at dsn holding
// faq (examples/data/faq.jsonl), checking submissions with the JSON
// Schema; maxUpload 0 is the default limit.
func newHub(t testing.TB, dsn string, maxUpload int64) (*Server, *registry.Registry) {
	t.Helper()
	ctx := context.Background()
	reg, err := registry.Open(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { reg.Close() })
	if _, err := reg.Create(ctx, "faq", registry.Files{FS: os.DirFS(filepath.Join("..", "..", "examples", "data")), Path: "faq.jsonl"}); err != nil {
		t.Fatal(err)
	}
	s, err := New(Options{Bundles: t.TempDir(), Token: hubToken, Version: "test", Registry: reg, SchemaCheck: schema.Check, MaxUpload: maxUpload})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	return s, reg
}

// rewritten returns a copy of b with every old in its JSON replaced by
// new, its comparability keys, aggregates and run_id recomputed (as a
// forger would: the bundle-only checks then pass), after edit.
func rewritten(t *testing.T, b *results.Bundle, old, new string, edit func(*results.Bundle)) *results.Bundle {
	t.Helper()
	raw, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	if old != "" {
		raw = bytes.ReplaceAll(raw, []byte(old), []byte(new))
	}
	c, err := results.Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	if edit != nil {
		edit(c)
	}
	for i := range c.Configs {
		if c.Configs[i].ComparabilityKey, err = results.ComparabilityKey(c.Configs[i].HeldFixed); err != nil {
			t.Fatal(err)
		}
	}
	for i := range c.Results {
		c.Results[i].Metrics, c.Results[i].MetricStats = map[string]float64{}, nil
		if err := results.Aggregate(&c.Results[i], c.StatsOptions()); err != nil {
			t.Fatal(err)
		}
	}
	c.RunID = ""
	if err := results.Finalize(c); err != nil {
		t.Fatal(err)
	}
	return c
}

func bundleBytes(t testing.TB, b *results.Bundle) []byte {
	t.Helper()
	raw, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return raw
}

// submit posts body to /api/bundles with the headers (pairs) and decodes
// the JSON answer.
func submit(t *testing.T, h http.Handler, body io.Reader, headers ...string) (*http.Response, submitAnswer) {
	t.Helper()
	r := httptest.NewRequest(http.MethodPost, "http://localhost/api/bundles", body)
	r.Header.Set("Content-Type", "application/json")
	res, text := do(t, h, r, headers...)
	var ans submitAnswer
	if err := json.Unmarshal([]byte(text), &ans); err != nil {
		t.Fatalf("%s: the answer is not JSON (%v):\n%s", res.Status, err, text)
	}
	return res, ans
}

func withToken(tok string) []string { return []string{"Authorization", "Bearer " + tok} }

func hasFinding(ans submitAnswer, code, detail string) bool {
	for _, f := range ans.Findings {
		if f.Code == code && strings.Contains(f.Detail, detail) && f.Where != "" {
			return true
		}
	}
	return false
}

// TestSubmitBundles: POST /api/bundles on SQLite and PostgreSQL. A
// genuine bundle (a run on the file examples/data/faq.jsonl, and the same
// run named as the registry's faq revision) is accepted (201, its run_id
// and report), stored byte for byte, listed, reported, compared with
// each other and served as JSON;
// the same bundle again is a duplicate (200), also indented (the first
// bytes stay). Refused with 422 and not
// stored: a forged bundle (ranked lists spliced, numbers recomputed so
// that the bundle-only checks pass), a benchmark revision the registry
// does not hold (named), a pooled_gold run that does not list
// POOLED_GOLD_CORPUS (a listed corpus label is the one warning a
// submission may carry), a submitter with a control character, a body
// that is not a bundle. No token or a wrong one is 401, a server without
// a token 403, a bundle over the limit 413. A submitter's HTML is
// escaped on the report.
func TestSubmitBundles(t *testing.T) {
	genuine := sharedBundle(t, stemmed)
	if genuine.Configs[0].Benchmark != "local/faq@ea3e86b12545" {
		t.Fatalf("the run is on %s", genuine.Configs[0].Benchmark)
	}
	hostile := rewritten(t, genuine, "", "", func(b *results.Bundle) {
		b.Submitter = &results.Submitter{Name: `<script>alert("who")</script>`, Affiliation: "ACME & co"}
	})
	registryNamed := rewritten(t, genuine, "local/faq@ea3e86b12545", "faq@ea3e86b12545", nil)
	spliced := rewritten(t, genuine, "", "", func(b *results.Bundle) {
		for i := range b.Results[0].PerSampleScores {
			r := &b.Results[0].PerSampleScores[i]
			if len(r.RetrievedIDs) > 1 {
				r.RetrievedIDs[0], r.RetrievedIDs[1] = r.RetrievedIDs[1], r.RetrievedIDs[0]
				r.Retrieved[0].ID, r.Retrieved[1].ID = r.RetrievedIDs[0], r.RetrievedIDs[1]
			}
		}
	})
	if rep, _, _ := results.ValidateAgainst(bundleBytes(t, spliced), nil, schema.Check); rep.Blocking() != 0 {
		t.Fatalf("the forgery should pass the bundle-only checks (it is made to): %v", rep.Problems)
	}
	unknown := rewritten(t, genuine, "ea3e86b12545", "0123456789ab", nil)
	unlabelled := rewritten(t, genuine, "", "", func(b *results.Bundle) { b.Integrity.Warnings = nil })
	control := rewritten(t, genuine, "", "", func(b *results.Bundle) { b.Submitter = &results.Submitter{Name: "bot\x1b[31m"} })
	long := rewritten(t, genuine, "", "", func(b *results.Bundle) { b.Submitter = &results.Submitter{Name: strings.Repeat("é", 201)} })
	bidi := rewritten(t, genuine, "", "", func(b *results.Bundle) {
		b.Submitter = &results.Submitter{Name: "ok", Affiliation: "lab\u202egnp.exe"}
	})

	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			s, reg := newHub(t, be.dsn(t), 0)
			ctx := context.Background()

			for _, b := range []*results.Bundle{hostile, registryNamed} {
				raw := bundleBytes(t, b)
				res, ans := submit(t, s, bytes.NewReader(raw), withToken(hubToken)...)
				if res.StatusCode != 201 || ans.Status != "accepted" || ans.RunID != b.RunID || ans.Report != "/bundles/"+b.RunID ||
					ans.Benchmark != "faq" || ans.ContentHash != "ea3e86b12545" || !strings.Contains(ans.Rescored, "re-scored against the data: 47 rows") {
					t.Fatalf("genuine %s: %s %+v", b.Configs[0].Benchmark, res.Status, ans)
				}
				stored, err := reg.Bundle(ctx, b.RunID)
				if err != nil || !bytes.Equal(stored, raw) {
					t.Fatalf("stored bytes differ (%v)", err)
				}
				res, ans = submit(t, s, bytes.NewReader(raw), withToken(hubToken)...)
				if res.StatusCode != 200 || ans.Status != "duplicate" || ans.RunID != b.RunID {
					t.Errorf("the same bundle again: %s %+v", res.Status, ans)
				}
				var indented bytes.Buffer
				if err := json.Indent(&indented, raw, "", "\t"); err != nil || bytes.Equal(indented.Bytes(), raw) {
					t.Fatalf("indent: %v", err)
				}
				res, ans = submit(t, s, &indented, withToken(hubToken)...)
				if res.StatusCode != 200 || ans.Status != "duplicate" {
					t.Errorf("the same bundle written differently: %s %+v", res.Status, ans)
				}
				res, body := get(t, s, "/api/bundles/"+b.RunID, withToken(hubToken)...)
				if res.StatusCode != 200 || body != string(raw) {
					t.Errorf("GET /api/bundles/%s: %s", b.RunID, res.Status)
				}
			}
			res, body := get(t, s, "/bundles/"+hostile.RunID, withToken(hubToken)...)
			if res.StatusCode != 200 || !strings.Contains(body, "local/faq@ea3e86b12545") || strings.Contains(body, `<script>alert("who")`) ||
				!strings.Contains(body, "submitted by &lt;script&gt;alert(&#34;who&#34;)&lt;/script&gt; (ACME &amp; co)") {
				t.Errorf("the stored bundle's report: %s\n%.3000s", res.Status, body)
			}
			if !strings.Contains(res.Header.Get("Content-Security-Policy"), "script-src 'sha256-") {
				t.Errorf("the report's CSP: %s", res.Header.Get("Content-Security-Policy"))
			}
			res, body = get(t, s, "/api/bundles", withToken(hubToken)...)
			var list struct{ Bundles []storedView }
			if err := json.Unmarshal([]byte(body), &list); err != nil || res.StatusCode != 200 || len(list.Bundles) != 2 {
				t.Fatalf("GET /api/bundles: %s %v\n%s", res.Status, err, body)
			}
			if l := list.Bundles; l[0].RunID != registryNamed.RunID || l[1].RunID != hostile.RunID || l[1].Submitter != `<script>alert("who")</script> (ACME & co)` ||
				l[1].Report != "/bundles/"+hostile.RunID || l[1].Benchmark != "faq" || l[1].Size != int64(len(bundleBytes(t, hostile))) {
				t.Errorf("the list (newest first): %+v", l)
			}
			res, body = get(t, s, "/compare?bundle="+registryNamed.RunID+"&baseline="+hostile.RunID, withToken(hubToken)...)
			if res.StatusCode != 200 || !strings.Contains(body, "stored bundle "+registryNamed.RunID[:12]+" against baseline "+hostile.RunID[:12]) {
				t.Errorf("comparing two stored bundles: %s\n%.2000s", res.Status, body)
			}
			if res, _ := get(t, s, "/compare?bundle="+registryNamed.RunID+"&baseline=x.json", withToken(hubToken)...); res.StatusCode != 400 {
				t.Errorf("comparing a stored bundle with a file: %s", res.Status)
			}
			if res, _ := get(t, s, "/compare?bundle="+registryNamed.RunID+"&baseline="+strings.Repeat("e", 64), withToken(hubToken)...); res.StatusCode != 404 {
				t.Errorf("comparing with an unknown run_id: %s", res.Status)
			}
			if res, _ := get(t, s, "/bundles/"+strings.Repeat("e", 64), withToken(hubToken)...); res.StatusCode != 404 {
				t.Errorf("an unknown run_id's report: %s", res.Status)
			}
			if res, _ := get(t, s, "/api/bundles/"+strings.Repeat("e", 64), withToken(hubToken)...); res.StatusCode != 404 {
				t.Errorf("an unknown run_id's JSON: %s", res.Status)
			}

			refusals := []struct {
				name   string
				b      *results.Bundle
				status int
				check  func(submitAnswer) bool
			}{
				{"forged", spliced, 422, func(a submitAnswer) bool {
					return hasFinding(a, "INCONSISTENT_BUNDLE", "but the row's ranked list and the data give") && strings.Contains(a.Error, "fails validation")
				}},
				{"unknown benchmark", unknown, 422, func(a submitAnswer) bool {
					return strings.Contains(a.Error, "local/faq@0123456789ab (content hash 0123456789ab), which the registry does not hold") && a.ContentHash == "0123456789ab"
				}},
				{"pooled_gold not listed", unlabelled, 422, func(a submitAnswer) bool {
					return hasFinding(a, "POOLED_GOLD_CORPUS", "integrity.warnings does not list POOLED_GOLD_CORPUS")
				}},
				{"long submitter", long, 422, func(a submitAnswer) bool {
					return hasFinding(a, "INVALID_SUBMITTER", "submitter.name is 201 characters long, more than 200")
				}},
				{"bidi override", bidi, 422, func(a submitAnswer) bool {
					return hasFinding(a, "INVALID_SUBMITTER", "submitter.affiliation holds the control character U+202E")
				}},
				{"control character", control, 422, func(a submitAnswer) bool {
					return hasFinding(a, "INVALID_SUBMITTER", "submitter.name holds the control character U+001B") && strings.Contains(a.Findings[0].Fix, "at most 200 characters")
				}},
			}
			for _, c := range refusals {
				res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, c.b)), withToken(hubToken)...)
				if res.StatusCode != c.status || ans.Status != "refused" || !c.check(ans) {
					t.Errorf("%s: %s %+v", c.name, res.Status, ans)
				}
				if _, err := reg.Bundle(ctx, c.b.RunID); err == nil {
					t.Errorf("%s: the refused bundle was stored", c.name)
				}
			}
			res, ans := submit(t, s, strings.NewReader(`{"schema_version": "1.0", "run_id": 7}`), withToken(hubToken)...)
			if res.StatusCode != 422 || ans.Status != "refused" || len(ans.Findings) == 0 {
				t.Errorf("not a bundle: %s %+v", res.Status, ans)
			}
			for _, f := range ans.Findings {
				if f.Code == "" || f.Fix == "" {
					t.Errorf("a finding without code or fix: %+v", f)
				}
			}

			raw := bundleBytes(t, control)
			for name, headers := range map[string][]string{
				"no token":    nil,
				"wrong token": withToken(strings.Repeat("x", len(hubToken))),
				"cookie only": {"Cookie", sessionCookie + "=" + s.session},
			} {
				res, ans := submit(t, s, bytes.NewReader(raw), headers...)
				if res.StatusCode != 401 || !strings.Contains(ans.Error, "Authorization: Bearer") || res.Header.Get("WWW-Authenticate") == "" {
					t.Errorf("%s: %s %+v", name, res.Status, ans)
				}
			}
			if bs, _ := reg.Bundles(ctx); len(bs) != 2 {
				t.Errorf("%d bundles stored after the refusals, want 2", len(bs))
			}
		})
	}
}

// TestSubmitLimits: a bundle over --max-upload is 413, whether the
// request says its length or not; a server without a token accepts no
// submission (403), also on loopback, while its reads stay open. On
// SQLite and PostgreSQL.
func TestSubmitLimits(t *testing.T) {
	raw := bundleBytes(t, sharedBundle(t, stemmed))
	for _, be := range backends() {
		t.Run(be.name, func(t *testing.T) {
			s, reg := newHub(t, be.dsn(t), int64(len(raw)-1))
			res, ans := submit(t, s, bytes.NewReader(raw), withToken(hubToken)...)
			if res.StatusCode != 413 || !strings.Contains(ans.Error, "larger than this server's upload limit") || !strings.Contains(ans.Error, "--max-upload") {
				t.Errorf("too large, with Content-Length: %s %+v", res.Status, ans)
			}
			res, ans = submit(t, s, io.MultiReader(bytes.NewReader(raw)), withToken(hubToken)...)
			if res.StatusCode != 413 || !strings.Contains(ans.Error, "upload limit") {
				t.Errorf("too large, streamed: %s %+v", res.Status, ans)
			}
			if bs, _ := reg.Bundles(context.Background()); len(bs) != 0 {
				t.Errorf("a bundle over the limit was stored: %v", bs)
			}

			open, err := New(Options{Bundles: t.TempDir(), Version: "test", Registry: reg, SchemaCheck: schema.Check})
			if err != nil {
				t.Fatal(err)
			}
			defer open.Close()
			res, ans = submit(t, open, bytes.NewReader(raw), withToken(hubToken)...)
			if res.StatusCode != 403 || !strings.Contains(ans.Error, "has no token, so it accepts no submissions") {
				t.Errorf("a server without a token: %s %+v", res.Status, ans)
			}
			if res, body := get(t, open, "/api/bundles"); res.StatusCode != 200 || !strings.Contains(body, `"bundles": []`) {
				t.Errorf("reads on loopback without a token: %s %s", res.Status, body)
			}
		})
	}
}

// TestSubmitArmsAndCorpora: genuine bundles of two arms on faq (a pool of
// gold passages, labelled POOLED_GOLD_CORPUS) and of a run on the BEIR
// folder glasscoins (its own corpus) are each accepted and listed with
// their registry benchmark.
func TestSubmitArmsAndCorpora(t *testing.T) {
	s, reg := newHub(t, sqliteDSN(t), 0)
	ctx := context.Background()
	if _, err := reg.Create(ctx, "glasscoins", registry.Files{FS: os.DirFS(filepath.Join("..", "..", "examples", "data")), Path: "glasscoins"}); err != nil {
		t.Fatal(err)
	}
	native := runOn(t, os.DirFS(filepath.Join("..", "..", "examples")), "data/glasscoins", stemmed)
	if p := native.Configs[0].HeldFixed.CorpusProvenance; p == lasagna.ProvenancePooledGold {
		t.Fatalf("glasscoins is %s", p)
	}
	want := map[string]string{}
	for _, b := range []*results.Bundle{sharedBundle(t, stemmed), sharedBundle(t, unstemmed), native} {
		res, ans := submit(t, s, bytes.NewReader(bundleBytes(t, b)), withToken(hubToken)...)
		if res.StatusCode != 201 || ans.Status != "accepted" {
			t.Errorf("%s/%s: %s %+v", b.Configs[0].Benchmark, b.Configs[0].Name, res.Status, ans)
		}
		want[b.RunID] = strings.SplitN(strings.TrimPrefix(b.Configs[0].Benchmark, "local/"), "@", 2)[0]
	}
	bs, err := reg.Bundles(ctx)
	if err != nil || len(bs) != 3 {
		t.Fatalf("Bundles = %v, %v", bs, err)
	}
	for _, b := range bs {
		if want[b.RunID] != b.Benchmark {
			t.Errorf("bundle %s stored on %s, want %s", b.RunID[:12], b.Benchmark, want[b.RunID])
		}
	}
}
