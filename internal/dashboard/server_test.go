package dashboard

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestBundlesList: the list shows each bundle of the folder (subfolders
// too, not dot-folders) with its run id, benchmark, arms, query count,
// integrity counts and links to its report and JSON; files that are not
// served are listed with the reason; the compare form offers the bundles.
func TestBundlesList(t *testing.T) {
	dir := t.TempDir()
	a := sharedBundle(t, twoArms)
	writeBundle(t, dir, "a.json", a)
	writeBundle(t, dir, "runs/b c.json", sharedBundle(t, stemmed))
	writeBundle(t, dir, ".cache/hidden.json", a)
	os.WriteFile(filepath.Join(dir, "notes.json"), []byte(`{"arms": []}`), 0o644)
	os.WriteFile(filepath.Join(dir, "broken.json"), []byte(`{"schema_version": "1.0", "configs": [`), 0o644)
	os.WriteFile(filepath.Join(dir, "readme.txt"), []byte(`not listed`), 0o644)
	s := newTestServer(t, dir, "")
	res, page := get(t, s, "/")
	if res.StatusCode != 200 {
		t.Fatalf("GET / = %d\n%s", res.StatusCode, page)
	}
	for _, want := range []string{
		`<a class="report" href="/bundles/a.json">a.json</a>`,
		`<code title="` + a.RunID + `">` + a.RunID[:12] + `</code>`,
		`<td>` + a.Configs[0].Benchmark + `</td><td>bm25, bm25-nostem</td><td class="num">47</td>`,
		`0 blocking · 1 warning</td>`,
		`<a href="/raw/a.json">JSON</a>`,
		`<a class="report" href="/bundles/runs/b%20c.json">runs/b c.json</a>`,
		`<tr class="refused"><td>notes.json</td><td colspan="8" class="err">not a results bundle (no schema_version)</td>`,
		`<tr class="refused"><td>broken.json</td><td colspan="8" class="err">not a readable bundle: `,
		`<option value="runs/b c.json">runs/b c.json</option>`,
	} {
		if !strings.Contains(page, want) {
			t.Errorf("the list lacks %s\n%s", want, page)
		}
	}
	for _, not := range []string{"hidden.json", "readme.txt"} {
		if strings.Contains(page, not) {
			t.Errorf("the list shows %s", not)
		}
	}
}

// TestReportAndComparePages: a bundle's page is its htmlreport with a
// way back; the compare page reports a bundle against a baseline bundle
// with the verdict line; the JSON link returns the file's bytes.
func TestReportAndComparePages(t *testing.T) {
	dir := t.TempDir()
	writeBundle(t, dir, "base.json", sharedBundle(t, stemmed))
	path := writeBundle(t, dir, "runs/cand.json", sharedBundle(t, unstemmed))
	s := newTestServer(t, dir, "")

	res, page := get(t, s, "/bundles/runs/cand.json")
	if res.StatusCode != 200 {
		t.Fatalf("report: %d\n%s", res.StatusCode, page)
	}
	for _, want := range []string{`<nav><a href="/">← bundles</a> · <a href="/raw/runs/cand.json">bundle JSON</a></nav>`, `<h1>runs/cand.json</h1>`, `<figure class="means"`, `id="queries"`} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks %s", want)
		}
	}

	res, page = get(t, s, "/compare?bundle=runs%2Fcand.json&baseline=base.json")
	if res.StatusCode != 200 {
		t.Fatalf("compare: %d\n%s", res.StatusCode, page)
	}
	for _, want := range []string{`<h1>runs/cand.json against baseline base.json</h1>`, `<td>baseline: bm25</td>`, `<p class="verdict">`, `<figure class="diffs">`, `<table id="changes">`, `<td class="num mde" `} {
		if !strings.Contains(page, want) {
			t.Errorf("the compare page lacks %s", want)
		}
	}
	if strings.Contains(page, "not compared:") {
		t.Errorf("the bundles were not compared:\n%s", page)
	}

	res, raw := get(t, s, "/raw/runs/cand.json")
	want, _ := os.ReadFile(path)
	if res.StatusCode != 200 || raw != string(want) || res.Header.Get("Content-Type") != "application/json" || res.Header.Get("Content-Disposition") != `attachment; filename="cand.json"` {
		t.Errorf("raw: %d %v, %d bytes of %d", res.StatusCode, res.Header, len(raw), len(want))
	}

	for target, code := range map[string]int{"/compare?bundle=base.json": 400, "/compare?bundle=nope.json&baseline=base.json": 404, "/bundles/nope.json": 404} {
		if res, page := get(t, s, target); res.StatusCode != code || !strings.Contains(page, `id="message"`) {
			t.Errorf("GET %s = %d, want %d with a message\n%s", target, res.StatusCode, code, page)
		}
	}
}

// TestUntrustedBundle: a bundle edited after it was written (its run_id
// no longer matches) is listed as invalid and its report and comparison
// are refused with the problem, as lasagna results report refuses it.
func TestUntrustedBundle(t *testing.T) {
	dir := t.TempDir()
	p := writeBundle(t, dir, "edited.json", sharedBundle(t, stemmed))
	writeBundle(t, dir, "ok.json", sharedBundle(t, stemmed))
	raw, _ := os.ReadFile(p)
	edited := regexp.MustCompile(`"ndcg@10": 0\.\d+`).ReplaceAll(raw, []byte(`"ndcg@10": 0.999`))
	if string(edited) == string(raw) {
		t.Fatal("nothing edited")
	}
	os.WriteFile(p, edited, 0o644)
	s := newTestServer(t, dir, "")
	_, page := get(t, s, "/")
	if !strings.Contains(page, `<td>edited.json</td>`) || !strings.Contains(page, `INVALID: not reported`) {
		t.Errorf("the list does not mark edited.json invalid:\n%s", page)
	}
	if strings.Contains(page, `<option value="edited.json">`) {
		t.Error("the compare form offers the invalid bundle")
	}
	for _, target := range []string{"/bundles/edited.json", "/compare?bundle=edited.json&baseline=ok.json", "/compare?bundle=ok.json&baseline=edited.json"} {
		res, page := get(t, s, target)
		if res.StatusCode != http.StatusUnprocessableEntity || !strings.Contains(page, "RUN_ID_MISMATCH") {
			t.Errorf("GET %s = %d, want 422 naming RUN_ID_MISMATCH\n%s", target, res.StatusCode, page)
		}
	}
}

// TestCheckAddr: loopback addresses need no token; any other address
// needs one of at least MinTokenLength characters, and the error says
// how to set it.
func TestCheckAddr(t *testing.T) {
	token := strings.Repeat("t", MinTokenLength)
	for _, tc := range []struct {
		addr, token string
		ok          bool
	}{
		{"127.0.0.1:8080", "", true}, {"localhost:0", "", true}, {"[::1]:8080", "", true}, {"127.1.2.3:80", "", true},
		{":8080", "", false}, {"0.0.0.0:8080", "", false}, {"[::]:8080", "", false}, {"192.0.2.10:8080", "", false}, {"dashboard-host:8080", "", false},
		{":8080", token, true}, {"192.0.2.10:8080", token, true},
		{":8080", "short", false}, {"127.0.0.1", "", false},
	} {
		err := CheckAddr(tc.addr, tc.token)
		if (err == nil) != tc.ok {
			t.Errorf("CheckAddr(%q, %q) = %v, want ok=%v", tc.addr, tc.token, err, tc.ok)
		}
		if err != nil && tc.token == "" && tc.addr != "127.0.0.1" && !strings.Contains(err.Error(), "set LASAGNA_SERVE_TOKEN") {
			t.Errorf("CheckAddr(%q): the error does not say to set the token: %v", tc.addr, err)
		}
	}
	if _, err := New(Options{Bundles: t.TempDir(), Token: "short"}); err == nil {
		t.Error("New accepts a 5-character token")
	}
	if _, err := New(Options{Bundles: filepath.Join(t.TempDir(), "none")}); err == nil || !strings.Contains(err.Error(), "--bundles") {
		t.Errorf("New over a missing folder: %v", err)
	}
}

// TestAuthentication: with a token, a request without it, with a wrong
// one or with a forged cookie gets 401; the bearer header or the cookie
// /login sets (not the token itself, HttpOnly, SameSite=Strict) gets in;
// /login with a wrong token sets no cookie.
func TestAuthentication(t *testing.T) {
	dir := t.TempDir()
	writeBundle(t, dir, "a.json", sharedBundle(t, stemmed))
	const token = "0123456789abcdef0123"
	s := newTestServer(t, dir, token)
	for _, tc := range []struct {
		name    string
		target  string
		headers []string
		code    int
	}{
		{"no credentials", "/", nil, 401},
		{"no credentials, report", "/bundles/a.json", nil, 401},
		{"no credentials, raw", "/raw/a.json", nil, 401},
		{"wrong bearer", "/", []string{"Authorization", "Bearer " + token + "x"}, 401},
		{"token as cookie", "/", []string{"Cookie", sessionCookie + "=" + token}, 401},
		{"forged cookie", "/", []string{"Cookie", sessionCookie + "=" + strings.Repeat("0", 64)}, 401},
		{"bearer", "/", []string{"Authorization", "Bearer " + token}, 200},
		{"bearer, report", "/bundles/a.json", []string{"Authorization", "Bearer " + token}, 200},
		{"style sheet", "/static/style.css", nil, 200},
		{"login, wrong token", "/login?token=nope", nil, 401},
		{"login, no token", "/login", nil, 401},
	} {
		res, body := get(t, s, tc.target, tc.headers...)
		if res.StatusCode != tc.code {
			t.Errorf("%s: GET %s = %d, want %d", tc.name, tc.target, res.StatusCode, tc.code)
		}
		if tc.code == 401 {
			if strings.Contains(body, "a.json") || res.Header.Get("WWW-Authenticate") == "" || len(res.Cookies()) > 0 {
				t.Errorf("%s: the 401 shows data, lacks WWW-Authenticate or sets a cookie: %v\n%s", tc.name, res.Header, body)
			}
		}
	}
	res, _ := get(t, s, "/login?token="+token)
	if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
		t.Fatalf("login: %d, Location %q", res.StatusCode, res.Header.Get("Location"))
	}
	cs := res.Cookies()
	if len(cs) != 1 || cs[0].Name != sessionCookie || !cs[0].HttpOnly || cs[0].SameSite != http.SameSiteStrictMode || strings.Contains(cs[0].Value, token) {
		t.Fatalf("login cookie: %+v", cs)
	}
	if res, body := get(t, s, "/", "Cookie", cs[0].String()); res.StatusCode != 200 || !strings.Contains(body, "a.json") {
		t.Errorf("with the login cookie: %d", res.StatusCode)
	}
}

// TestHostCheck: without a token the dashboard answers only requests to
// a loopback Host (a DNS-rebinding page of another site gets 403); with a
// token any Host may be used once authenticated.
func TestHostCheck(t *testing.T) {
	dir := t.TempDir()
	s := newTestServer(t, dir, "")
	for host, code := range map[string]int{"localhost:8080": 200, "127.0.0.1:8080": 200, "[::1]:8080": 200, "LOCALHOST": 200,
		"rebind.attacker.test:8080": 403, "192.0.2.1:8080": 403, "localhost.attacker.test": 403, "127.0.0.1.nip.test": 403} {
		r := httptest.NewRequest(http.MethodGet, "/", nil)
		r.Host = host
		if res, _ := do(t, s, r); res.StatusCode != code {
			t.Errorf("Host %s: %d, want %d", host, res.StatusCode, code)
		}
	}
	const token = "0123456789abcdef0123"
	s2 := newTestServer(t, dir, token)
	r := httptest.NewRequest(http.MethodGet, "/", nil)
	r.Host = "dashboard-host:8080"
	if res, _ := do(t, s2, r, "Authorization", "Bearer "+token); res.StatusCode != 200 {
		t.Errorf("with a token, Host dashboard-host: %d", res.StatusCode)
	}
}

// TestCSRF: POST /rescan is refused with 403 without the page's CSRF
// token, with a wrong one, with another session's, and from another
// origin even with the right token; GET /rescan is 405; the right token
// from the same origin rescans (the list then shows a file changed
// behind the cache's back).
func TestCSRF(t *testing.T) {
	dir := t.TempDir()
	p := writeBundle(t, dir, "a.json", sharedBundle(t, stemmed))
	const token = "0123456789abcdef0123"
	for _, withToken := range []bool{false, true} {
		name := "loopback"
		if withToken {
			name = "token"
		}
		t.Run(name, func(t *testing.T) {
			tok := ""
			var auth []string
			if withToken {
				tok = token
				res, _ := get(t, newTestServer(t, dir, tok), "/login?token="+tok)
				auth = []string{"Cookie", res.Cookies()[0].String()}
			}
			s := newTestServer(t, dir, tok)
			_, page := get(t, s, "/", auth...)
			csrf := formValue(t, page, "csrf")
			post := func(form url.Values, headers ...string) *http.Response {
				r := httptest.NewRequest(http.MethodPost, "http://localhost/rescan", strings.NewReader(form.Encode()))
				r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
				res, _ := do(t, s, r, append(slicesClone(auth), headers...)...)
				return res
			}
			for _, tc := range []struct {
				name    string
				form    url.Values
				headers []string
			}{
				{"no token", nil, nil},
				{"wrong token", url.Values{"csrf": {strings.Repeat("0", len(csrf))}}, nil},
				{"cross-site", url.Values{"csrf": {csrf}}, []string{"Sec-Fetch-Site", "cross-site"}},
				{"other origin", url.Values{"csrf": {csrf}}, []string{"Origin", "http://attacker.test"}},
			} {
				if res := post(tc.form, tc.headers...); res.StatusCode != http.StatusForbidden {
					t.Errorf("%s: POST /rescan = %d, want 403", tc.name, res.StatusCode)
				}
			}
			if withToken {
				// The token of a page seen without the session cookie
				// (a bearer request) is not the cookie session's.
				_, other := get(t, s, "/", "Authorization", "Bearer "+tok)
				if res := post(url.Values{"csrf": {formValue(t, other, "csrf")}}); res.StatusCode != http.StatusForbidden {
					t.Errorf("another session's token: %d, want 403", res.StatusCode)
				}
			}
			if res, _ := get(t, s, "/rescan", auth...); res.StatusCode != http.StatusMethodNotAllowed {
				t.Errorf("GET /rescan = %d, want 405", res.StatusCode)
			}

			// Change the file behind the cache's back (same size, same
			// time): the list keeps what it read until a rescan.
			st, _ := os.Stat(p)
			raw, _ := os.ReadFile(p)
			old := sharedBundle(t, stemmed).RunID
			os.WriteFile(p, []byte(strings.Replace(string(raw), old, strings.Repeat("f", 64), 1)), 0o644)
			os.Chtimes(p, st.ModTime(), st.ModTime())
			defer os.WriteFile(p, raw, 0o644)
			if _, page := get(t, s, "/", auth...); !strings.Contains(page, `<code title="`+old) {
				t.Fatal("the list does not show the cached run id")
			}
			res := post(url.Values{"csrf": {csrf}}, "Sec-Fetch-Site", "same-origin")
			if res.StatusCode != http.StatusSeeOther || res.Header.Get("Location") != "/" {
				t.Fatalf("POST /rescan with the page's token: %d", res.StatusCode)
			}
			if _, page := get(t, s, "/", auth...); strings.Contains(page, `<code title="`+old) || !strings.Contains(page, "INVALID") {
				t.Errorf("after the rescan the list still shows the old run id:\n%s", page)
			}
		})
	}
}

func slicesClone(s []string) []string { return append([]string(nil), s...) }

// TestNoTraversal: nothing outside the bundles folder is served or
// listed, whatever the URL: "..", encoded once or twice, absolute paths,
// backslashes, symbolic links to a file or a folder outside, through the
// report, raw and compare pages and the static assets. The secret is a
// valid bundle, so serving it would show its run id.
func TestNoTraversal(t *testing.T) {
	top := t.TempDir()
	dir := filepath.Join(top, "bundles")
	writeBundle(t, dir, "a.json", sharedBundle(t, stemmed))
	secret := sharedBundle(t, unstemmed)
	secretPath := writeBundle(t, top, "secret.json", secret)
	if err := os.Symlink(secretPath, filepath.Join(dir, "link.json")); err != nil {
		t.Skip("no symbolic links here:", err)
	}
	os.Symlink("../secret.json", filepath.Join(dir, "rel-link.json"))
	os.Symlink(top, filepath.Join(dir, "outside"))
	os.Symlink("a.json", filepath.Join(dir, "inside-link.json"))
	abs := filepath.ToSlash(secretPath)
	srv := httptest.NewServer(newTestServer(t, dir, ""))
	defer srv.Close()
	// Go's client sends the path as given (no cleaning) and follows
	// redirects, so a redirect to the file would be followed too.
	for _, target := range []string{
		"/bundles/../secret.json", "/bundles/..%2fsecret.json", "/bundles/%2e%2e/secret.json", "/bundles/%2e%2e%2fsecret.json",
		"/bundles/..%252fsecret.json", "/bundles/%252e%252e%252fsecret.json", "/bundles/..%5csecret.json", `/bundles/..\secret.json`,
		"/bundles/" + abs, "/bundles//" + abs, "/bundles/" + url.PathEscape(abs), "/bundles/link.json", "/bundles/rel-link.json",
		"/bundles/outside/secret.json", "/bundles/./../secret.json", "/bundles/a.json/../../secret.json", "/bundles/%00../secret.json",
		"/raw/../secret.json", "/raw/..%2fsecret.json", "/raw/" + abs, "/raw/link.json", "/raw/rel-link.json", "/raw/outside/secret.json",
		"/compare?bundle=..%2fsecret.json&baseline=a.json", "/compare?bundle=a.json&baseline=" + url.QueryEscape(abs),
		"/compare?bundle=link.json&baseline=a.json", "/compare?bundle=a.json&baseline=outside%2fsecret.json", "/compare?bundle=..%252fsecret.json&baseline=a.json",
		"/static/../secret.json", "/static/..%2f..%2fsecret.json", "/static/%2e%2e/%2e%2e/secret.json", "/static/" + abs,
		"/../secret.json", "/%2e%2e/secret.json",
	} {
		req, err := http.NewRequest(http.MethodGet, srv.URL+target, nil)
		if err != nil {
			t.Errorf("%s: %v", target, err)
			continue
		}
		res, err := srv.Client().Do(req)
		if err != nil {
			continue // refused outright
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode == 200 || strings.Contains(string(body), secret.RunID[:12]) {
			t.Errorf("GET %s = %d (final URL %s) and shows %d bytes; want a 4xx without the file", target, res.StatusCode, res.Request.URL, len(body))
		}
	}
	res, err := srv.Client().Get(srv.URL + "/")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	if strings.Contains(string(page), secret.RunID[:12]) {
		t.Error("the list shows the run id of the bundle outside the folder")
	}
	for _, want := range []string{`<tr class="refused"><td>link.json</td><td colspan="8" class="err">a symbolic link that leads outside the bundles folder`, `<tr class="refused"><td>rel-link.json</td>`, `<a class="report" href="/bundles/inside-link.json">`} {
		if !strings.Contains(string(page), want) {
			t.Errorf("the list lacks %s", want)
		}
	}
	if strings.Contains(string(page), top) && !strings.Contains(string(page), "<code>"+dir+"</code>") {
		t.Error("the list shows a path outside the folder")
	}
}

// TestNonRegularFile: a FIFO named like a bundle is listed as not served
// and requesting it answers at once (an open would block forever).
func TestNonRegularFile(t *testing.T) {
	dir := t.TempDir()
	if err := syscall.Mkfifo(filepath.Join(dir, "fifo.json"), 0o644); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	s := newTestServer(t, dir, "")
	done := make(chan string)
	go func() {
		_, page := get(t, s, "/")
		res, _ := get(t, s, "/bundles/fifo.json")
		done <- page + res.Status
	}()
	select {
	case out := <-done:
		if !strings.Contains(out, `<td>fifo.json</td><td colspan="8" class="err">not a regular file: not served</td>`) || !strings.HasSuffix(out, "404 Not Found") {
			t.Errorf("FIFO:\n%s", out)
		}
	case <-time.After(30 * time.Second): // a deadline for a hang, not a timing
		t.Fatal("the server hangs on a FIFO")
	}
}

// TestEscaping: an arm and a query id that are HTML (a script), and a
// file name that is HTML, show as text on the list, the report and the
// compare page: no element is made of them.
func TestEscaping(t *testing.T) {
	dir := t.TempDir()
	const fileName = `<img src=x onerror=alert(1)>.json`
	writeBundle(t, dir, fileName, hostileBundle(t))
	writeBundle(t, dir, "base.json", sharedBundle(t, twoArms))
	s := newTestServer(t, dir, "")
	for _, target := range []string{"/", "/bundles/" + url.PathEscape(fileName), "/compare?bundle=" + url.QueryEscape(fileName) + "&baseline=base.json", "/bundles/" + url.PathEscape(`<b>none</b>.json`)} {
		res, page := get(t, s, target)
		if res.StatusCode != 200 && res.StatusCode != 404 {
			t.Errorf("GET %s = %d\n%s", target, res.StatusCode, page)
		}
		for _, bad := range []string{`<script>alert(`, `<img src=x`, `<b>none`} {
			if strings.Contains(page, bad) {
				t.Errorf("GET %s: the page holds %s unescaped", target, bad)
			}
		}
		if !strings.Contains(page, `&lt;`) {
			t.Errorf("GET %s: no escaped text", target)
		}
	}
	_, page := get(t, s, "/bundles/"+url.PathEscape(fileName))
	for _, want := range []string{`&lt;script&gt;alert(&#34;arm&#34;)&lt;/script&gt;`, `&lt;script&gt;alert(&#34;query&#34;)&lt;/script&gt;`} {
		if !strings.Contains(page, want) {
			t.Errorf("the report lacks the escaped text %s", want)
		}
	}
}

// TestSecurityHeaders: every response forbids other hosts, sniffing,
// framing and referrers; a report page allows only its own inline
// scripts, by hash, never 'unsafe-inline' scripts.
func TestSecurityHeaders(t *testing.T) {
	dir := t.TempDir()
	writeBundle(t, dir, "a.json", sharedBundle(t, twoArms))
	s := newTestServer(t, dir, "")
	for _, target := range []string{"/", "/bundles/a.json", "/compare?bundle=a.json&baseline=a.json", "/static/style.css", "/nope", "/bundles/nope.json"} {
		res, page := get(t, s, target)
		h := res.Header
		csp := h.Get("Content-Security-Policy")
		if !strings.HasPrefix(csp, "default-src 'none';") || strings.Contains(csp, "http") || strings.Contains(csp, "*") || !strings.Contains(csp, "frame-ancestors 'none'") {
			t.Errorf("GET %s: CSP %q", target, csp)
		}
		if h.Get("X-Content-Type-Options") != "nosniff" || h.Get("Referrer-Policy") != "no-referrer" || h.Get("X-Frame-Options") != "DENY" {
			t.Errorf("GET %s: headers %v", target, h)
		}
		_, scriptSrc, _ := strings.Cut(csp, "script-src ")
		scriptSrc, _, _ = strings.Cut(scriptSrc, ";")
		if strings.Contains(scriptSrc, "unsafe") {
			t.Errorf("GET %s: script-src %s", target, scriptSrc)
		}
		if strings.HasPrefix(target, "/bundles/a") || strings.HasPrefix(target, "/compare") {
			if want := scriptHashes([]byte(page)); !strings.HasPrefix(want, "'sha256-") || scriptSrc != want {
				t.Errorf("GET %s: script-src %q, want the page's script hash %s", target, scriptSrc, want)
			}
		}
	}
}

// TestServerTimeouts: the server sets every timeout, and a client that
// sends half a request header is cut off after ReadHeader.
func TestServerTimeouts(t *testing.T) {
	srv := HTTPServer(http.NotFoundHandler(), DefaultTimeouts, io.Discard)
	if srv.ReadHeaderTimeout <= 0 || srv.ReadTimeout <= 0 || srv.WriteTimeout <= 0 || srv.IdleTimeout <= 0 || srv.MaxHeaderBytes <= 0 || DefaultTimeouts.Shutdown <= 0 {
		t.Fatalf("unset timeouts: %+v", srv)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	short := Timeouts{ReadHeader: 50 * time.Millisecond, Read: time.Minute, Write: time.Minute, Idle: time.Minute, Shutdown: time.Minute}
	go func() { done <- Serve(ctx, ln, http.NotFoundHandler(), short, io.Discard, nil) }()
	c, err := net.Dial("tcp", ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	io.WriteString(c, "GET / HTTP/1.1\r\nHost: localhost\r\n") // and never the blank line
	c.SetReadDeadline(time.Now().Add(30 * time.Second))        // a deadline for a hang, not a timing
	_, err = bufio.NewReader(c).ReadString('\n')
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		t.Error("a half-sent request header holds the connection open")
	}
	cancel()
	if err := <-done; err != nil {
		t.Errorf("Serve after its context ended: %v", err)
	}
}

// TestServeGraceful: when its context ends, Serve calls stopping, lets a
// request in flight finish and returns nil.
func TestServeGraceful(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	started, release := make(chan struct{}), make(chan struct{})
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		close(started)
		<-release
		io.WriteString(w, "finished")
	})
	ctx, cancel := context.WithCancel(context.Background())
	stopping := make(chan struct{})
	done := make(chan error, 1)
	go func() { done <- Serve(ctx, ln, h, DefaultTimeouts, io.Discard, func() { close(stopping) }) }()
	got := make(chan string, 1)
	go func() {
		res, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(res.Body)
		got <- string(b)
	}()
	<-started
	cancel()
	<-stopping
	close(release)
	if s := <-got; s != "finished" {
		t.Errorf("the request in flight got %q", s)
	}
	if err := <-done; err != nil {
		t.Errorf("Serve: %v", err)
	}
	if _, err := net.Dial("tcp", ln.Addr().String()); err == nil {
		t.Error("the server still accepts connections")
	}
}
