package hf_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/registry/hf"
	"github.com/lasagna-go/lasagna/internal/registry/hf/hftest"
)

const token = "hf_fixtureSECRETtoken0123456789"

// hubEnv is the Hub of an import from h into the HF_HOME home, with the
// extra environment variables kv (name, value, …).
func hubEnv(t *testing.T, endpoint, home string, kv ...string) *hf.Hub {
	t.Helper()
	env := map[string]string{"HF_ENDPOINT": endpoint, "HF_HOME": home}
	for i := 0; i+1 < len(kv); i += 2 {
		env[kv[i]] = kv[i+1]
	}
	h, err := hf.HubFromEnv(func(k string) string { return env[k] })
	if err != nil {
		t.Fatal(err)
	}
	return &h
}

func sqlite(t *testing.T) (*registry.Registry, string) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "registry.db")
	r, err := registry.Open(bg(), p)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { r.Close() })
	return r, p
}

// noSecret fails t when the token is in any file under dir (contents and
// names, links' targets included) or in the texts.
func noSecret(t *testing.T, dir string, texts ...string) {
	t.Helper()
	for i, s := range texts {
		if tokenRun(s) != "" {
			t.Errorf("text %d holds the token: %s", i, s)
		}
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(p, token) {
			t.Errorf("%s: the token is in a file name", p)
		}
		if d.Type()&fs.ModeSymlink != 0 {
			if dst, _ := os.Readlink(p); strings.Contains(dst, token) {
				t.Errorf("%s: the token is in the link's target", p)
			}
			return nil
		}
		if d.Type().IsRegular() {
			data, err := os.ReadFile(p)
			if err != nil {
				t.Fatal(err)
			}
			if tokenRun(string(data)) != "" {
				t.Errorf("%s holds the token", p)
			}
		}
		return nil
	})
}

// TestDownloadGPQA: an import without a folder downloads the files it
// needs into the Hub's cache layout (a huggingface_hub would find them),
// records the repository, commit and files, leaves the token nowhere, and
// a second import of the revision requests no file.
func TestDownloadGPQA(t *testing.T) {
	repo := hftest.GPQA()
	hub := hftest.New(t, token, repo)
	home := t.TempDir()
	r, db := sqlite(t)
	h := hubEnv(t, hub.URL, home, "HF_TOKEN", token)
	inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: h})
	if err != nil {
		t.Fatal(err)
	}
	sha := repo.SHA()
	want := registry.Source{Kind: "huggingface", SHA256: inf.Digest, Format: "csv", Split: "train", Dataset: hf.GPQA, Revision: sha, Config: "gpqa_diamond", Files: []string{"gpqa_diamond.csv"}}
	if inf.Name != "gpqa_diamond" || inf.Questions != 3 || !reflect.DeepEqual(*inf.Source, want) {
		t.Errorf("info = %s, %d questions, source %+v; want gpqa_diamond, 3, %+v", inf.Name, inf.Questions, *inf.Source, want)
	}
	if got := inf.Source.String(); got != "Idavidrein/gpqa gpqa_diamond train@"+sha[:12]+" (huggingface csv)" {
		t.Errorf("source = %s", got)
	}

	// the cache layout of huggingface_hub
	storage := filepath.Join(home, "hub", "datasets--Idavidrein--gpqa")
	if ref, err := os.ReadFile(filepath.Join(storage, "refs", "main")); err != nil || string(ref) != sha {
		t.Errorf("refs/main = %q, %v; want %s", ref, err, sha)
	}
	pointer := filepath.Join(storage, "snapshots", sha, "gpqa_diamond.csv")
	dst, err := os.Readlink(pointer)
	etag := hftest.Etag("gpqa_diamond.csv", repo.Files["gpqa_diamond.csv"])
	if err != nil || dst != filepath.Join("..", "..", "blobs", etag) {
		t.Errorf("snapshot file: link to %q, %v; want ../../blobs/%s", dst, err, etag)
	}
	if data, err := os.ReadFile(pointer); err != nil || !bytes.Equal(data, repo.Files["gpqa_diamond.csv"]) {
		t.Errorf("the snapshot file does not read as the repository's: %v", err)
	}
	blobs, _ := os.ReadDir(filepath.Join(storage, "blobs"))
	if len(blobs) != 1 || blobs[0].Name() != etag {
		t.Errorf("blobs = %v, want the one blob %s (no .incomplete left)", blobs, etag)
	}
	if _, err := os.Stat(filepath.Join(home, "hub", "CACHEDIR.TAG")); err != nil {
		t.Errorf("no CACHEDIR.TAG: %v", err)
	}
	for _, q := range hub.Requests() {
		if q.File() && !q.Auth {
			t.Errorf("%s %s: no token sent to the endpoint for a gated file", q.Method, q.Path)
		}
	}

	// a second import reads the cache: the revision request only
	files := hub.FileRequests()
	again, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: h})
	if err != nil {
		t.Fatal(err)
	}
	if again.Change != registry.ChangeUnchanged || hub.FileRequests() != files {
		t.Errorf("second import: %s with %d file requests more; want unchanged with none", again.Change, hub.FileRequests()-files)
	}

	// offline, from the cache: no request at all
	n := len(hub.Requests())
	off := hubEnv(t, hub.URL, home, "HF_HUB_OFFLINE", "1")
	inf2, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: off, Name: "gpqa-offline"})
	if err != nil {
		t.Fatal(err)
	}
	if inf2.Source.Revision != sha || len(hub.Requests()) != n {
		t.Errorf("offline import: revision %s, %d requests; want %s, none", inf2.Source.Revision, len(hub.Requests())-n, sha)
	}
	// by commit, too
	if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: off, Name: "gpqa-commit", Revision: sha}); err != nil {
		t.Fatal(err)
	}
	// the token is in no file of the cache and no byte of the registry
	r.Close()
	noSecret(t, home, h.String(), inf.Source.String())
	noSecret(t, filepath.Dir(db))
}

// TestDownloadOfflineMissing: HF_HUB_OFFLINE=1 with nothing cached says
// so and how to fix it, without a request.
func TestDownloadOfflineMissing(t *testing.T) {
	hub := hftest.New(t, token, hftest.GPQA())
	r, _ := sqlite(t)
	home := t.TempDir()
	_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: hubEnv(t, hub.URL, home, "HF_HUB_OFFLINE", "true")})
	if err == nil || !strings.Contains(err.Error(), "HF_HUB_OFFLINE is set and Idavidrein/gpqa (revision main) is not in the cache") || !strings.Contains(err.Error(), "unset HF_HUB_OFFLINE to download it") {
		t.Errorf("err = %v", err)
	}
	if len(hub.Requests()) != 0 {
		t.Errorf("offline: %d requests", len(hub.Requests()))
	}
	// a cached revision without the config's file names what it has
	if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: hubEnv(t, hub.URL, home, "HF_TOKEN", token)}); err != nil {
		t.Fatal(err)
	}
	_, _, err = hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Config: "gpqa_main", Hub: hubEnv(t, hub.URL, home, "HF_HUB_OFFLINE", "1")})
	if err == nil || !strings.Contains(err.Error(), "has no gpqa_main.csv; it has gpqa_diamond.csv") {
		t.Errorf("offline, another config: err = %v", err)
	}
}

// TestDownloadGated: a gated dataset without a token, or with one the Hub
// refuses, is refused with the fix, and nothing is registered or cached.
func TestDownloadGated(t *testing.T) {
	hub := hftest.New(t, token, hftest.GPQA())
	r, _ := sqlite(t)
	home := t.TempDir()
	_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: hubEnv(t, hub.URL, home)})
	if err == nil || !strings.Contains(err.Error(), "Idavidrein/gpqa is gated (401)") ||
		!strings.Contains(err.Error(), "accept the conditions on the dataset page, "+hub.URL+"/datasets/Idavidrein/gpqa, and set HF_TOKEN") {
		t.Errorf("no token: err = %v", err)
	}
	const wrong = "hf_wrongTOKENvalue42"
	_, _, err = hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: hubEnv(t, hub.URL, home, "HF_TOKEN", wrong)})
	if err == nil || !strings.Contains(err.Error(), "the Hub refused HF_TOKEN for Idavidrein/gpqa (401: invalid credentials)") || strings.Contains(err.Error(), wrong) {
		t.Errorf("wrong token: err = %v", err)
	}
	if _, err := r.Get(bg(), "gpqa_diamond"); !errors.Is(err, registry.ErrNotFound) {
		t.Errorf("after a refused import, Get = %v", err)
	}
	blobs, _ := filepath.Glob(filepath.Join(home, "hub", "datasets--Idavidrein--gpqa", "blobs", "*"))
	if len(blobs) != 0 {
		t.Errorf("blobs after a refusal: %v", blobs)
	}
}

// TestDownloadNotFound: a dataset the Hub does not have, a revision it
// does not have, a malformed revision and an unreachable Hub.
func TestDownloadNotFound(t *testing.T) {
	hub := hftest.New(t, token, hftest.GPQA())
	r, _ := sqlite(t)
	home := t.TempDir()
	dead := httptest.NewServer(http.NotFoundHandler())
	dead.Close()
	for _, c := range []struct {
		name string
		o    hf.Options
		h    *hf.Hub
		want string
	}{
		{"no dataset", hf.Options{Dataset: hf.MSMARCO, Config: "v1.1"}, hubEnv(t, hub.URL, home), "microsoft/ms_marco: no such dataset on " + hub.URL + " (404) (the Hub says: \"Repository not found\"): check the name, or, if it is private or gated, set HF_TOKEN"},
		{"no revision", hf.Options{Dataset: hf.GPQA, Revision: "v9"}, hubEnv(t, hub.URL, home, "HF_TOKEN", token), `Idavidrein/gpqa has no revision "v9" (404) (the Hub says: "Invalid rev id: v9"): give --revision a branch, tag or commit of the dataset (default main)`},
		{"bad revision", hf.Options{Dataset: hf.GPQA, Revision: "../main"}, hubEnv(t, hub.URL, home), `--revision "../main" is not a branch, tag or commit name`},
		{"unreachable", hf.Options{Dataset: hf.GPQA}, hubEnv(t, dead.URL, home), "Idavidrein/gpqa: cannot reach the Hub at " + dead.URL},
		{"no config file", hf.Options{Dataset: hf.GPQA, Config: "gpqa_experts"}, hubEnv(t, hub.URL, home), "has no gpqa_experts.csv; it has gpqa_diamond.csv, gpqa_main.csv"},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, _, err := hf.Import(bg(), r, hf.Options{Dataset: c.o.Dataset, Config: c.o.Config, Revision: c.o.Revision, Hub: c.h})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v\nwant %q", err, c.want)
			}
		})
	}
	if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Dir: "testdata/gpqa", Revision: "main"}); err == nil || !strings.Contains(err.Error(), "a revision chooses what to download") {
		t.Errorf("a folder and a revision: err = %v", err)
	}
}

// TestDownloadResume: a download cut short resumes with a Range request,
// in the same run and, after it failed, in the next one.
func TestDownloadResume(t *testing.T) {
	defer hf.SetTimings(time.Millisecond, 5*time.Second, 5, 64<<20)()
	repo := hftest.GPQA()
	size := len(repo.Files["gpqa_diamond.csv"])
	r, _ := sqlite(t)

	t.Run("same run", func(t *testing.T) {
		hub := hftest.New(t, token, repo)
		hub.Cut("gpqa_diamond.csv", 100, 2)
		h := hubEnv(t, hub.URL, t.TempDir(), "HF_TOKEN", token)
		if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: h, Name: "g1"}); err != nil {
			t.Fatal(err)
		}
		var ranges []string
		for _, q := range hub.Requests() {
			if q.File() {
				ranges = append(ranges, q.Range)
			}
		}
		if want := []string{"", "bytes=100-", "bytes=200-"}; !reflect.DeepEqual(ranges, want) {
			t.Errorf("ranges = %q, want %q", ranges, want)
		}
	})

	t.Run("next run", func(t *testing.T) {
		defer hf.SetTimings(time.Millisecond, 5*time.Second, 0, 64<<20)()
		hub := hftest.New(t, token, repo)
		hub.Cut("gpqa_diamond.csv", 150, 1)
		home := t.TempDir()
		h := hubEnv(t, hub.URL, home, "HF_TOKEN", token)
		_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: h, Name: "g2"})
		if err == nil || !strings.Contains(err.Error(), "cannot reach the Hub") || !strings.Contains(err.Error(), "a partial download resumes") {
			t.Fatalf("cut: err = %v", err)
		}
		inc := filepath.Join(home, "hub", "datasets--Idavidrein--gpqa", "blobs", hftest.Etag("gpqa_diamond.csv", repo.Files["gpqa_diamond.csv"])+".incomplete")
		if st, err := os.Stat(inc); err != nil || st.Size() != 150 {
			t.Fatalf("partial file: %v, %v; want 150 bytes of %d", st, err, size)
		}
		if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: h, Name: "g2"}); err != nil {
			t.Fatal(err)
		}
		last := hub.Requests()[len(hub.Requests())-1]
		if last.Range != "bytes=150-" {
			t.Errorf("the second run's request: range %q, want bytes=150-", last.Range)
		}
		if _, err := os.Stat(inc); !errors.Is(err, fs.ErrNotExist) {
			t.Errorf("the .incomplete file is left: %v", err)
		}
	})

	t.Run("corrupt partial", func(t *testing.T) {
		hub := hftest.New(t, token, repo)
		home := t.TempDir()
		blobs := filepath.Join(home, "hub", "datasets--Idavidrein--gpqa", "blobs")
		os.MkdirAll(blobs, 0o755)
		inc := filepath.Join(blobs, hftest.Etag("gpqa_diamond.csv", repo.Files["gpqa_diamond.csv"])+".incomplete")
		os.WriteFile(inc, bytes.Repeat([]byte("x"), 50), 0o644)
		h := hubEnv(t, hub.URL, home, "HF_TOKEN", token)
		_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: h, Name: "g3"})
		if err == nil || !strings.Contains(err.Error(), "does not match the Hub's file list") || !strings.Contains(err.Error(), "it was removed: run again") {
			t.Fatalf("corrupt partial: err = %v", err)
		}
		if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: h, Name: "g3"}); err != nil {
			t.Fatal(err)
		}
	})

	t.Run("stalled", func(t *testing.T) {
		defer hf.SetTimings(time.Millisecond, 200*time.Millisecond, 0, 64<<20)()
		hub := hftest.New(t, token, repo)
		hub.Stall("gpqa_diamond.csv", 10*time.Second)
		h := hubEnv(t, hub.URL, t.TempDir(), "HF_TOKEN", token)
		start := time.Now()
		_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: h, Name: "g4"})
		if err == nil || !strings.Contains(err.Error(), "no data for 200ms") || time.Since(start) > 5*time.Second {
			t.Errorf("stalled: err = %v after %s", err, time.Since(start))
		}
	})

	t.Run("cancelled", func(t *testing.T) {
		hub := hftest.New(t, token, repo)
		hub.Stall("gpqa_diamond.csv", 10*time.Second)
		h := hubEnv(t, hub.URL, t.TempDir(), "HF_TOKEN", token)
		ctx, cancel := context.WithTimeout(bg(), 200*time.Millisecond)
		defer cancel()
		_, _, err := hf.Import(ctx, r, hf.Options{Dataset: hf.GPQA, Hub: h, Name: "g5"})
		if !errors.Is(err, context.DeadlineExceeded) {
			t.Errorf("cancelled: err = %v", err)
		}
	})
}

// tokenRun returns the first run of 8 consecutive characters of token
// that s holds, or "".
func tokenRun(s string) string {
	for i := 0; i+8 <= len(token); i++ {
		if strings.Contains(s, token[i:i+8]) {
			return token[i : i+8]
		}
	}
	return ""
}

// TestDownloadHostileServer: what a server says is bounded, cleaned of
// control characters and of the token before it is printed, and file
// names and sizes it gives are checked.
func TestDownloadHostileServer(t *testing.T) {
	defer hf.SetTimings(time.Millisecond, 5*time.Second, 0, 1<<10)()
	csv := hftest.GPQA().Files["gpqa_diamond.csv"]
	mode := ""
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		sha := strings.Repeat("a", 40)
		switch {
		case mode == "403":
			w.WriteHeader(403)
			json.NewEncoder(w).Encode(map[string]string{"error": "\x1b[31mdenied\r\n " + r.Header.Get("Authorization") + "\x1b[0m" + strings.Repeat("!", 5000)})
		case mode == "403 part":
			k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			w.WriteHeader(403)
			w.Write([]byte(`{"error": "token ` + k[:20] + `... refused; ` + k[len(k)-10:] + `"}`))
		case mode == "401 part":
			k := strings.TrimPrefix(r.Header.Get("Authorization"), "Bearer ")
			w.WriteHeader(401)
			w.Write([]byte(`{"error": "token …` + k[5:17] + `… refused"}`))
		case mode == "big":
			w.Write([]byte(`{"sha": "` + sha + `", "siblings": [` + strings.Repeat(`{"rfilename": "x"},`, 200) + `{}]}`))
		case mode == "bad sha":
			w.Write([]byte(`{"sha": "../../etc", "siblings": []}`))
		case mode == "paths":
			w.Write([]byte(`{"sha": "` + sha + `", "siblings": [{"rfilename": "../gpqa_diamond.csv", "blobId": "` + hftest.BlobID(csv) + `", "size": 10}]}`))
		case mode == "more" && strings.Contains(r.URL.Path, "/api/"):
			w.Write([]byte(`{"sha": "` + sha + `", "siblings": [{"rfilename": "gpqa_diamond.csv", "blobId": "` + hftest.BlobID(csv[:10]) + `", "size": 10}]}`))
		case mode == "more":
			w.Write(csv)
		}
	}))
	defer srv.Close()
	r, _ := sqlite(t)
	for _, c := range []struct{ mode, want string }{
		{"403", `Idavidrein/gpqa: access refused (403) (the Hub says: "[31mdenied Bearer [HF_TOKEN][0m!!!`},
		{"403 part", `(the Hub says: "token [HF_TOKEN]... refused; [HF_TOKEN]"`},
		{"401 part", `[HF_TOKEN]… refused`},
		{"big", "the Hub's answer for revision main is over 0 MiB"},
		{"bad sha", `names no commit (sha: "../../etc")`},
		{"paths", "has no gpqa_diamond.csv; it has no CSV file"},
		{"more", "the Hub sent more than the 10 bytes its file list gives for gpqa_diamond.csv"},
	} {
		mode = c.mode
		home := t.TempDir()
		_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Hub: hubEnv(t, srv.URL, home, "HF_TOKEN", token)})
		if err == nil || !strings.Contains(err.Error(), c.want) || strings.ContainsAny(err.Error(), "\x1b\r\n") || len(err.Error()) > 1000 {
			t.Errorf("%s: err = %q\nwant %q", c.mode, err, c.want)
		}
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		noSecret(t, home, msg)
	}
}

// TestHubFromEnv: the variables huggingface_hub reads, and the refusals.
func TestHubFromEnv(t *testing.T) {
	get := func(kv map[string]string) func(string) string { return func(k string) string { return kv[k] } }
	h, err := hf.HubFromEnv(get(map[string]string{"XDG_CACHE_HOME": "/x", "HF_TOKEN": token}))
	if err != nil || h.Endpoint != hf.DefaultEndpoint || h.Cache != "/x/huggingface/hub" || h.Offline {
		t.Errorf("defaults: %v, %v", h, err)
	}
	if s := h.String() + " " + h.GoString(); strings.Contains(s, token) || !strings.Contains(s, "HF_TOKEN set") {
		t.Errorf("String = %s", s)
	}
	h, _ = hf.HubFromEnv(get(map[string]string{"HF_HOME": "/h", "HF_ENDPOINT": "http://mirror.test/", "TRANSFORMERS_OFFLINE": "yes"}))
	if h.Cache != "/h/hub" || h.Endpoint != "http://mirror.test" || !h.Offline {
		t.Errorf("HF_HOME, HF_ENDPOINT, TRANSFORMERS_OFFLINE: %v", h)
	}
	h, _ = hf.HubFromEnv(get(map[string]string{"HF_HOME": "/h", "HF_HUB_CACHE": "/c", "HF_HUB_OFFLINE": "0"}))
	if h.Cache != "/c" || h.Offline {
		t.Errorf("HF_HUB_CACHE: %v", h)
	}
	for _, kv := range []map[string]string{
		{"HF_ENDPOINT": "ftp://x", "HF_HOME": "/h"},
		{"HF_ENDPOINT": "http://user:pw@/", "HF_HOME": "/h"},
		{"HF_TOKEN": "hf_a b", "HF_HOME": "/h"},
	} {
		if _, err := hf.HubFromEnv(get(kv)); err == nil || strings.Contains(err.Error(), "pw") || strings.Contains(err.Error(), "hf_a") {
			t.Errorf("%v: err = %v", kv, err)
		}
	}
}

// TestDownloadMSMARCO: the parquet files of a config and split come
// through the Hub's redirect for LFS files (which gets no token) into
// blobs named by their sha256; a repository with two configs needs
// --config. Without the parquet reader the download still happens and
// the conversion says what to build.
func TestDownloadMSMARCO(t *testing.T) {
	repo := hftest.MSMARCO()
	hub := hftest.New(t, token, repo)
	home := t.TempDir()
	r, _ := sqlite(t)
	h := hubEnv(t, hub.URL, home, "HF_TOKEN", token)
	_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Hub: h})
	if err == nil || !strings.Contains(err.Error(), "has the configs v1.1 and v2.1; choose one with --config") {
		t.Errorf("two configs: err = %v", err)
	}
	inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.MSMARCO, Config: "v1.1", Hub: h})
	if buildtag.Parquet {
		if err != nil {
			t.Fatal(err)
		}
		if inf.Name != "ms_marco-v1.1-validation" || inf.Questions != 3 || inf.Source.Revision != repo.SHA() || !reflect.DeepEqual(inf.Source.Files, []string{"v1.1/validation-00000-of-00001.parquet"}) || inf.Source.Path != "" {
			t.Errorf("info = %+v, source %+v", inf, inf.Source)
		}
	} else if err == nil || !strings.Contains(err.Error(), "needs a lasagna built with the parquet reader") {
		t.Errorf("without parquet: err = %v", err)
	}
	p := "v1.1/validation-00000-of-00001.parquet"
	blob := filepath.Join(home, "hub", "datasets--microsoft--ms_marco", "blobs", hftest.Etag(p, repo.Files[p]))
	if got, err := filepath.EvalSymlinks(filepath.Join(home, "hub", "datasets--microsoft--ms_marco", "snapshots", repo.SHA(), "v1.1", "validation-00000-of-00001.parquet")); err != nil || got != blob {
		t.Errorf("snapshot file resolves to %s, %v; want %s", got, err, blob)
	}
	var cdn int
	for _, q := range hub.Requests() {
		if q.CDN {
			cdn++
			if q.Auth {
				t.Errorf("the redirect to another origin carried the token: %+v", q)
			}
		}
		if strings.Contains(q.Path, "train") || strings.Contains(q.Path, "v2.1") || strings.Contains(q.Path, "README") {
			t.Errorf("a file the import does not read was requested: %s", q.Path)
		}
	}
	if cdn != 1 {
		t.Errorf("%d requests to the CDN, want 1", cdn)
	}
}
