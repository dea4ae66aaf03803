package main

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/internal/dashboard"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/results"
)

// TestServeRefusals: serve refuses, with exit 2 and the reason, a
// non-loopback address without LASAGNA_SERVE_TOKEN, a token too short, a
// missing bundles folder and a stray argument; it listens on nothing.
func TestServeRefusals(t *testing.T) {
	dir := t.TempDir()
	t.Setenv("LASAGNA_REGISTRY", filepath.Join(t.TempDir(), "registry.db"))
	notDir := filepath.Join(dir, "file")
	if err := os.WriteFile(notDir, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, token string
		args        []string
		want        string
	}{
		{"every interface", "", []string{"--addr", ":0", "--bundles", dir}, "lasagna: serve: --addr :0 listens on every interface, not loopback: set LASAGNA_SERVE_TOKEN to a secret of at least 16 characters"},
		{"public address", "", []string{"--addr", "0.0.0.0:0", "--bundles", dir}, "listens on address 0.0.0.0, not loopback: set LASAGNA_SERVE_TOKEN"},
		{"short token", "abc", []string{"--addr", "0.0.0.0:0", "--bundles", dir}, "LASAGNA_SERVE_TOKEN is 3 characters long; use at least 16"},
		{"short token on loopback", "abc", []string{"--addr", "127.0.0.1:0", "--bundles", dir}, "LASAGNA_SERVE_TOKEN is 3 characters long"},
		{"no folder", "", []string{"--addr", "127.0.0.1:0", "--bundles", filepath.Join(dir, "none")}, "lasagna: serve: bundles folder: stat "},
		{"no sweeps folder", "", []string{"--addr", "127.0.0.1:0", "--bundles", dir, "--sweeps", filepath.Join(dir, "none")}, "lasagna: serve: sweeps folder: stat "},
		{"registry", "", []string{"--addr", "127.0.0.1:0", "--bundles", dir, "--registry", filepath.Join(notDir, "registry.db")}, "lasagna: serve: registry: "},
		{"bad addr", "", []string{"--addr", "8080"}, `--addr "8080": address 8080: missing port in address`},
		{"argument", "", []string{"extra"}, `unknown command "extra" for "lasagna serve"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("LASAGNA_SERVE_TOKEN", tc.token)
			out, errOut, code := runCLI(t, append([]string{"serve"}, tc.args...)...)
			if code != 2 || out != "" || !strings.Contains(errOut, tc.want) {
				t.Errorf("exit %d\nstdout: %s\nstderr: %s\nwant exit 2 and %q", code, out, errOut, tc.want)
			}
		})
	}
}

// TestHelpListsServe: lasagna --help lists serve.
func TestHelpListsServe(t *testing.T) {
	out, _, code := runCLI(t, "--help")
	if code != 0 || !strings.Contains(out, "\n  serve       Serve the dashboard") {
		t.Errorf("lasagna --help (exit %d) does not list serve:\n%s", code, out)
	}
}

// TestServeSignals runs a real `lasagna serve` and stops it with SIGINT
// and with SIGTERM while a response of 16 MB is in flight (the client
// has read only its start, so the server is blocked writing it): the
// server says it is shutting down, the response is still delivered whole,
// the process exits 0 saying it stopped, and the port is closed.
func TestServeSignals(t *testing.T) {
	dir := t.TempDir()
	// A bundle file with a large unknown field: it reads as a bundle
	// (readers drop unknown fields), so /raw/ serves it byte for byte.
	big := `{"schema_version": "1.0", "run_id": "` + strings.Repeat("0", 64) + `", "padding": "` + strings.Repeat("x", 16<<20) + `"}`
	if err := os.WriteFile(filepath.Join(dir, "big.json"), []byte(big), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		sig  syscall.Signal
		name string
	}{{syscall.SIGINT, "SIGINT"}, {syscall.SIGTERM, "SIGTERM"}} {
		t.Run(tc.name, func(t *testing.T) {
			cmd, stdout, stderr := startServe(t, []string{"LASAGNA_SERVE_TOKEN=", "LASAGNA_REGISTRY=" + filepath.Join(t.TempDir(), "registry.db")}, "--addr", "127.0.0.1:0", "--bundles", dir)
			defer cmd.Process.Kill()
			lines := make(chan string, 10)
			var all strings.Builder
			var mu sync.Mutex
			go func() {
				sc := bufio.NewScanner(stdout)
				for sc.Scan() {
					mu.Lock()
					all.WriteString(sc.Text() + "\n")
					mu.Unlock()
					lines <- sc.Text()
				}
				close(lines)
			}()
			next := func() string {
				select {
				case l, ok := <-lines:
					if !ok {
						t.Fatalf("the child closed stdout; stderr:\n%s", stderr.String())
					}
					return l
				case <-time.After(60 * time.Second): // a deadline for a hang, not a timing
					t.Fatalf("no line from the child in 60s; stderr:\n%s", stderr.String())
				}
				return ""
			}
			first := next()
			addr, ok := strings.CutPrefix(first, "lasagna serve: http://")
			addr, _, _ = strings.Cut(addr, "/")
			if !ok || !strings.HasSuffix(first, "/ (bundles: "+dir+")") {
				t.Fatalf("first line %q", first)
			}

			conn, err := net.Dial("tcp", addr)
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			fmt.Fprintf(conn, "GET /raw/big.json HTTP/1.1\r\nHost: %s\r\n\r\n", addr)
			br := bufio.NewReaderSize(conn, 4096)
			res, err := http.ReadResponse(br, nil)
			if err != nil {
				t.Fatal(err)
			}
			if res.StatusCode != 200 || res.ContentLength != int64(len(big)) {
				t.Fatalf("GET /raw/big.json: %s, length %d", res.Status, res.ContentLength)
			}
			head := make([]byte, 64<<10)
			if _, err := io.ReadFull(res.Body, head); err != nil {
				t.Fatal(err)
			}

			if err := cmd.Process.Signal(tc.sig); err != nil {
				t.Fatal(err)
			}
			if l, want := next(), "lasagna serve: interrupted by "+tc.name+": shutting down (finishing the requests in flight)"; l != want {
				t.Fatalf("after %s: %q, want %q", tc.name, l, want)
			}
			rest, err := io.ReadAll(res.Body)
			if err != nil || len(head)+len(rest) != len(big) || !strings.HasSuffix(string(rest), `x"}`) {
				t.Errorf("the response in flight: %d of %d bytes, %v", len(head)+len(rest), len(big), err)
			}
			if l := next(); l != "lasagna serve: stopped" {
				t.Errorf("last line %q", l)
			}
			err = cmd.Wait()
			var ee *exec.ExitError
			if errors.As(err, &ee) || err != nil {
				t.Errorf("exit %v, want 0; stderr:\n%s", err, stderr.String())
			}
			if stderr.Len() > 0 {
				t.Errorf("stderr: %s", stderr.String())
			}
			if c, err := net.Dial("tcp", addr); err == nil {
				c.Close()
				t.Error("the port still accepts connections")
			}
		})
	}
}

// TestServeEvaluationIsBenchmarkRun: an evaluation the dashboard runs
// (speed profile, registry:faq) writes the bundle lasagna benchmark run
// registry:faq --profile speed writes, to the run id; the dense profile
// without a key fails with benchmark run's message about the key.
func TestServeEvaluationIsBenchmarkRun(t *testing.T) {
	t.Setenv("OPENAI_API_KEY", "")
	dsn := useRegistry(t)
	if _, errOut, code := runCLI(t, "benchmark", "create", "faq", "--from", "../../examples/data/faq.jsonl"); code != 0 {
		t.Fatal(errOut)
	}
	cliBundle := filepath.Join(t.TempDir(), "cli.json")
	if _, errOut, code := runCLI(t, "benchmark", "run", "registry:faq", "--profile", "speed", "-o", cliBundle); code != 0 {
		t.Fatal(errOut)
	}
	reg, err := registry.Open(t.Context(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer reg.Close()
	dir := t.TempDir()
	srv, err := dashboard.New(serveOptions(dir, "", "", reg))
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Close()
	evaluate := func(profile string) string {
		t.Helper()
		page := httptest.NewRecorder()
		srv.ServeHTTP(page, httptest.NewRequest("GET", "http://localhost/benchmark?ref=faq", nil))
		_, rest, _ := strings.Cut(page.Body.String(), `name="csrf" value="`)
		csrf, _, _ := strings.Cut(rest, `"`)
		r := httptest.NewRequest("POST", "http://localhost/evaluate", strings.NewReader("ref=faq&profile="+profile+"&csrf="+csrf))
		r.Header.Set("Content-Type", "application/x-www-form-urlencoded")
		w := httptest.NewRecorder()
		srv.ServeHTTP(w, r)
		if w.Code != 303 {
			t.Fatalf("POST /evaluate: %d\n%s", w.Code, w.Body)
		}
		loc := w.Header().Get("Location")
		for {
			w := httptest.NewRecorder()
			srv.ServeHTTP(w, httptest.NewRequest("GET", "http://localhost"+loc, nil))
			if !strings.Contains(w.Body.String(), `class="state running"`) {
				return w.Body.String()
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	page := evaluate("speed")
	_, rest, ok := strings.Cut(page, `<a id="report" href="/bundles/`)
	if !ok {
		t.Fatalf("no report link:\n%s", page)
	}
	rel, _, _ := strings.Cut(rest, `"`)
	got, err := results.ReadFile(filepath.Join(dir, filepath.FromSlash(rel)))
	if err != nil {
		t.Fatal(err)
	}
	want, err := results.ReadFile(cliBundle)
	if err != nil {
		t.Fatal(err)
	}
	if got.RunID != want.RunID {
		t.Errorf("the dashboard's bundle has run id %s, benchmark run's %s", got.RunID, want.RunID)
	}
	page = evaluate("dense")
	if !strings.Contains(page, `class="state failed"`) || !strings.Contains(page, "dense retrieval needs an embedding endpoint: no API key: set OPENAI_API_KEY") {
		t.Errorf("the dense evaluation without a key:\n%s", page)
	}
}

// TestServeSIGTERMCancelsEvaluation runs a real `lasagna serve`, starts an
// evaluation from the dashboard (the dense profile, whose embedding
// server hangs until its client goes away), and sends SIGTERM while it
// runs: the server says it canceled the evaluation, exits 0, and no
// bundle (nor a temporary file) appears in the bundles folder.
func TestServeSIGTERMCancelsEvaluation(t *testing.T) {
	dsn := useRegistry(t)
	if _, errOut, code := runCLI(t, "benchmark", "create", "faq", "--from", "../../examples/data/faq.jsonl"); code != 0 {
		t.Fatal(errOut)
	}
	embedding, stop := make(chan struct{}, 100), make(chan struct{})
	hang := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body) // so that the server sees the client go away
		embedding <- struct{}{}
		select { // answers nothing until the client gives up
		case <-r.Context().Done():
		case <-stop:
		}
	}))
	defer hang.Close()
	defer close(stop)
	dir := t.TempDir()
	cmd, stdout, stderr := startServe(t, []string{"LASAGNA_SERVE_TOKEN=", "LASAGNA_REGISTRY=" + dsn, "OPENAI_BASE_URL=" + hang.URL, "OPENAI_API_KEY=test-key", "LASAGNA_LLM_RETRIES=0"},
		"--addr", "127.0.0.1:0", "--bundles", dir)
	defer cmd.Process.Kill()
	sc := bufio.NewScanner(stdout)
	if !sc.Scan() {
		t.Fatalf("no first line; stderr:\n%s", stderr.String())
	}
	addr, ok := strings.CutPrefix(sc.Text(), "lasagna serve: http://")
	addr, _, _ = strings.Cut(addr, "/")
	if !ok {
		t.Fatalf("first line %q", sc.Text())
	}
	base := "http://" + addr
	res, err := http.Get(base + "/benchmark?ref=faq")
	if err != nil {
		t.Fatal(err)
	}
	page, _ := io.ReadAll(res.Body)
	res.Body.Close()
	_, rest, _ := strings.Cut(string(page), `name="csrf" value="`)
	csrf, _, _ := strings.Cut(rest, `"`)
	client := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	res, err = client.PostForm(base+"/evaluate", url.Values{"ref": {"faq"}, "profile": {"dense"}, "csrf": {csrf}})
	if err != nil {
		t.Fatal(err)
	}
	res.Body.Close()
	if res.StatusCode != 303 {
		t.Fatalf("POST /evaluate: %s", res.Status)
	}
	select {
	case <-embedding: // the evaluation runs, waiting for its embeddings
	case <-time.After(60 * time.Second): // a hang, not a timing
		t.Fatalf("the evaluation never asked for embeddings; stderr:\n%s", stderr.String())
	}
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	var lines []string
	for sc.Scan() {
		lines = append(lines, sc.Text())
	}
	if err := cmd.Wait(); err != nil {
		t.Errorf("exit %v, want 0; stderr:\n%s", err, stderr.String())
	}
	want := []string{
		"lasagna serve: interrupted by SIGTERM: shutting down (finishing the requests in flight)",
		"lasagna serve: canceled 1 running evaluation(s); they write no bundle",
		"lasagna serve: stopped",
	}
	if strings.Join(lines, "\n") != strings.Join(want, "\n") {
		t.Errorf("after SIGTERM the server said:\n%s\nwant:\n%s", strings.Join(lines, "\n"), strings.Join(want, "\n"))
	}
	var files []string
	filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			files = append(files, p)
		}
		return nil
	})
	if len(files) > 0 {
		t.Errorf("the canceled evaluation left %v", files)
	}
}

// startServe starts `lasagna serve ARGS` as a child with env and returns
// it, its stdout and the buffer its stderr goes to; stop it by its PID.
func startServe(t *testing.T, env []string, args ...string) (*exec.Cmd, io.ReadCloser, *bytes.Buffer) {
	t.Helper()
	cmd := cliChild(t, env, append([]string{"serve"}, args...)...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	stderr := &bytes.Buffer{}
	cmd.Stderr = stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	return cmd, stdout, stderr
}
