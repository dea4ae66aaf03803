// Package hftest is a fake Hugging Face Hub for tests: an HTTP server on
// loopback that speaks the two endpoints import-hf uses (docs/registry.md,
// "Downloading from the Hub"), the revision API
// (/api/datasets/{repo}/revision/{rev}, with the file list) and file
// downloads (/datasets/{repo}/resolve/{rev}/{path}, ranges honoured; LFS
// files are redirected to a second server, as the Hub redirects them to
// its CDN). It serves the fixtures of internal/registry/hf/testdata, can
// gate a repository behind a token, answers unknown repositories,
// revisions and files with the Hub's 404s, logs the requests (never the
// token) and can cut a download short.
package hftest

import (
	"bytes"
	"compress/gzip"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lasagna-go/lasagna/internal/servertest"
)

// Repo is a dataset repository of the fake Hub.
type Repo struct {
	// ID is OWNER/NAME.
	ID string
	// Files maps each path in the repository to its bytes. A .parquet or
	// .gz file is stored with LFS (its blob is its sha256, served through
	// the redirect); any other is a plain git blob (named by its git blob
	// id).
	Files map[string][]byte
	// Gated repositories serve their files only with the hub's token (the
	// revision API stays public, as on the Hub).
	Gated bool
}

// SHA is the repository's commit: a hash of its files.
func (r Repo) SHA() string {
	h := sha1.New()
	for _, p := range r.paths() {
		s := sha256.Sum256(r.Files[p])
		fmt.Fprintf(h, "%s %x\n", p, s)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func (r Repo) paths() []string {
	var ps []string
	for p := range r.Files {
		ps = append(ps, p)
	}
	slices.Sort(ps)
	return ps
}

func lfs(p string) bool { return strings.HasSuffix(p, ".parquet") || strings.HasSuffix(p, ".gz") }

// BlobID is git's id of data (sha1 of "blob SIZE\x00" and the bytes).
func BlobID(data []byte) string {
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", len(data))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// Etag is the name of a file's blob in the Hub's cache: its sha256 for an
// LFS file, its git blob id otherwise.
func Etag(p string, data []byte) string {
	if lfs(p) {
		s := sha256.Sum256(data)
		return hex.EncodeToString(s[:])
	}
	return BlobID(data)
}

// testdata is internal/registry/hf/testdata.
func testdata(name string) []byte {
	_, file, _, _ := runtime.Caller(0)
	data, err := os.ReadFile(filepath.Join(filepath.Dir(file), "..", "testdata", filepath.FromSlash(name)))
	if err != nil {
		panic("hftest: " + err.Error())
	}
	return data
}

// GPQA is Idavidrein/gpqa, gated as on the Hub: gpqa_diamond.csv (the
// fixture) and gpqa_main.csv (the same rows) with a README.
func GPQA() Repo {
	csv := testdata("gpqa/gpqa_diamond.csv")
	return Repo{ID: "Idavidrein/gpqa", Gated: true, Files: map[string][]byte{
		"README.md":        []byte("---\nlicense: cc-by-4.0\n---\n# GPQA (fixture)\n"),
		"gpqa_diamond.csv": csv,
		"gpqa_main.csv":    csv,
	}}
}

// MSMARCO is microsoft/ms_marco, as on the Hub: the configs v1.1 and v2.1,
// each with the fixture as its validation split (v1.1 also as train).
func MSMARCO() Repo {
	pq := testdata("ms_marco/v1.1/validation-00000-of-00001.parquet")
	return Repo{ID: "microsoft/ms_marco", Files: map[string][]byte{
		"README.md":                              []byte("# MS MARCO (fixture)\n"),
		"v1.1/validation-00000-of-00001.parquet": pq,
		"v1.1/train-00000-of-00001.parquet":      pq,
		"v2.1/validation-00000-of-00001.parquet": pq,
	}}
}

// SQuAD is rajpurkar/squad as on the Hub: the config plain_text, with the
// fixture as its validation split (and as train).
func SQuAD() Repo {
	pq := testdata("squad/plain_text/validation-00000-of-00001.parquet")
	return Repo{ID: "rajpurkar/squad", Files: map[string][]byte{
		"README.md": []byte("# SQuAD (fixture)\n"),
		"plain_text/validation-00000-of-00001.parquet": pq,
		"plain_text/train-00000-of-00001.parquet":      pq,
	}}
}

// SQuADv2 is rajpurkar/squad_v2 as on the Hub: the config squad_v2.
func SQuADv2() Repo {
	pq := testdata("squad_v2/squad_v2/validation-00000-of-00001.parquet")
	return Repo{ID: "rajpurkar/squad_v2", Files: map[string][]byte{
		"README.md": []byte("# SQuAD 2.0 (fixture)\n"),
		"squad_v2/validation-00000-of-00001.parquet": pq,
		"squad_v2/train-00000-of-00001.parquet":      pq,
	}}
}

// NQOpen is google-research-datasets/nq_open as on the Hub: the config
// nq_open.
func NQOpen() Repo {
	pq := testdata("nq_open/nq_open/validation-00000-of-00001.parquet")
	return Repo{ID: "google-research-datasets/nq_open", Files: map[string][]byte{
		"README.md": []byte("# NQ-Open (fixture)\n"),
		"nq_open/validation-00000-of-00001.parquet": pq,
		"nq_open/train-00000-of-00001.parquet":      pq,
	}}
}

// QuestionHash is the 12 hex of sha256(question) an NQ-open id carries.
func QuestionHash(question string) string {
	s := sha256.Sum256([]byte(question))
	return hex.EncodeToString(s[:6])
}

// BEIRFolder is the BEIR folder the BEIR repositories are made of: the
// fixture of internal/datasets (corpus.jsonl, queries.jsonl, qrels/dev.tsv
// and qrels/test.tsv).
func BEIRFolder() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..", "..", "datasets", "testdata", "beir")
}

// BEIR is BeIR/NAME and BeIR/NAME-qrels as on the Hub, made of
// BEIRFolder (see BEIRFrom).
func BEIR(name string) (corpus, qrels Repo) { return BEIRFrom(name, BEIRFolder()) }

// BEIRFrom is BeIR/NAME and BeIR/NAME-qrels as on the Hub, made of the
// BEIR folder dir: corpus.jsonl.gz and queries.jsonl.gz (gzipped, LFS)
// with NAME.py and a README, and <split>.tsv for each qrels/<split>.tsv
// with a README.
func BEIRFrom(name, dir string) (corpus, qrels Repo) {
	read := func(p string) []byte {
		data, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		if err != nil {
			panic("hftest: " + err.Error())
		}
		return data
	}
	gz := func(data []byte) []byte {
		var b bytes.Buffer
		w := gzip.NewWriter(&b)
		w.Write(data)
		w.Close()
		return b.Bytes()
	}
	corpus = Repo{ID: "BeIR/" + name, Files: map[string][]byte{
		".gitattributes":   []byte("*.gz filter=lfs diff=lfs merge=lfs -text\n"),
		"README.md":        []byte("# BEIR " + name + " (fixture)\n"),
		name + ".py":       []byte("# the loading script of the datasets library (not read)\n"),
		"corpus.jsonl.gz":  gz(read("corpus.jsonl")),
		"queries.jsonl.gz": gz(read("queries.jsonl")),
	}}
	qrels = Repo{ID: "BeIR/" + name + "-qrels", Files: map[string][]byte{
		"README.md": []byte("# BEIR " + name + " qrels (fixture)\n"),
	}}
	splits, err := filepath.Glob(filepath.Join(dir, "qrels", "*.tsv"))
	if err != nil || len(splits) == 0 {
		panic("hftest: no qrels/*.tsv in " + dir)
	}
	for _, p := range splits {
		qrels.Files[filepath.Base(p)] = read("qrels/" + filepath.Base(p))
	}
	return corpus, qrels
}

// Request is one request the hub received.
type Request struct {
	Method string
	// Path is the URL's path, unescaped.
	Path string
	// Range is the Range header ("" for none).
	Range string
	// Auth reports an Authorization header (its value is only compared).
	Auth bool
	// CDN reports a request to the server LFS files are redirected to.
	CDN bool
}

// File reports whether the request asked for a file's bytes.
func (r Request) File() bool { return r.CDN || strings.Contains(r.Path, "/resolve/") }

// Hub is a running fake Hub.
type Hub struct {
	// URL is the endpoint (HF_ENDPOINT).
	URL string
	// Token is the access token gated repositories require.
	Token string

	repos   map[string]Repo
	cdn     *httptest.Server
	mu      sync.Mutex
	log     []Request
	cuts    map[string]*cut
	stalled map[string]time.Duration
}

type cut struct{ after, times int }

// New starts a hub serving repos on loopback, stopped when tb ends.
func New(tb servertest.CleanupTB, token string, repos ...Repo) *Hub {
	tb.Helper()
	h := &Hub{Token: token, repos: map[string]Repo{}, cuts: map[string]*cut{}, stalled: map[string]time.Duration{}}
	for _, r := range repos {
		h.repos[r.ID] = r
	}
	h.cdn = httptest.NewServer(http.HandlerFunc(h.serveCDN))
	srv := httptest.NewServer(http.HandlerFunc(h.serve))
	tb.Cleanup(func() {
		srv.Close()
		h.cdn.Close()
	})
	h.URL = srv.URL
	return h
}

// Requests returns the requests received so far, in order.
func (h *Hub) Requests() []Request {
	h.mu.Lock()
	defer h.mu.Unlock()
	return slices.Clone(h.log)
}

// FileRequests counts the requests for files' bytes so far.
func (h *Hub) FileRequests() int {
	n := 0
	for _, r := range h.Requests() {
		if r.File() {
			n++
		}
	}
	return n
}

// Cut makes the next times downloads of path (in any repository) send
// only after bytes of what they answer and then break the connection.
func (h *Hub) Cut(path string, after, times int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.cuts[path] = &cut{after, times}
}

// Stall makes downloads of path send nothing for d after their headers.
func (h *Hub) Stall(path string, d time.Duration) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.stalled[path] = d
}

func (h *Hub) record(r *http.Request, cdn bool) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.log = append(h.log, Request{Method: r.Method, Path: r.URL.Path, Range: r.Header.Get("Range"), Auth: r.Header.Get("Authorization") != "", CDN: cdn})
}

func hubError(w http.ResponseWriter, status int, code, msg string) {
	if code != "" {
		w.Header().Set("X-Error-Code", code)
	}
	w.Header().Set("X-Error-Message", msg)
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(map[string]string{"error": msg})
}

// split cuts an escaped path after prefix into OWNER/NAME, the revision
// (unescaped) and the rest (unescaped).
func split(escaped, prefix string) (repo, rev, rest string, ok bool) {
	p, found := strings.CutPrefix(escaped, prefix)
	if !found {
		return "", "", "", false
	}
	parts := strings.SplitN(p, "/", 5)
	if len(parts) < 4 {
		return "", "", "", false
	}
	owner, _ := url.PathUnescape(parts[0])
	name, _ := url.PathUnescape(parts[1])
	rev, err := url.PathUnescape(parts[3])
	if err != nil {
		return "", "", "", false
	}
	if len(parts) == 5 {
		rest, err = url.PathUnescape(parts[4])
		if err != nil {
			return "", "", "", false
		}
	}
	return owner + "/" + name, rev, rest, true
}

func (h *Hub) serve(w http.ResponseWriter, r *http.Request) {
	h.record(r, false)
	auth := r.Header.Get("Authorization")
	if auth != "" && auth != "Bearer "+h.Token {
		hubError(w, http.StatusUnauthorized, "", "Invalid credentials in Authorization header")
		return
	}
	esc := r.URL.EscapedPath()
	switch {
	case strings.HasPrefix(esc, "/api/datasets/"):
		repo, rev, _, ok := split(esc, "/api/datasets/")
		if !ok || strings.Split(strings.TrimPrefix(esc, "/api/datasets/"), "/")[2] != "revision" {
			hubError(w, http.StatusNotFound, "", "Sorry, we can't find the page you are looking for.")
			return
		}
		rp, sha, ok := h.resolve(w, repo, rev)
		if !ok {
			return
		}
		h.info(w, r, rp, sha)
	case strings.HasPrefix(esc, "/datasets/"):
		repo, rev, file, ok := split(esc, "/datasets/")
		if !ok || strings.Split(strings.TrimPrefix(esc, "/datasets/"), "/")[2] != "resolve" || file == "" {
			hubError(w, http.StatusNotFound, "", "Sorry, we can't find the page you are looking for.")
			return
		}
		rp, sha, ok := h.resolve(w, repo, rev)
		if !ok {
			return
		}
		if rp.Gated && auth == "" {
			hubError(w, http.StatusUnauthorized, "GatedRepo", fmt.Sprintf("Access to dataset %s is restricted. You must have access to it and be authenticated to access it. Please log in.", rp.ID))
			return
		}
		data, ok := rp.Files[file]
		if !ok {
			hubError(w, http.StatusNotFound, "EntryNotFound", fmt.Sprintf("%s does not exist on \"%s\"", file, rev))
			return
		}
		etag := Etag(file, data)
		w.Header().Set("X-Repo-Commit", sha)
		if lfs(file) {
			w.Header().Set("X-Linked-Etag", `"`+etag+`"`)
			w.Header().Set("X-Linked-Size", fmt.Sprint(len(data)))
			http.Redirect(w, r, h.cdn.URL+"/"+url.PathEscape(file)+"?blob="+etag, http.StatusFound)
			return
		}
		w.Header().Set("ETag", `"`+etag+`"`)
		h.content(w, r, file, data)
	default:
		hubError(w, http.StatusNotFound, "", "Sorry, we can't find the page you are looking for.")
	}
}

// resolve finds the repository and the commit rev names (main or the
// commit), or answers the Hub's 404.
func (h *Hub) resolve(w http.ResponseWriter, id, rev string) (Repo, string, bool) {
	rp, ok := h.repos[id]
	if !ok {
		hubError(w, http.StatusNotFound, "RepoNotFound", "Repository not found")
		return Repo{}, "", false
	}
	sha := rp.SHA()
	if rev != "main" && rev != sha {
		hubError(w, http.StatusNotFound, "RevisionNotFound", "Invalid rev id: "+rev)
		return Repo{}, "", false
	}
	return rp, sha, true
}

func (h *Hub) info(w http.ResponseWriter, r *http.Request, rp Repo, sha string) {
	type lfsInfo struct {
		SHA256      string `json:"sha256"`
		Size        int    `json:"size"`
		PointerSize int    `json:"pointerSize"`
	}
	type sibling struct {
		RFilename string   `json:"rfilename"`
		BlobID    string   `json:"blobId,omitempty"`
		Size      *int     `json:"size,omitempty"`
		LFS       *lfsInfo `json:"lfs,omitempty"`
	}
	blobs := r.URL.Query().Get("blobs") == "true"
	var sibs []sibling
	for _, p := range rp.paths() {
		data := rp.Files[p]
		s := sibling{RFilename: p}
		if blobs {
			n := len(data)
			s.Size = &n
			if lfs(p) {
				pointer := fmt.Sprintf("version https://git-lfs.github.com/spec/v1\noid sha256:%s\nsize %d\n", Etag(p, data), n)
				s.BlobID = BlobID([]byte(pointer))
				s.LFS = &lfsInfo{SHA256: Etag(p, data), Size: n, PointerSize: len(pointer)}
			} else {
				s.BlobID = BlobID(data)
			}
		}
		sibs = append(sibs, s)
	}
	var gated any = false
	if rp.Gated {
		gated = "manual"
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{
		"_id": "fixture", "id": rp.ID, "author": strings.Split(rp.ID, "/")[0], "sha": sha,
		"private": false, "gated": gated, "disabled": false, "siblings": sibs,
		"lastModified": "2026-01-01T00:00:00.000Z",
	})
}

func (h *Hub) serveCDN(w http.ResponseWriter, r *http.Request) {
	h.record(r, true)
	file, err := url.PathUnescape(strings.TrimPrefix(r.URL.EscapedPath(), "/"))
	if err != nil {
		http.NotFound(w, r)
		return
	}
	want := r.URL.Query().Get("blob")
	for _, rp := range h.repos {
		if data, ok := rp.Files[file]; ok && Etag(file, data) == want {
			h.content(w, r, file, data)
			return
		}
	}
	http.NotFound(w, r)
}

// content serves data with ranges, cut short or stalled as asked.
func (h *Hub) content(w http.ResponseWriter, r *http.Request, file string, data []byte) {
	h.mu.Lock()
	c := h.cuts[file]
	limit := -1
	if c != nil && c.times > 0 && r.Method == http.MethodGet {
		c.times--
		limit = c.after
	}
	stall := h.stalled[file]
	h.mu.Unlock()
	if stall > 0 {
		w.Header().Set("Content-Length", fmt.Sprint(len(data)))
		w.WriteHeader(http.StatusOK)
		w.(http.Flusher).Flush()
		select {
		case <-r.Context().Done():
		case <-time.After(stall):
		}
		return
	}
	if limit >= 0 {
		w = &cutWriter{ResponseWriter: w, left: limit}
	}
	http.ServeContent(w, r, "", time.Time{}, bytes.NewReader(data))
}

// cutWriter passes left bytes on, then breaks the connection.
type cutWriter struct {
	http.ResponseWriter
	left int
}

func (c *cutWriter) Write(p []byte) (int, error) {
	if len(p) <= c.left {
		c.left -= len(p)
		return c.ResponseWriter.Write(p)
	}
	c.ResponseWriter.Write(p[:c.left])
	c.ResponseWriter.(http.Flusher).Flush()
	panic(http.ErrAbortHandler)
}
