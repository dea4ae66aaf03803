package engine

import (
	"bufio"
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"sync"
	"syscall"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/numfmt"
)

// journalKey identifies the work a journal holds: one arm configuration on
// one benchmark revision. A journal is reused by --resume only when every
// field matches, so an edited dataset (a new revision) or a changed arm
// never resumes from old results.
type journalKey struct {
	Benchmark string `json:"benchmark"`  // registered name, e.g. local/faq@0123456789ab
	Revision  string `json:"revision"`   // the dataset's full sha256
	Arm       string `json:"arm"`        // the arm's name
	ArmConfig string `json:"arm_config"` // sha256 of the arm's canonical configuration
	// Repeat is the 0-based repeat of an arm whose queries run several
	// times (Arm.Repeats): each repeat has its own journal.
	Repeat int `json:"repeat,omitempty"`
}

func (k journalKey) file() string {
	h := sha256.New()
	for _, s := range []string{k.Benchmark, k.Revision, k.Arm, k.ArmConfig} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
	}
	if k.Repeat > 0 {
		fmt.Fprintf(h, "repeat:%d\n", k.Repeat)
	}
	return hex.EncodeToString(h.Sum(nil))[:32] + ".jsonl"
}

// journalEntry is one finished query: what the pipeline returned. Failed
// queries are never journalled, so a resumed run retries them.
type journalEntry struct {
	Query    string        `json:"q,omitempty"`
	Hits     []lasagna.Hit `json:"hits,omitempty"`
	Answer   string        `json:"answer,omitempty"`
	Answered bool          `json:"answered,omitempty"`
	Abstain  bool          `json:"abstained,omitempty"`
	// Passages are the texts the generator saw, kept so a resumed query
	// is judged for groundedness like a fresh one.
	Passages []string `json:"passages,omitempty"`
	// LatencyNS is the wall time of the query's pipeline call, so a
	// resumed query keeps the latency_ms it was measured with.
	LatencyNS int64 `json:"latency_ns,omitempty"`
	// Facts, on an entry without Query, records the pipeline's held_fixed
	// facts (lasagna.FactReporter), so a resumed cell that builds nothing still
	// states them.
	Facts map[string]any `json:"facts,omitempty"`
}

// journal is an append-only record of finished queries, one line each,
// written with one write call per query so a process killed at any moment
// (even by SIGKILL) leaves every finished query on disk and at most one
// torn last line, which the next open discards. Each line carries a
// checksum of its content and of the journal's key, so a line edited by
// hand, or copied from another journal, is refused with its line number
// rather than resumed into wrong numbers; a damaged line anywhere but a
// torn end is refused too, never skipped with what follows it. A journal is
// locked for as long as it is open (see lockJournal): two processes never
// share one. Safe for concurrent use by one process.
type journal struct {
	mu    sync.Mutex
	f     *os.File
	lock  *os.File
	name  string
	sum   string // journalKey.file(), mixed into every checksum
	done  map[string]journalEntry
	line  map[string]int // line number of each query's entry, while loading
	facts map[string]any
}

type journalHeader struct {
	Lasagna string     `json:"lasagna_journal"`
	Key     journalKey `json:"key"`
}

// journalLine is the form of every line: the entry (or the header, on line
// 1) and its checksum.
type journalLine struct {
	Entry json.RawMessage `json:"e"`
	Sum   string          `json:"sum"`
}

// journalVersion 2 added the per-line checksums.
const journalVersion = "2"

// lineSum is the checksum of one line's entry: the first 16 bytes of the
// sha256 of the journal key's file name and the entry's bytes, in hex.
func lineSum(key string, entry []byte) string {
	h := sha256.New()
	h.Write([]byte(key))
	h.Write([]byte{'\n'})
	h.Write(entry)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// encode returns the journal line of v, newline included.
func (j *journal) encode(v any) ([]byte, error) {
	lb := newLineBuf()
	line, err := j.encodeInto(lb, v)
	return bytes.Clone(line), err
}

// lineBuf is a reusable buffer for journal lines: at a depth of 1,000
// hits a line is tens of kilobytes, and a run writes one per query.
type lineBuf struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newLineBuf() *lineBuf {
	lb := &lineBuf{}
	lb.enc = json.NewEncoder(&lb.buf)
	return lb
}

var lineBufs = sync.Pool{New: func() any { return newLineBuf() }}

// encodeInto returns the journal line of v, newline included, in lb's
// buffer (valid until lb is used again): the journalLine
// {"e":entry,"sum":"…"} as encoding/json writes it, built in one pass
// (a json.RawMessage would be validated and compacted a second time).
func (j *journal) encodeInto(lb *lineBuf, v any) ([]byte, error) {
	lb.buf.Reset()
	lb.buf.WriteString(`{"e":`)
	var fast []byte
	ok := false
	if e, isEntry := v.(journalEntry); isEntry {
		fast, ok = appendEntry(lb.buf.AvailableBuffer(), &e)
	}
	if ok {
		lb.buf.Write(fast)
	} else {
		if err := lb.enc.Encode(v); err != nil { // json.Marshal's bytes and a newline
			return nil, err
		}
		lb.buf.Truncate(lb.buf.Len() - 1)
	}
	entry := lb.buf.Bytes()[len(`{"e":`):]
	if bytes.IndexByte(entry, '\n') >= 0 {
		return nil, errors.New("journal line has a raw newline")
	}
	sum := lineSum(j.sum, entry)
	lb.buf.WriteString(`,"sum":"`)
	lb.buf.WriteString(sum)
	lb.buf.WriteString("\"}\n")
	return lb.buf.Bytes(), nil
}

// restartHint ends every message about a journal that cannot be resumed.
const restartHint = "run without --resume to start over (or delete the journal)"

// openJournal opens the journal for key in dir (created if needed) and
// locks it. With resume, the finished queries already recorded under the
// same key are loaded (see Done); without it, any old journal for the key is
// discarded.
func openJournal(dir string, key journalKey, resume bool) (_ *journal, err error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create journal folder: %w", err)
	}
	name := filepath.Join(dir, key.file())
	lock, err := lockJournal(name)
	if err != nil {
		return nil, err
	}
	defer func() {
		if err != nil {
			unlockJournal(lock)
		}
	}()
	j := &journal{lock: lock, name: name, sum: key.file(), done: map[string]journalEntry{}}
	if resume {
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		switch {
		case err == nil:
			good, torn, err := j.load(f, key)
			if err == nil && torn {
				// A last line cut short by a kill: drop it (its query
				// runs again).
				err = f.Truncate(good)
			}
			if err == nil {
				_, err = f.Seek(good, io.SeekStart)
			}
			if err != nil {
				f.Close()
				return nil, fmt.Errorf("journal %s: %w", name, err)
			}
			j.f = f
			return j, nil
		case !errors.Is(err, os.ErrNotExist):
			return nil, fmt.Errorf("open journal: %w", err)
		}
	}
	f, err := os.OpenFile(name, os.O_RDWR|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("create journal: %w", err)
	}
	line, err := j.encode(journalHeader{Lasagna: journalVersion, Key: key})
	if err == nil {
		_, err = f.Write(line)
	}
	if err != nil {
		f.Close()
		return nil, journalWriteErr(name, err)
	}
	j.f = f
	return j, nil
}

// journalWriteErr words a failed write to the journal file name: its
// path and the system's reason, and for a full disk (or quota) what to do,
// so that it is never taken for a problem of a query or its data.
func journalWriteErr(name string, err error) error {
	var pe *fs.PathError
	if errors.As(err, &pe) && pe.Path == name {
		err = pe.Err
	}
	if errors.Is(err, syscall.ENOSPC) || errors.Is(err, syscall.EDQUOT) {
		return fmt.Errorf("write journal %s: %w; free space on the disk holding %s, or give a journal folder with room (the lasagna command keeps its journals under LASAGNA_CACHE_DIR)", name, err, filepath.Dir(name))
	}
	return fmt.Errorf("write journal %s: %w", name, err)
}

// load reads the entries of f and checks the header names key. It returns
// the offset just past the last good line, and whether a torn last line
// (no newline, not whole) follows it. A complete last line without its
// newline is kept, and the newline added.
func (j *journal) load(f *os.File, key journalKey) (good int64, torn bool, err error) {
	j.line = map[string]int{}
	defer func() { j.line = nil }()
	r := bufio.NewReaderSize(f, 1<<16)
	for n := 1; ; n++ {
		line, rerr := r.ReadBytes('\n')
		if rerr != nil && rerr != io.EOF {
			return 0, false, rerr
		}
		if len(line) == 0 {
			if n == 1 {
				return 0, false, fmt.Errorf("empty journal; %s", restartHint)
			}
			return good, false, nil
		}
		last := line[len(line)-1] != '\n'
		var l journalLine
		if jerr := json.Unmarshal(line, &l); jerr != nil || l.Entry == nil || l.Sum == "" {
			if last && n > 1 {
				return good, true, nil
			}
			if n == 1 {
				return 0, false, fmt.Errorf("line 1 is not the header of a lasagna journal of format %s (a journal of an older lasagna, or damaged); %s", journalVersion, restartHint)
			}
			return 0, false, fmt.Errorf("line %d is damaged (not a journal line); no line is skipped, so the journal cannot be resumed: %s", n, restartHint)
		}
		if lineSum(j.sum, l.Entry) != l.Sum {
			return 0, false, fmt.Errorf("line %d was edited: its checksum does not match its content (or it was copied from another journal); results from an edited journal are refused: %s", n, restartHint)
		}
		if err := j.apply(n, l.Entry, key); err != nil {
			return 0, false, fmt.Errorf("line %d: %w; %s", n, err, restartHint)
		}
		good += int64(len(line))
		if last {
			if _, err := f.WriteAt([]byte{'\n'}, good); err != nil {
				return 0, false, err
			}
			return good + 1, false, nil
		}
	}
}

// apply adds line n's checked entry: the header on line 1, else a query or
// the facts.
func (j *journal) apply(n int, raw []byte, key journalKey) error {
	dec := json.NewDecoder(bytes.NewReader(raw))
	dec.DisallowUnknownFields()
	if n == 1 {
		var h journalHeader
		if err := dec.Decode(&h); err != nil || h.Lasagna != journalVersion || h.Key != key {
			return fmt.Errorf("not the header of a journal of this benchmark revision and arm")
		}
		return nil
	}
	var e journalEntry
	if err := dec.Decode(&e); err != nil {
		return fmt.Errorf("not a journal entry: %v", err)
	}
	if e.Query == "" {
		j.facts = intFacts(e.Facts)
		return nil
	}
	if prev, ok := j.line[e.Query]; ok {
		return fmt.Errorf("query %q is recorded twice (lines %d and %d)", e.Query, prev, n)
	}
	j.line[e.Query] = n
	j.done[e.Query] = e
	return nil
}

// Done returns the entry recorded for query id, if any.
func (j *journal) Done(id string) (journalEntry, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	e, ok := j.done[id]
	return e, ok
}

// Len returns the number of finished queries on record.
func (j *journal) Len() int {
	j.mu.Lock()
	defer j.mu.Unlock()
	return len(j.done)
}

// Record appends a finished query.
func (j *journal) Record(e journalEntry) error {
	lb := lineBufs.Get().(*lineBuf)
	defer lineBufs.Put(lb)
	line, err := j.encodeInto(lb, e)
	if err != nil {
		return fmt.Errorf("journal entry for %q: %w", e.Query, err)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(line); err != nil {
		return journalWriteErr(j.name, err)
	}
	if e.Query == "" {
		j.facts = e.Facts
	} else {
		j.done[e.Query] = e
	}
	return nil
}

// Facts returns the facts last recorded, or nil.
func (j *journal) Facts() map[string]any {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.facts
}

// intFacts turns the whole numbers JSON decoding made float64 back into
// ints, as factsMap makes them.
func intFacts(m map[string]any) map[string]any {
	for k, v := range m {
		if f, ok := v.(float64); ok && f == float64(int(f)) {
			m[k] = int(f)
		}
	}
	return m
}

// Close closes the journal file and releases its lock.
func (j *journal) Close() error {
	err := j.f.Close()
	unlockJournal(j.lock)
	return err
}

// appendEntry appends e as encoding/json writes it (json.Marshal's bytes)
// to dst, writing the hits, most of a line at a depth of 1,000, without
// reflection. It reports false when e holds a value encoding/json refuses
// (a NaN or infinite score), for encoding/json to say so.
// TestJournalLineIsEncodingJSON holds it to encoding/json.
func appendEntry(dst []byte, e *journalEntry) ([]byte, bool) {
	dst = append(dst, '{')
	comma := false
	member := func(name string) {
		if comma {
			dst = append(dst, ',')
		}
		comma = true
		dst = append(append(append(dst, '"'), name...), `":`...)
	}
	if e.Query != "" {
		member("q")
		dst = appendJSONString(dst, e.Query)
	}
	if len(e.Hits) > 0 {
		member("hits")
		dst = append(dst, '[')
		for i, h := range e.Hits {
			if i > 0 {
				dst = append(dst, ',')
			}
			if h.Cite != nil {
				data, err := json.Marshal(h)
				if err != nil {
					return nil, false
				}
				dst = append(dst, data...)
				continue
			}
			dst = append(dst, `{"id":`...)
			dst = appendJSONString(dst, h.ID)
			dst = append(dst, `,"score":`...)
			var ok bool
			if dst, ok = numfmt.AppendJSON(dst, h.Score); !ok {
				return nil, false
			}
			dst = append(dst, '}')
		}
		dst = append(dst, ']')
	}
	if e.Answer != "" {
		member("answer")
		dst = appendJSONString(dst, e.Answer)
	}
	if e.Answered {
		member("answered")
		dst = append(dst, "true"...)
	}
	if e.Abstain {
		member("abstained")
		dst = append(dst, "true"...)
	}
	if len(e.Passages) > 0 {
		member("passages")
		dst = append(dst, '[')
		for i, p := range e.Passages {
			if i > 0 {
				dst = append(dst, ',')
			}
			dst = appendJSONString(dst, p)
		}
		dst = append(dst, ']')
	}
	if e.LatencyNS != 0 {
		member("latency_ns")
		dst = strconv.AppendInt(dst, e.LatencyNS, 10)
	}
	if len(e.Facts) > 0 {
		member("facts")
		data, err := json.Marshal(e.Facts)
		if err != nil {
			return nil, false
		}
		dst = append(dst, data...)
	}
	return append(dst, '}'), true
}

// appendJSONString appends s as encoding/json writes a string: printable
// ASCII without a quote, a backslash or HTML's <, > and & is copied between
// quotes, anything else goes through json.Marshal.
func appendJSONString(dst []byte, s string) []byte {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c >= 0x7f || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
			data, _ := json.Marshal(s) // a string always marshals
			return append(dst, data...)
		}
	}
	return append(append(append(dst, '"'), s...), '"')
}
