package hf

import (
	"context"
	"crypto/sha1"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"hash"
	"io"
	"io/fs"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"
	"unicode/utf8"

	"github.com/lasagna-go/lasagna/internal/redact"
)

// DefaultEndpoint is the Hub's root without HF_ENDPOINT.
const DefaultEndpoint = "https://huggingface.co"

// Hub says where import-hf downloads from and caches to, read from the
// environment as huggingface_hub reads it (docs/registry.md,
// "Downloading from the Hub"). The token is kept unexported: String and
// %v never show it.
type Hub struct {
	// Endpoint is HF_ENDPOINT without a trailing slash.
	Endpoint string
	// Cache is the hub cache folder: HF_HUB_CACHE, else HF_HOME/hub.
	Cache string
	// Offline (HF_HUB_OFFLINE=1) reads the cache only.
	Offline bool
	// Progress, when set, is called as a file downloads: its path in the
	// repository, the bytes on disk and its size.
	Progress func(file string, done, total int64)

	token string
	// client is nil for the default client (see httpClient).
	client *http.Client
}

// String shows the hub without its token.
func (h Hub) String() string {
	tok := "no token"
	if h.token != "" {
		tok = "HF_TOKEN set"
	}
	return fmt.Sprintf("hub %s (cache %s, offline %v, %s)", redactURL(h.Endpoint), h.Cache, h.Offline, tok)
}

// GoString is String, so %#v shows no token either.
func (h Hub) GoString() string { return h.String() }

// HubFromEnv reads HF_ENDPOINT, HF_TOKEN, HF_HUB_CACHE (or the older
// HUGGINGFACE_HUB_CACHE), HF_HOME (default $XDG_CACHE_HOME/huggingface,
// else ~/.cache/huggingface) and HF_HUB_OFFLINE (or TRANSFORMERS_OFFLINE:
// 1, ON, YES or TRUE) through getenv (os.Getenv).
func HubFromEnv(getenv func(string) string) (Hub, error) {
	h := Hub{Endpoint: strings.TrimRight(strings.TrimSpace(getenv("HF_ENDPOINT")), "/")}
	if h.Endpoint == "" {
		h.Endpoint = DefaultEndpoint
	}
	u, err := url.Parse(h.Endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.RawQuery != "" || u.Fragment != "" {
		return Hub{}, fmt.Errorf("HF_ENDPOINT %q is not an http(s) URL of a Hub's root; set it to one (unset, the public Hub, %s)", redactURL(h.Endpoint), DefaultEndpoint)
	}
	h.token = strings.TrimSpace(getenv("HF_TOKEN"))
	if strings.IndexFunc(h.token, func(r rune) bool { return r <= ' ' || r == 0x7f || r > unicode.MaxASCII }) >= 0 {
		return Hub{}, errors.New("HF_TOKEN holds a space, a control character or a non-ASCII character; set it to the token alone (hf_…)")
	}
	expand := func(p string) string {
		p = os.ExpandEnv(p)
		if p == "~" || strings.HasPrefix(p, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				p = filepath.Join(home, p[1:])
			}
		}
		return p
	}
	h.Cache = getenv("HF_HUB_CACHE")
	if h.Cache == "" {
		h.Cache = getenv("HUGGINGFACE_HUB_CACHE")
	}
	if h.Cache == "" {
		home := getenv("HF_HOME")
		if home == "" {
			base := getenv("XDG_CACHE_HOME")
			if base == "" {
				uh, err := os.UserHomeDir()
				if err != nil {
					return Hub{}, fmt.Errorf("no folder for the Hugging Face cache: %v; set HF_HOME or HF_HUB_CACHE", err)
				}
				base = filepath.Join(uh, ".cache")
			}
			home = filepath.Join(base, "huggingface")
		}
		h.Cache = filepath.Join(expand(home), "hub")
	}
	h.Cache = expand(h.Cache)
	for _, k := range []string{"HF_HUB_OFFLINE", "TRANSFORMERS_OFFLINE"} {
		switch strings.ToUpper(strings.TrimSpace(getenv(k))) {
		case "1", "ON", "YES", "TRUE":
			h.Offline = true
		}
	}
	return h, nil
}

// Limits on what is read from a server (server text is not trusted).
const (
	maxErrorBytes = 8 << 10 // an error body
	maxSiblings   = 1 << 20
	maxShownText  = 200 // runes of a server message quoted in an error
)

// Timeouts; variables so that the package's tests can shorten them.
var (
	infoTimeout   = 60 * time.Second // the whole revision request
	headerTimeout = 30 * time.Second // a file's response headers
	stallTimeout  = 60 * time.Second // a file's body sending nothing
	retryPause    = time.Second      // before resuming a broken download
	maxRetries    = 5                // resumptions in a row without progress
	lockWait      = 10 * time.Minute // for another process downloading the same blob

	maxInfoBytes int64 = 64 << 20 // the revision's JSON (its file list)
)

var (
	commitRE   = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[0-9a-f]{40}$`) })
	blobRE     = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^([0-9a-f]{40}|[0-9a-f]{64})$`) })
	revisionRE = sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(`^[A-Za-z0-9_.][A-Za-z0-9_./-]*$`) })
)

// checkRevision refuses a revision that cannot name a branch, tag or
// commit (it becomes a file under refs/).
func checkRevision(rev string) error {
	if len(rev) > 255 || !revisionRE().MatchString(rev) || !fs.ValidPath(rev) || strings.HasSuffix(rev, ".lock") {
		return fmt.Errorf("--revision %q is not a branch, tag or commit name; give one such as main, a tag, or a 40-hex commit", rev)
	}
	return nil
}

// repoPathOK reports whether p is a file path safe to create below a
// snapshot folder.
func repoPathOK(p string) bool {
	return len(p) <= 1024 && fs.ValidPath(p) && p != "." && !strings.ContainsAny(p, `\:`) &&
		strings.IndexFunc(p, func(r rune) bool { return r < ' ' || r == 0x7f }) < 0
}

// repoFolder is the cache folder of a dataset: datasets--OWNER--NAME.
func repoFolder(dataset string) string {
	return "datasets--" + strings.ReplaceAll(dataset, "/", "--")
}

// sibling is one file of the revision's file list (?blobs=true).
type sibling struct {
	Path   string `json:"rfilename"`
	BlobID string `json:"blobId"`
	Size   *int64 `json:"size"`
	LFS    *struct {
		SHA256 string `json:"sha256"`
		Size   int64  `json:"size"`
	} `json:"lfs"`
}

// etag is the blob's name in the cache, as huggingface_hub names it: the
// sha256 of an LFS file, the git blob id of another.
func (s sibling) etag() string {
	if s.LFS != nil {
		return s.LFS.SHA256
	}
	return s.BlobID
}

type revisionInfo struct {
	SHA      string    `json:"sha"`
	Gated    any       `json:"gated"`
	Siblings []sibling `json:"siblings"`
}

// download makes the files the import o needs present in the cache's
// snapshot of o.Revision and returns o with Dir that snapshot folder, the
// config resolved (when o.Config is "") and, for a BEIR dataset, the
// snapshot and commit of BeIR/NAME-qrels (at main). Offline, it reads the
// cache only.
func (h *Hub) download(ctx context.Context, o Options) (Options, error) {
	rev := o.Revision
	if rev == "" {
		rev = "main"
	}
	if err := checkRevision(rev); err != nil {
		return o, err
	}
	if h.Cache == "" {
		return o, errors.New("no folder for the Hugging Face cache; set HF_HOME or HF_HUB_CACHE")
	}
	if _, ok := beirName(o.Dataset); ok {
		snap, _, _, err := h.downloadRepo(ctx, o.Dataset, rev, beirCorpusFiles)
		if err != nil {
			return o, err
		}
		qsnap, qsha, _, err := h.downloadRepo(ctx, o.Dataset+"-qrels", "main", func(names []string, where string) ([]string, error) {
			return beirQrelsFiles(names, o.Split, where)
		})
		if err != nil {
			return o, err
		}
		o.Dir, o.qrels, o.qrelsRev = snap, qsnap, qsha
		return o, nil
	}
	config := o.Config
	snap, _, _, err := h.downloadRepo(ctx, o.Dataset, rev, func(names []string, where string) ([]string, error) {
		c, files, err := needed(o, names, where)
		config = c
		return files, err
	})
	if err != nil {
		return o, err
	}
	o.Dir, o.Config = snap, config
	return o, nil
}

// picker chooses the files an import reads among the names of a revision
// (sorted slash-separated paths); where names the revision in errors.
type picker func(names []string, where string) ([]string, error)

// downloadRepo makes the files pick chooses of dataset at rev present in
// the cache and returns the snapshot folder, its commit and the files.
func (h *Hub) downloadRepo(ctx context.Context, dataset, rev string, pick picker) (snap, sha string, files []string, err error) {
	storage := filepath.Join(h.Cache, repoFolder(dataset))
	if h.Offline {
		return h.fromCache(storage, dataset, rev, pick)
	}
	info, err := h.revision(ctx, dataset, rev)
	if err != nil {
		return "", "", nil, err
	}
	names := make([]string, 0, len(info.Siblings))
	byPath := map[string]sibling{}
	for _, s := range info.Siblings {
		if repoPathOK(s.Path) {
			names = append(names, s.Path)
			byPath[s.Path] = s
		}
	}
	slices.Sort(names)
	where := fmt.Sprintf("%s at revision %s (%s)", dataset, rev, info.SHA[:12])
	if files, err = pick(names, where); err != nil {
		return "", "", nil, err
	}
	snap = filepath.Join(storage, "snapshots", info.SHA)
	if err := writeRef(storage, rev, info.SHA); err != nil {
		return "", "", nil, err
	}
	writeCacheTag(h.Cache)
	for _, p := range files {
		s := byPath[p]
		pointer := filepath.Join(snap, filepath.FromSlash(p))
		if st, err := os.Stat(pointer); err == nil && st.Mode().IsRegular() {
			continue // in the cache: no request
		}
		etag := s.etag()
		if !blobRE().MatchString(etag) || s.Size == nil || *s.Size < 0 {
			return "", "", nil, fmt.Errorf("%s: the Hub's file list gives no blob id and size for %s; try again later, or download the file and give --from", where, p)
		}
		blob := filepath.Join(storage, "blobs", etag)
		if _, err := os.Stat(blob); err != nil {
			if err := h.fetchBlob(ctx, dataset, info.SHA, p, etag, *s.Size, blob); err != nil {
				return "", "", nil, err
			}
		}
		if err := link(blob, pointer); err != nil {
			return "", "", nil, err
		}
	}
	return snap, info.SHA, files, nil
}

// fromCache resolves rev of dataset in the cache folder storage
// (HF_HUB_OFFLINE).
func (h *Hub) fromCache(storage, dataset, rev string, pick picker) (snap, sha string, files []string, err error) {
	const fix = "unset HF_HUB_OFFLINE to download it, or give --from DIR"
	sha = rev
	if !commitRE().MatchString(rev) {
		data, err := os.ReadFile(filepath.Join(storage, "refs", filepath.FromSlash(rev)))
		if err != nil {
			return "", "", nil, fmt.Errorf("HF_HUB_OFFLINE is set and %s (revision %s) is not in the cache %s (no %s); %s", dataset, rev, h.Cache, filepath.Join(storage, "refs", filepath.FromSlash(rev)), fix)
		}
		sha = strings.TrimSpace(string(data))
		if !commitRE().MatchString(sha) {
			return "", "", nil, fmt.Errorf("%s holds no commit (40 hex); remove it and download again", filepath.Join(storage, "refs", filepath.FromSlash(rev)))
		}
	}
	snap = filepath.Join(storage, "snapshots", sha)
	if !isDir(snap) {
		return "", "", nil, fmt.Errorf("HF_HUB_OFFLINE is set and %s (revision %s) is not in the cache %s (no %s); %s", dataset, rev, h.Cache, snap, fix)
	}
	names, err := listFiles(snap)
	if err != nil {
		return "", "", nil, err
	}
	var present []string
	for _, n := range names {
		if st, err := os.Stat(filepath.Join(snap, filepath.FromSlash(n))); err == nil && st.Mode().IsRegular() {
			present = append(present, n)
		}
	}
	files, err = pick(present, fmt.Sprintf("HF_HUB_OFFLINE is set and the cached %s (%s)", dataset, snap))
	if err != nil {
		return "", "", nil, fmt.Errorf("%w; %s", err, fix)
	}
	return snap, sha, files, nil
}

// needed returns the files of names (sorted slash-separated paths of a
// revision) the import o reads, and its config. where names the revision
// in errors.
func needed(o Options, names []string, where string) (config string, files []string, err error) {
	if o.Dataset == GPQA {
		want := o.Config + ".csv"
		if slices.Contains(names, want) {
			return o.Config, []string{want}, nil
		}
		var csvs []string
		for _, n := range names {
			if strings.HasSuffix(n, ".csv") {
				csvs = append(csvs, n)
			}
		}
		return "", nil, fmt.Errorf("%s has no %s; it has %s", where, want, listed(csvs, "no CSV file"))
	}
	config = o.Config
	if config == "" {
		switch found := configsIn(names); len(found) {
		case 1:
			config = found[0]
		case 0:
			return "", nil, fmt.Errorf("%s has no v1.1 or v2.1 folder of parquet files", where)
		default:
			return "", nil, fmt.Errorf("%s has the configs %s; choose one with --config", where, strings.Join(found, " and "))
		}
	}
	files, err = matchParquet(names, o.Dataset, config, o.Split, where)
	return config, files, err
}

// listed words up to ten names, or none when there are none.
func listed(names []string, none string) string {
	switch {
	case len(names) == 0:
		return none
	case len(names) > 10:
		return strings.Join(names[:10], ", ") + fmt.Sprintf(" and %d more", len(names)-10)
	}
	return strings.Join(names, ", ")
}

// httpClient is the client of downloads: the default transport's proxy
// settings, bounds on connecting and on the wait for response headers, and
// at most 10 redirects, of which one to another origin (scheme, host and
// port; as the Hub redirects LFS files to its CDN) carries no
// Authorization: the token goes to the endpoint only.
func (h *Hub) httpClient() *http.Client {
	if h.client != nil {
		return h.client
	}
	t := http.DefaultTransport.(*http.Transport).Clone()
	t.ResponseHeaderTimeout = headerTimeout
	t.DialContext = (&net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}).DialContext
	h.client = &http.Client{Transport: t, CheckRedirect: func(req *http.Request, via []*http.Request) error {
		if len(via) >= 10 {
			return errors.New("more than 10 redirects")
		}
		if origin(req.URL) != origin(via[0].URL) {
			req.Header.Del("Authorization")
		}
		return nil
	}}
	return h.client
}

// origin is a URL's scheme, host and port.
func origin(u *url.URL) string {
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
	}
	return u.Scheme + "://" + strings.ToLower(u.Hostname()) + ":" + port
}

func (h *Hub) request(ctx context.Context, u string) (*http.Request, error) {
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "lasagna-go (import-hf)")
	if h.token != "" {
		req.Header.Set("Authorization", "Bearer "+h.token)
	}
	return req, nil
}

// revision asks the Hub for the commit and file list of dataset at rev:
// GET {endpoint}/api/datasets/{repo}/revision/{rev}?blobs=true.
func (h *Hub) revision(ctx context.Context, dataset, rev string) (revisionInfo, error) {
	ctx, cancel := context.WithTimeout(ctx, infoTimeout)
	defer cancel()
	u := h.Endpoint + "/api/datasets/" + dataset + "/revision/" + url.PathEscape(rev) + "?blobs=true"
	req, err := h.request(ctx, u)
	if err != nil {
		return revisionInfo{}, err
	}
	req.Header.Set("Accept", "application/json")
	resp, err := h.httpClient().Do(req)
	if err != nil {
		return revisionInfo{}, h.networkError(ctx, dataset, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return revisionInfo{}, h.statusError(resp, dataset, rev, "")
	}
	var info revisionInfo
	body := io.LimitReader(resp.Body, maxInfoBytes+1)
	cr := &countingReader{r: body}
	if err := json.NewDecoder(cr).Decode(&info); err != nil {
		if cr.n > maxInfoBytes {
			return revisionInfo{}, fmt.Errorf("%s: the Hub's answer for revision %s is over %d MiB; give --from DIR with the files downloaded another way", dataset, rev, maxInfoBytes>>20)
		}
		if ctx.Err() != nil {
			return revisionInfo{}, h.networkError(ctx, dataset, ctx.Err())
		}
		return revisionInfo{}, fmt.Errorf("%s: the answer of %s for revision %s is not the Hub's JSON (%s); check HF_ENDPOINT", dataset, redactURL(h.Endpoint), rev, clean(err.Error(), h.token))
	}
	if !commitRE().MatchString(info.SHA) {
		return revisionInfo{}, fmt.Errorf("%s: the answer of %s for revision %s names no commit (sha: %q); check HF_ENDPOINT", dataset, redactURL(h.Endpoint), rev, clean(info.SHA, h.token))
	}
	if len(info.Siblings) > maxSiblings {
		return revisionInfo{}, fmt.Errorf("%s: revision %s lists over %d files; give --from DIR", dataset, rev, maxSiblings)
	}
	return info, nil
}

type countingReader struct {
	r io.Reader
	n int64
}

func (c *countingReader) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}

// networkError words a failed request (no answer from the server).
func (h *Hub) networkError(ctx context.Context, dataset string, err error) error {
	if ctx.Err() != nil && errors.Is(err, context.Canceled) {
		return err
	}
	msg := clean(err.Error(), h.token)
	if errors.Is(err, context.DeadlineExceeded) {
		msg = "no answer in time"
	}
	return fmt.Errorf("%s: cannot reach the Hub at %s (%s); check the network, or HF_ENDPOINT, and run again (a partial download resumes), or set HF_HUB_OFFLINE=1 to use the cache %s", dataset, redactURL(h.Endpoint), msg, h.Cache)
}

// statusError words a refusal of the Hub: 401 and 403 (gated, private or a
// bad token), 404 (no such dataset, revision or file), and others. file
// is "" for the revision request. Server text is quoted bounded, cleaned
// of control characters and of the token.
func (h *Hub) statusError(resp *http.Response, dataset, rev, file string) error {
	code := resp.Header.Get("X-Error-Code")
	said := resp.Header.Get("X-Error-Message")
	if said == "" {
		data, _ := io.ReadAll(io.LimitReader(resp.Body, maxErrorBytes))
		var e struct {
			Error string `json:"error"`
		}
		if json.Unmarshal(data, &e) == nil && e.Error != "" {
			said = e.Error
		}
	}
	says := ""
	if said = clean(said, h.token); said != "" {
		says = fmt.Sprintf(" (the Hub says: %q)", said)
	}
	page := redactURL(h.Endpoint) + "/datasets/" + dataset
	st := resp.StatusCode
	switch {
	case code == "GatedRepo" || (file != "" && (st == 401 || st == 403) && code != "RepoNotFound" && !strings.Contains(said, "Invalid credentials")):
		if h.token == "" {
			return fmt.Errorf("%s is gated (%d)%s: accept the conditions on the dataset page, %s, and set HF_TOKEN to an access token of that account", dataset, st, says, page)
		}
		return fmt.Errorf("%s is gated and refused HF_TOKEN (%d)%s: accept the conditions on the dataset page, %s, with the token's account, or set HF_TOKEN to a token with access", dataset, st, says, page)
	case st == 401 && h.token != "" && strings.Contains(said, "Invalid credentials"):
		return fmt.Errorf("the Hub refused HF_TOKEN for %s (401: invalid credentials): set HF_TOKEN to a valid access token", dataset)
	case code == "RevisionNotFound" || (st == 404 && file == "" && strings.Contains(strings.ToLower(said), "revision")):
		return fmt.Errorf("%s has no revision %q (%d)%s: give --revision a branch, tag or commit of the dataset (default main)", dataset, rev, st, says)
	case code == "EntryNotFound" || (st == 404 && file != ""):
		return fmt.Errorf("%s: revision %s has no file %s (%d)%s; run again (the file list may have changed)", dataset, rev, file, st, says)
	case st == 401 || st == 404 || code == "RepoNotFound":
		fix := "check the name, or, if it is private or gated, set HF_TOKEN to an access token with access"
		if h.token != "" {
			fix = "check the name, and that HF_TOKEN's account has access"
		}
		return fmt.Errorf("%s: no such dataset on %s (%d)%s: %s", dataset, redactURL(h.Endpoint), st, says, fix)
	case st == 403:
		return fmt.Errorf("%s: access refused (403)%s: set HF_TOKEN to an access token with read access to %s", dataset, says, page)
	case st == 429:
		return fmt.Errorf("%s: the Hub limits the rate of requests (429)%s: wait a few minutes and run again", dataset, says)
	case st >= 500:
		return fmt.Errorf("%s: the Hub failed (%d)%s: run again later (a partial download resumes)", dataset, st, says)
	}
	return fmt.Errorf("%s: the Hub answered %d%s; check HF_ENDPOINT and --revision", dataset, st, says)
}

// clean makes server text safe to print: the token, and every run of 8 or
// more of its characters (a server quoting its first or last ones, plain
// or JSON-escaped; package internal/redact), replaced, control
// characters (escape sequences) and invalid UTF-8 dropped, spaces
// collapsed, at most maxShownText runes.
func clean(s, token string) string {
	red := redact.NewMarked("[HF_TOKEN]", token)
	s = red.String(s)
	var b strings.Builder
	n := 0
	space := false
	for _, r := range s {
		if r == utf8.RuneError || unicode.IsControl(r) || unicode.Is(unicode.Cf, r) {
			if unicode.IsSpace(r) {
				space = true
			}
			continue
		}
		if unicode.IsSpace(r) {
			space = true
			continue
		}
		if space && b.Len() > 0 {
			b.WriteByte(' ')
			n++
		}
		space = false
		if n >= maxShownText {
			b.WriteString("…")
			break
		}
		b.WriteRune(r)
		n++
	}
	out := b.String()
	return red.String(out) // a token split by dropped characters
}

// redactURL hides a password in a URL's user info.
func redactURL(s string) string {
	if u, err := url.Parse(s); err == nil && u.User != nil {
		return u.Redacted()
	}
	return s
}

// writeRef records that rev is the commit sha: refs/<rev>, written to a
// temporary file and renamed (a commit needs no ref).
func writeRef(storage, rev, sha string) error {
	if rev == sha {
		return nil
	}
	ref := filepath.Join(storage, "refs", filepath.FromSlash(rev))
	if data, err := os.ReadFile(ref); err == nil && string(data) == sha {
		return nil
	}
	if err := os.MkdirAll(filepath.Dir(ref), 0o755); err != nil {
		return cacheError(err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(ref), "."+filepath.Base(ref)+".*.tmp")
	if err != nil {
		return cacheError(err)
	}
	_, err = tmp.WriteString(sha)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Chmod(tmp.Name(), 0o644)
	}
	if err == nil {
		err = os.Rename(tmp.Name(), ref)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return cacheError(err)
	}
	return nil
}

func cacheError(err error) error {
	return fmt.Errorf("the Hugging Face cache: %w; set HF_HUB_CACHE (or HF_HOME) to a folder you can write", err)
}

// writeCacheTag marks the cache folder for backup tools (CACHEDIR.TAG),
// as huggingface_hub does; best effort.
func writeCacheTag(cache string) {
	p := filepath.Join(cache, "CACHEDIR.TAG")
	if _, err := os.Stat(p); err == nil {
		return
	}
	os.WriteFile(p, []byte("Signature: 8a477f597d28d172789f06886806bc55\n# This file is a cache directory tag created by lasagna (import-hf).\n# For information about cache directory tags see https://bford.info/cachedir/\n"), 0o644)
}

// link makes pointer (snapshots/<sha>/<path>) a relative symbolic link to
// blob, or a copy of it where links cannot be made.
func link(blob, pointer string) error {
	if err := os.MkdirAll(filepath.Dir(pointer), 0o755); err != nil {
		return cacheError(err)
	}
	rel, err := filepath.Rel(filepath.Dir(pointer), blob)
	if err != nil {
		rel = blob
	}
	os.Remove(pointer) // a broken link
	if err := os.Symlink(rel, pointer); err == nil || errors.Is(err, fs.ErrExist) {
		return nil
	}
	in, err := os.Open(blob)
	if err != nil {
		return cacheError(err)
	}
	defer in.Close()
	tmp, err := os.CreateTemp(filepath.Dir(pointer), "."+filepath.Base(pointer)+".*.tmp")
	if err != nil {
		return cacheError(err)
	}
	_, err = io.Copy(tmp, in)
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), pointer)
	}
	if err != nil {
		os.Remove(tmp.Name())
		return cacheError(err)
	}
	return nil
}

// fileURL is {endpoint}/datasets/{repo}/resolve/{sha}/{path}, each path
// segment escaped.
func (h *Hub) fileURL(dataset, sha, p string) string {
	segs := strings.Split(p, "/")
	for i, s := range segs {
		segs[i] = url.PathEscape(s)
	}
	return h.Endpoint + "/datasets/" + dataset + "/resolve/" + sha + "/" + strings.Join(segs, "/")
}

// fetchBlob downloads file p of the commit sha into blob (size bytes,
// named by its etag), as huggingface_hub does: into blob.incomplete,
// resumed with a Range request when one is there (from this run, after a
// broken connection, or from an earlier one), checked against the etag
// (the sha256 of an LFS file, the git blob id of another) and renamed.
// Another process downloading the same blob is waited for (a lock under
// .locks).
func (h *Hub) fetchBlob(ctx context.Context, dataset, sha, p, etag string, size int64, blob string) (err error) {
	if err := os.MkdirAll(filepath.Dir(blob), 0o755); err != nil {
		return cacheError(err)
	}
	locks := filepath.Join(h.Cache, ".locks", repoFolder(dataset))
	if err := os.MkdirAll(locks, 0o755); err != nil {
		return cacheError(err)
	}
	unlock, err := lockFile(ctx, filepath.Join(locks, etag+".lock"))
	if err != nil {
		return err
	}
	defer unlock()
	if _, err := os.Stat(blob); err == nil {
		return nil // another process downloaded it
	}
	inc := blob + ".incomplete"
	f, err := os.OpenFile(inc, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return cacheError(err)
	}
	defer f.Close()
	defer func() { // a refusal leaves no empty partial file
		if st, serr := os.Stat(inc); err != nil && serr == nil && st.Size() == 0 {
			os.Remove(inc)
		}
	}()
	st, err := f.Stat()
	if err != nil {
		return cacheError(err)
	}
	d := &blobDownload{h: h, dataset: dataset, sha: sha, path: p, etag: etag, size: size, f: f, done: st.Size()}
	if err := d.start(); err != nil {
		return err
	}
	d.progress()
	for fails := 0; d.done < d.size; {
		n, err := d.get(ctx)
		if err == nil {
			continue
		}
		var se *statusErr
		switch {
		case errors.As(err, &se):
			return se.err
		case ctx.Err() != nil:
			return ctx.Err()
		}
		if n > 0 {
			fails = 0
		}
		if fails++; fails > maxRetries {
			return h.networkError(ctx, dataset, fmt.Errorf("downloading %s: %w", p, err))
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(retryPause):
		}
	}
	if got := hex.EncodeToString(d.sum.Sum(nil)); got != etag {
		f.Close()
		os.Remove(inc)
		return fmt.Errorf("%s: the download of %s does not match the Hub's file list (content hash %s…, want %s…); it was removed: run again", dataset, p, got[:12], etag[:12])
	}
	if err := f.Sync(); err != nil {
		return cacheError(err)
	}
	if err := f.Close(); err != nil {
		return cacheError(err)
	}
	if err := os.Rename(inc, blob); err != nil {
		return cacheError(err)
	}
	return nil
}

// blobDownload is one file being written to its .incomplete file f: done
// bytes are there, hashed into sum.
type blobDownload struct {
	h                        *Hub
	dataset, sha, path, etag string
	size, done               int64
	f                        *os.File
	sum                      hash.Hash
}

// start hashes what is already on disk (or empties a file longer than the
// blob).
func (d *blobDownload) start() error {
	d.sum = newBlobHash(d.etag, d.size)
	if d.done > d.size {
		return d.restart()
	}
	if d.done > 0 {
		if _, err := io.Copy(d.sum, io.NewSectionReader(d.f, 0, d.done)); err != nil {
			return cacheError(err)
		}
	}
	return nil
}

// restart empties the file.
func (d *blobDownload) restart() error {
	if err := d.f.Truncate(0); err != nil {
		return cacheError(err)
	}
	d.done, d.sum = 0, newBlobHash(d.etag, d.size)
	return nil
}

func (d *blobDownload) progress() {
	if d.h.Progress != nil {
		d.h.Progress(d.path, d.done, d.size)
	}
}

// statusErr is a refusal of the server or a local failure: not retried.
type statusErr struct{ err error }

func (e *statusErr) Error() string { return e.err.Error() }

// get makes one request for the bytes from d.done on and writes them;
// n is the bytes it added. A *statusErr is final; another error (a broken
// or stalled connection) is worth resuming.
func (d *blobDownload) get(ctx context.Context) (n int64, err error) {
	h := d.h
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	stalled := errors.New("no data for " + stallTimeout.String())
	timer := time.AfterFunc(stallTimeout, func() { cancel(stalled) })
	defer timer.Stop()
	cause := func(err error) error {
		if context.Cause(ctx) == stalled {
			return stalled
		}
		return err
	}
	req, err := h.request(ctx, h.fileURL(d.dataset, d.sha, d.path))
	if err != nil {
		return 0, &statusErr{err}
	}
	req.Header.Set("Accept-Encoding", "identity") // the bytes as stored: sizes and ranges hold
	if d.done > 0 {
		req.Header.Set("Range", "bytes="+strconv.FormatInt(d.done, 10)+"-")
	}
	resp, err := h.httpClient().Do(req)
	if err != nil {
		return 0, cause(err)
	}
	defer resp.Body.Close()
	switch resp.StatusCode {
	case http.StatusOK:
		if d.done > 0 { // the server ignored the Range: start over
			if err := d.restart(); err != nil {
				return 0, &statusErr{err}
			}
		}
	case http.StatusPartialContent:
		start, total, ok := parseContentRange(resp.Header.Get("Content-Range"))
		if !ok || start != d.done || (total >= 0 && total != d.size) {
			return 0, &statusErr{fmt.Errorf("%s: the Hub answered the request for bytes %d- of %s (%d bytes) with the range %q; run again (remove %s if it persists)", d.dataset, d.done, d.path, d.size, clean(resp.Header.Get("Content-Range"), h.token), d.f.Name())}
		}
	case http.StatusRequestedRangeNotSatisfiable:
		if err := d.restart(); err != nil {
			return 0, &statusErr{err}
		}
		return 0, errors.New("the Hub refused the range; starting over")
	default:
		return 0, &statusErr{h.statusError(resp, d.dataset, d.sha, d.path)}
	}
	if ce := resp.Header.Get("Content-Encoding"); ce != "" && ce != "identity" {
		return 0, &statusErr{fmt.Errorf("%s: the Hub sent %s encoded (%s), though asked for the bytes as stored; check HF_ENDPOINT", d.dataset, d.path, clean(ce, h.token))}
	}
	if _, err := d.f.Seek(d.done, io.SeekStart); err != nil {
		return 0, &statusErr{cacheError(err)}
	}
	buf := make([]byte, 256<<10)
	body := io.LimitReader(resp.Body, d.size-d.done+1)
	for {
		m, rerr := body.Read(buf)
		if m > 0 {
			timer.Reset(stallTimeout)
			if d.done+int64(m) > d.size {
				return n, &statusErr{fmt.Errorf("%s: the Hub sent more than the %d bytes its file list gives for %s; run again later", d.dataset, d.size, d.path)}
			}
			if _, err := d.f.Write(buf[:m]); err != nil {
				return n, &statusErr{cacheError(err)}
			}
			d.sum.Write(buf[:m])
			d.done += int64(m)
			n += int64(m)
			d.progress()
		}
		switch {
		case rerr == io.EOF && d.done < d.size:
			return n, io.ErrUnexpectedEOF
		case rerr == io.EOF:
			return n, nil
		case rerr != nil:
			return n, cause(rerr)
		}
	}
}

// parseContentRange reads "bytes START-END/TOTAL" (TOTAL -1 for "*").
func parseContentRange(s string) (start, total int64, ok bool) {
	rest, found := strings.CutPrefix(s, "bytes ")
	if !found {
		return 0, 0, false
	}
	rng, tot, found := strings.Cut(rest, "/")
	if !found {
		return 0, 0, false
	}
	a, _, found := strings.Cut(rng, "-")
	if !found {
		return 0, 0, false
	}
	start, err := strconv.ParseInt(a, 10, 64)
	if err != nil || start < 0 {
		return 0, 0, false
	}
	total = -1
	if tot != "*" {
		if total, err = strconv.ParseInt(tot, 10, 64); err != nil {
			return 0, 0, false
		}
	}
	return start, total, true
}

// newBlobHash returns the hash an etag is: sha256 (64 hex, an LFS file)
// or git's blob id (40 hex: sha1 of "blob SIZE\x00" and the bytes).
func newBlobHash(etag string, size int64) hash.Hash {
	if len(etag) == 64 {
		return sha256.New()
	}
	h := sha1.New()
	fmt.Fprintf(h, "blob %d\x00", size)
	return h
}
