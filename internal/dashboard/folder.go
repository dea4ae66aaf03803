package dashboard

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// folder is the bundles folder. Every file is reached through an
// os.Root, so no name (a symbolic link, "..") leads outside it, and what
// was read is kept until the file's size or modification time changes.
type folder struct {
	dir  string
	root *os.Root

	mu    sync.Mutex
	cache map[string]*entry // by slash path relative to the folder
}

// entry is one *.json file of the folder.
type entry struct {
	Path    string // slash path relative to the folder
	Size    int64
	ModTime time.Time
	// Refused says why the file is listed but not served: not a regular
	// file, a link leading outside the folder, not a readable bundle.
	Refused string

	RunID      string
	Benchmarks []string
	Arms       []string
	Queries    int // the most rows of one arm
	Blocking   int // blocking problems (results.Validate)
	Warnings   int
	// Untrusted are the problems that keep a bundle from being reported
	// or compared (as lasagna results report refuses it): a hash that
	// does not match, a broken structure, inconsistent numbers.
	Untrusted []string
}

func openFolder(dir string) (*folder, error) {
	if dir == "" {
		return nil, errors.New("no bundles folder: give --bundles DIR")
	}
	st, err := os.Stat(dir)
	if err != nil {
		return nil, fmt.Errorf("bundles folder: %w (give --bundles DIR, a folder of results bundles such as lasagna-out)", err)
	}
	if !st.IsDir() {
		return nil, fmt.Errorf("bundles folder %s is not a folder (give --bundles DIR, a folder of results bundles)", dir)
	}
	root, err := os.OpenRoot(dir)
	if err != nil {
		return nil, fmt.Errorf("bundles folder: %w", err)
	}
	return &folder{dir: dir, root: root, cache: map[string]*entry{}}, nil
}

func (f *folder) close() error { return f.root.Close() }

// forget drops what was read, so the next scan reads every file again.
func (f *folder) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.cache)
}

// scan lists the *.json files of the folder and its subfolders (not
// those whose name starts with "."), reading the new and changed ones.
func (f *folder) scan() []*entry {
	f.mu.Lock()
	defer f.mu.Unlock()
	var out []*entry
	seen := map[string]bool{}
	fs.WalkDir(f.root.FS(), ".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			if p != "." {
				out = append(out, &entry{Path: p, Refused: "unreadable: " + stripRoot(err)})
			}
			if d != nil && d.IsDir() {
				return fs.SkipDir
			}
			return nil
		}
		if d.IsDir() {
			if p != "." && strings.HasPrefix(d.Name(), ".") {
				return fs.SkipDir
			}
			return nil
		}
		if !strings.EqualFold(path.Ext(p), ".json") {
			return nil
		}
		seen[p] = true
		out = append(out, f.read(p))
		return nil
	})
	for p := range f.cache {
		if !seen[p] {
			delete(f.cache, p)
		}
	}
	slices.SortFunc(out, func(a, b *entry) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// lookup returns the entry of the file at slash path p, or nil when the
// folder has no such file. p is looked up, never opened as given: a
// name that is not a plain path inside the folder finds nothing.
func (f *folder) lookup(p string) *entry {
	if !fs.ValidPath(p) || p == "." || !strings.EqualFold(path.Ext(p), ".json") {
		return nil
	}
	for _, e := range f.scan() {
		if e.Path == p {
			return e
		}
	}
	return nil
}

// read returns the entry of p, from the cache when the file is
// unchanged. f.mu is held.
func (f *folder) read(p string) *entry {
	st, err := f.root.Stat(p) // follows links, but only inside the folder
	if err != nil {
		if lst, lerr := f.root.Lstat(p); lerr == nil && lst.Mode()&fs.ModeSymlink != 0 {
			return &entry{Path: p, Refused: "a symbolic link that leads outside the bundles folder (or nowhere): not served"}
		}
		return &entry{Path: p, Refused: "unreadable: " + stripRoot(err)}
	}
	if !st.Mode().IsRegular() {
		return &entry{Path: p, Size: st.Size(), ModTime: st.ModTime(), Refused: "not a regular file: not served"}
	}
	if e := f.cache[p]; e != nil && e.Size == st.Size() && e.ModTime.Equal(st.ModTime()) {
		return e
	}
	raw, st, err := f.readFile(p)
	if err != nil {
		return &entry{Path: p, Refused: "unreadable: " + stripRoot(err)}
	}
	e := summarize(p, raw)
	e.Size, e.ModTime = st.Size(), st.ModTime()
	f.cache[p] = e
	return e
}

// readFile reads the regular file p of the folder. It opens without
// blocking (a FIFO put in place of a bundle does not hang the server) and
// checks the opened file, not only the name.
func (f *folder) readFile(p string) ([]byte, fs.FileInfo, error) {
	fh, err := f.root.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	defer fh.Close()
	st, err := fh.Stat()
	if err != nil {
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, nil, fmt.Errorf("%s is not a regular file", p)
	}
	raw, err := io.ReadAll(fh)
	return raw, st, err
}

// bundle reads the bundle of entry e again for a report. It fails when
// the file changed into something that is not served.
func (f *folder) bundle(e *entry) (*results.Bundle, error) {
	raw, _, err := f.readFile(e.Path)
	if err != nil {
		return nil, errors.New(stripRoot(err))
	}
	b, err := results.Unmarshal(raw)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", e.Path, err)
	}
	if b.RunID != e.RunID {
		return nil, fmt.Errorf("%s changed since it was listed; reload the list", e.Path)
	}
	return b, nil
}

// untrustedCodes keep a bundle from being reported, as in lasagna results
// report.
var untrustedCodes = []lasagna.Code{lasagna.RunIDMismatch, lasagna.ComparabilityKeyMismatch, lasagna.SchemaVersion, lasagna.InvalidBundle, lasagna.InconsistentBundle}

// summarize reads what the list shows of a bundle file.
func summarize(p string, raw []byte) *entry {
	e := &entry{Path: p}
	rep := results.Validate(raw)
	e.Blocking, e.Warnings = rep.Blocking(), rep.Warnings()
	for _, pr := range rep.Problems {
		if slices.Contains(untrustedCodes, pr.Code) {
			e.Untrusted = append(e.Untrusted, pr.String())
		}
	}
	b, err := results.Unmarshal(raw)
	if err != nil {
		e.Refused = "not a readable bundle: " + err.Error()
		return e
	}
	if b.SchemaVersion == "" {
		e.Refused = "not a results bundle (no schema_version)"
		return e
	}
	e.RunID = b.RunID
	for _, c := range b.Configs {
		if !slices.Contains(e.Benchmarks, c.Benchmark) {
			e.Benchmarks = append(e.Benchmarks, c.Benchmark)
		}
		if !slices.Contains(e.Arms, c.Name) {
			e.Arms = append(e.Arms, c.Name)
		}
	}
	for _, r := range b.Results {
		e.Queries = max(e.Queries, len(r.PerSampleScores))
	}
	return e
}

// stripRoot removes the wording of os.Root errors that would show the
// server's own paths; only the name relative to the folder stays.
func stripRoot(err error) string {
	var pe *fs.PathError
	if errors.As(err, &pe) {
		return pe.Path + ": " + pe.Err.Error()
	}
	return err.Error()
}
