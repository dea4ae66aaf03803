package main

import (
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/dashboard"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
)

// TestResultsSubmit runs lasagna results submit against lasagna serve's
// handler (serveOptions, as serve builds it) listening on loopback: a
// genuine bundle of benchmark run registry:faq is accepted with its
// report's URL, then a duplicate; a forged one (ranked lists spliced,
// numbers recomputed) is refused with its findings and exit 1; a missing
// token is a usage error, a wrong one 401, a closed server unreachable,
// a bundle over --max-upload 413. The token never reaches the output.
func TestResultsSubmit(t *testing.T) {
	dsn := useRegistry(t)
	if _, errOut, code := runCLI(t, "benchmark", "create", "faq", "--from", "../../examples/data/faq.jsonl"); code != 0 {
		t.Fatal(errOut)
	}
	dir := t.TempDir()
	genuine := filepath.Join(dir, "genuine.json")
	if _, errOut, code := runCLI(t, "benchmark", "run", "registry:faq", "--profile", "speed", "-o", genuine); code != 0 {
		t.Fatal(errOut)
	}
	b, err := results.ReadFile(genuine)
	if err != nil {
		t.Fatal(err)
	}
	for i := range b.Results[0].PerSampleScores {
		r := &b.Results[0].PerSampleScores[i]
		if len(r.RetrievedIDs) > 1 {
			r.RetrievedIDs[0], r.RetrievedIDs[1] = r.RetrievedIDs[1], r.RetrievedIDs[0]
			r.Retrieved[0].ID, r.Retrieved[1].ID = r.RetrievedIDs[0], r.RetrievedIDs[1]
		}
	}
	b.Results[0].Metrics, b.Results[0].MetricStats = map[string]float64{}, nil
	if err := results.Aggregate(&b.Results[0], b.StatsOptions()); err != nil {
		t.Fatal(err)
	}
	b.RunID = ""
	if err := results.Finalize(b); err != nil {
		t.Fatal(err)
	}
	forged := filepath.Join(dir, "forged.json")
	if err := results.WriteFile(forged, b); err != nil {
		t.Fatal(err)
	}

	reg, err := registry.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	const token = "submit-token-0123456789abcdef"
	start := func(maxUpload int64) *httptest.Server {
		o := serveOptions(t.TempDir(), token, "", reg)
		o.MaxUpload = maxUpload
		srv, err := dashboard.New(o)
		if err != nil {
			t.Fatal(err)
		}
		hs := httptest.NewServer(srv) // 127.0.0.1
		t.Cleanup(func() { hs.Close(); srv.Close() })
		return hs
	}
	hs := start(0)
	noToken := func(s string) {
		t.Helper()
		if strings.Contains(s, token) {
			t.Errorf("the token reached the output:\n%s", s)
		}
	}

	t.Setenv(dashboard.TokenEnv, token)
	g, err := results.ReadFile(genuine)
	if err != nil {
		t.Fatal(err)
	}
	out, errOut, code := runCLI(t, "results", "submit", genuine, "--to", hs.URL+"/")
	noToken(out + errOut)
	want := genuine + ": accepted: run_id " + g.RunID + " on faq@ea3e86b12545; report " + hs.URL + "/bundles/" + g.RunID
	if code != 0 || !strings.Contains(out, want) || !strings.Contains(out, "1 accepted, 0 duplicate, 0 refused") || errOut != "" {
		t.Fatalf("submit genuine: exit %d, want %q\n%s%s", code, want, out, errOut)
	}
	if stored, err := reg.Bundle(t.Context(), g.RunID); err != nil || len(stored) == 0 {
		t.Errorf("the accepted bundle is not in the registry: %v", err)
	}

	out, errOut, code = runCLI(t, "results", "submit", genuine, forged, "--to", hs.URL)
	noToken(out + errOut)
	if code != 1 || !strings.Contains(out, genuine+": duplicate") || !strings.Contains(out, forged+": refused: the bundle fails validation") ||
		!strings.Contains(out, "\n  INCONSISTENT_BUNDLE at faq@ea3e86b12545/bm25/") || !strings.Contains(out, "but the row's ranked list and the data give") ||
		!strings.Contains(out, "0 accepted, 1 duplicate, 1 refused") {
		t.Errorf("submit duplicate and forged: exit %d\n%s%s", code, out, errOut)
	}

	small := start(1000)
	out, errOut, code = runCLI(t, "results", "submit", genuine, "--to", small.URL)
	if code != 1 || !strings.Contains(out, genuine+": refused: too large (413): the bundle is larger than this server's upload limit of 1000 bytes") {
		t.Errorf("submit over the limit: exit %d\n%s%s", code, out, errOut)
	}

	t.Setenv(dashboard.TokenEnv, "wrong-token-0123456789abcdef")
	out, errOut, code = runCLI(t, "results", "submit", genuine, "--to", hs.URL)
	if code != 1 || !strings.Contains(errOut, "refused the token (401): LASAGNA_SERVE_TOKEN is not the token that lasagna serve runs with") {
		t.Errorf("submit with a wrong token: exit %d\n%s%s", code, out, errOut)
	}

	t.Setenv(dashboard.TokenEnv, token)
	closed := start(0)
	closed.Close()
	out, errOut, code = runCLI(t, "results", "submit", genuine, "--to", closed.URL)
	noToken(out + errOut)
	if code != 1 || !strings.Contains(errOut, "the server cannot be reached") || !strings.Contains(errOut, "connection refused") {
		t.Errorf("submit to a closed server: exit %d\n%s%s", code, out, errOut)
	}

	for _, c := range []struct {
		env, to, want string
	}{
		{"", hs.URL, "LASAGNA_SERVE_TOKEN is not set"},
		{token, "", "give --to URL"},
		{token, "ftp://x", "is not an http:// or https:// URL"},
	} {
		t.Setenv(dashboard.TokenEnv, c.env)
		_, errOut, code := runCLI(t, "results", "submit", genuine, "--to", c.to)
		if code != 2 || !strings.Contains(errOut, c.want) {
			t.Errorf("env %q --to %q: exit %d, want 2 with %q\n%s", c.env, c.to, code, c.want, errOut)
		}
	}
}
