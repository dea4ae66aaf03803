package dashboard

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

// folder is the bundles folder. Every file is reached through an
// os.Root, so no name (a symbolic link, "..") leads outside it. What was
// read of a file (its header, its check, its drawn report) is kept until
// the file's size or modification time changes.
type folder struct {
	dir  string
	root *os.Root

	// ctx ends when the server closes: it stops the background checks.
	ctx    context.Context
	cancel context.CancelFunc

	mu     sync.Mutex
	cache  map[string]*entry // by slash path relative to the folder
	checks map[string]*check // by entry.key()
	// queue holds the entries the background checker is to check, and
	// checking says whether it runs.
	queue    []*entry
	checking bool
	checker  sync.WaitGroup

	gate        *gate
	checkFlight flight[*check]
	pageFlight  flight[*cachedPage]
	pages       *pageCache
	// decodes counts the whole-bundle reads (checks and reports), for the
	// tests.
	decodes atomic.Int64
	// inlineCheck is inlineCheckBytes (tests lower it).
	inlineCheck int64
}

// entry is one *.json file of the folder, as the list shows it: what its
// header says, read without decoding its rows (readHeader).
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
}

// key names the file as it is now: its path, size and modification time.
func (e *entry) key() string {
	return e.Path + "\x00" + strconv.FormatInt(e.Size, 10) + "\x00" + strconv.FormatInt(e.ModTime.UnixNano(), 10)
}

// check is the outcome of results.Validate on a bundle file.
type check struct {
	Blocking int // blocking problems
	Warnings int
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
	ctx, cancel := context.WithCancel(context.Background())
	return &folder{dir: dir, root: root, ctx: ctx, cancel: cancel, cache: map[string]*entry{}, checks: map[string]*check{},
		gate: newGate(workSlots), pages: newPageCache(pageBudget), inlineCheck: inlineCheckBytes}, nil
}

// close stops the background checker (after the check it is doing) and
// closes the folder.
func (f *folder) close() error {
	f.cancel()
	f.checker.Wait()
	return f.root.Close()
}

// forget drops what was read, so the next scan reads every file again.
func (f *folder) forget() {
	f.mu.Lock()
	defer f.mu.Unlock()
	clear(f.cache)
	clear(f.checks)
	f.pages.forget()
}

// scan lists the *.json files of the folder and its subfolders (not
// those whose name starts with "."), reading the header of the new and
// changed ones.
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
	current := map[string]bool{}
	for p, e := range f.cache {
		if !seen[p] {
			delete(f.cache, p)
		} else {
			current[e.key()] = true
		}
	}
	for k := range f.checks {
		if !current[k] {
			delete(f.checks, k)
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
	fh, st, err := f.open(p)
	if err != nil {
		return &entry{Path: p, Refused: "unreadable: " + stripRoot(err)}
	}
	e, err := readHeader(bufio.NewReaderSize(fh, 64<<10))
	fh.Close()
	if err != nil {
		e = &entry{Refused: "not a readable bundle: " + err.Error()}
	}
	e.Path, e.Size, e.ModTime = p, st.Size(), st.ModTime()
	f.cache[p] = e
	return e
}

// open opens the regular file p of the folder. It opens without blocking
// (a FIFO put in place of a bundle does not hang the server) and checks
// the opened file, not only the name.
func (f *folder) open(p string) (*os.File, fs.FileInfo, error) {
	fh, err := f.root.OpenFile(p, os.O_RDONLY|openNonblock, 0)
	if err != nil {
		return nil, nil, err
	}
	st, err := fh.Stat()
	if err != nil {
		fh.Close()
		return nil, nil, err
	}
	if !st.Mode().IsRegular() {
		fh.Close()
		return nil, nil, fmt.Errorf("%s is not a regular file", p)
	}
	return fh, st, nil
}

// readAll reads the whole file of entry e, failing when it changed since
// it was listed (its size or modification time).
func (f *folder) readAll(e *entry) ([]byte, error) {
	fh, st, err := f.open(e.Path)
	if err != nil {
		return nil, errors.New(stripRoot(err))
	}
	defer fh.Close()
	if st.Size() != e.Size || !st.ModTime().Equal(e.ModTime) {
		return nil, fmt.Errorf("%s changed since it was listed; reload the list", e.Path)
	}
	f.decodes.Add(1)
	raw := make([]byte, 0, st.Size()+1) // +1: ReadAll meets EOF without growing
	buf := bytes.NewBuffer(raw)
	if _, err := buf.ReadFrom(fh); err != nil {
		return nil, errors.New(stripRoot(err))
	}
	return buf.Bytes(), nil
}

// readHeader reads what the list shows of a bundle: schema_version,
// run_id, each config's benchmark and name, and the number of rows of
// each result, counted without decoding them (a streaming read that
// skips every other value). It fails on text that is not one JSON object.
// A file without schema_version is refused, not an error.
func readHeader(r io.Reader) (*entry, error) {
	d := jsontext.NewDecoder(r)
	e := &entry{}
	tok, err := d.ReadToken()
	if err != nil {
		return nil, headerErr(err)
	}
	if tok.Kind() != '{' {
		return nil, fmt.Errorf("a bundle is a json object, got %s", kindName(tok.Kind()))
	}
	var version string
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return nil, headerErr(err)
		}
		switch name.String() {
		case "schema_version":
			version, err = readString(d, "schema_version")
		case "run_id":
			e.RunID, err = readString(d, "run_id")
		case "configs":
			err = eachElement(d, func() error {
				return eachMember(d, func(name string) error {
					var s string
					var err error
					switch name {
					case "benchmark":
						if s, err = readString(d, "configs[].benchmark"); err == nil && !slices.Contains(e.Benchmarks, s) {
							e.Benchmarks = append(e.Benchmarks, s)
						}
					case "name":
						if s, err = readString(d, "configs[].name"); err == nil && !slices.Contains(e.Arms, s) {
							e.Arms = append(e.Arms, s)
						}
					default:
						err = d.SkipValue()
					}
					return err
				})
			})
		case "results":
			err = eachElement(d, func() error {
				return eachMember(d, func(name string) error {
					if name != "per_sample_scores" {
						return d.SkipValue()
					}
					n := 0
					err := eachElement(d, func() error { n++; return d.SkipValue() })
					e.Queries = max(e.Queries, n)
					return err
				})
			})
		default:
			err = d.SkipValue()
		}
		if err != nil {
			return nil, headerErr(err)
		}
	}
	if _, err := d.ReadToken(); err != nil {
		return nil, headerErr(err)
	}
	if _, err := d.ReadToken(); err != io.EOF {
		if err == nil {
			err = errors.New("unexpected data after the bundle object (a bundle file holds one json object)")
		}
		return nil, headerErr(err)
	}
	if version == "" {
		return &entry{Refused: "not a results bundle (no schema_version)"}, nil
	}
	return e, nil
}

// eachElement calls fn for each element of the array the decoder is at
// (fn reads it); a null counts as an empty array.
func eachElement(d *jsontext.Decoder, fn func() error) error {
	tok, err := d.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case 'n':
		return nil
	case '[':
	default:
		return fmt.Errorf("%s is %s, want an array", d.StackPointer(), kindName(tok.Kind()))
	}
	for d.PeekKind() != ']' {
		if err := fn(); err != nil {
			return err
		}
	}
	_, err = d.ReadToken()
	return err
}

// eachMember calls fn with the name of each member of the object the
// decoder is at (fn reads its value); a value that is not an object is
// skipped.
func eachMember(d *jsontext.Decoder, fn func(name string) error) error {
	if d.PeekKind() != '{' {
		return d.SkipValue()
	}
	if _, err := d.ReadToken(); err != nil {
		return err
	}
	for d.PeekKind() != '}' {
		name, err := d.ReadToken()
		if err != nil {
			return err
		}
		if err := fn(name.String()); err != nil {
			return err
		}
	}
	_, err := d.ReadToken()
	return err
}

// readString reads a string value (a null reads as "").
func readString(d *jsontext.Decoder, field string) (string, error) {
	tok, err := d.ReadToken()
	if err != nil {
		return "", err
	}
	switch tok.Kind() {
	case '"':
		return tok.String(), nil
	case 'n':
		return "", nil
	}
	return "", fmt.Errorf("%s is %s, want a string", field, kindName(tok.Kind()))
}

func kindName(k jsontext.Kind) string {
	switch k {
	case 'n':
		return "null"
	case 't', 'f':
		return "a boolean"
	case '"':
		return "a string"
	case '0':
		return "a number"
	case '[':
		return "an array"
	case '{':
		return "an object"
	}
	return "nothing"
}

// headerErr words a decoding error without the package's prefix.
func headerErr(err error) error {
	if err == io.EOF || errors.Is(err, io.ErrUnexpectedEOF) {
		return errors.New("the file ends before the bundle object does")
	}
	msg := strings.TrimPrefix(err.Error(), "jsontext: ")
	return errors.New(msg)
}

// untrustedCodes keep a bundle from being reported, as in lasagna results
// report.
var untrustedCodes = []lasagna.Code{lasagna.RunIDMismatch, lasagna.ComparabilityKeyMismatch, lasagna.SchemaVersion, lasagna.InvalidBundle, lasagna.InconsistentBundle}

// checked returns the check of e when it was done, else nil.
func (f *folder) checked(e *entry) *check {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.checks[e.key()]
}

// check returns the check of e (results.Validate, as lasagna results
// validate runs it), done once per version of the file, through the gate.
// It fails when ctx ends first or the file changed since it was listed.
func (f *folder) check(ctx context.Context, e *entry) (*check, error) {
	if c := f.checked(e); c != nil {
		return c, nil
	}
	key := e.key()
	return f.checkFlight.do(ctx, key, func() (*check, error) {
		if c := f.checked(e); c != nil { // done while this caller waited
			return c, nil
		}
		release, err := f.gate.acquire(ctx, e.Size)
		if err != nil {
			return nil, err
		}
		defer release()
		raw, err := f.readAll(e)
		if err != nil {
			return nil, err
		}
		rep := results.Validate(raw)
		c := &check{Blocking: rep.Blocking(), Warnings: rep.Warnings()}
		for _, pr := range rep.Problems {
			if slices.Contains(untrustedCodes, pr.Code) {
				c.Untrusted = append(c.Untrusted, pr.String())
			}
		}
		f.mu.Lock()
		if cur := f.cache[e.Path]; cur != nil && cur.key() == key {
			f.checks[key] = c
		}
		f.mu.Unlock()
		return c, nil
	})
}

// checkLater queues the entries for the background checker, smallest
// first, and starts it when it is not running. It checks one bundle at a
// time, through the gate, until the queue is empty or the server closes.
func (f *folder) checkLater(es []*entry) {
	f.mu.Lock()
	defer f.mu.Unlock()
	for _, e := range es {
		if !slices.Contains(f.queue, e) {
			f.queue = append(f.queue, e)
		}
	}
	slices.SortStableFunc(f.queue, func(a, b *entry) int { return int(min(max(a.Size-b.Size, -1), 1)) })
	if f.checking || len(f.queue) == 0 {
		return
	}
	f.checking = true
	f.checker.Go(func() {
		for {
			f.mu.Lock()
			if len(f.queue) == 0 || f.ctx.Err() != nil {
				f.queue, f.checking = nil, false
				f.mu.Unlock()
				return
			}
			e := f.queue[0]
			f.queue = f.queue[1:]
			current := f.cache[e.Path] == e
			f.mu.Unlock()
			if current {
				f.check(f.ctx, e) // an error shows when the report is asked for
			}
		}
	})
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
