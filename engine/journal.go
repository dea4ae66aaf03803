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
	"os"
	"path/filepath"
	"sync"

	"github.com/lasagna-go/lasagna"
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
}

func (k journalKey) file() string {
	h := sha256.New()
	for _, s := range []string{k.Benchmark, k.Revision, k.Arm, k.ArmConfig} {
		fmt.Fprintf(h, "%d:%s\n", len(s), s)
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
	// facts (FactReporter), so a resumed cell that builds nothing still
	// states them.
	Facts map[string]any `json:"facts,omitempty"`
}

// journal is an append-only record of finished queries, one JSON line each,
// written with one write call per query so a process killed at any moment
// (even by SIGKILL) leaves every finished query on disk and at most one
// torn last line, which the next open discards. Safe for concurrent use by
// one process; two processes must not share a journal.
type journal struct {
	mu    sync.Mutex
	f     *os.File
	done  map[string]journalEntry
	facts map[string]any
}

type journalHeader struct {
	Lasagna string     `json:"lasagna_journal"`
	Key     journalKey `json:"key"`
}

const journalVersion = "1"

// openJournal opens the journal for key in dir (created if needed). With
// resume, the finished queries already recorded under the same key are
// loaded (see Done); without it, any old journal for the key is discarded.
func openJournal(dir string, key journalKey, resume bool) (*journal, error) {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, fmt.Errorf("create journal folder: %w", err)
	}
	name := filepath.Join(dir, key.file())
	j := &journal{done: map[string]journalEntry{}}
	if resume {
		f, err := os.OpenFile(name, os.O_RDWR, 0)
		switch {
		case err == nil:
			good, err := j.load(f, key)
			if err == nil {
				err = f.Truncate(good)
			}
			if err == nil {
				_, err = f.Seek(0, io.SeekEnd)
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
	line, _ := json.Marshal(journalHeader{Lasagna: journalVersion, Key: key})
	if _, err := f.Write(append(line, '\n')); err != nil {
		f.Close()
		return nil, fmt.Errorf("write journal: %w", err)
	}
	j.f = f
	return j, nil
}

// load reads the entries of f, checks the header names key, and returns the
// offset just past the last complete line.
func (j *journal) load(f *os.File, key journalKey) (int64, error) {
	r := bufio.NewReaderSize(f, 1<<16)
	var off int64
	first := true
	for {
		line, err := r.ReadBytes('\n')
		if len(line) > 0 && line[len(line)-1] == '\n' {
			if first {
				var h journalHeader
				if jerr := json.Unmarshal(line, &h); jerr != nil || h.Lasagna != journalVersion || h.Key != key {
					return 0, fmt.Errorf("not a journal of this benchmark revision and arm; run without --resume to start over")
				}
				first = false
			} else {
				var e journalEntry
				if jerr := json.Unmarshal(line, &e); jerr != nil {
					// A torn line can only be the last; stop here.
					return off, nil
				}
				if e.Query == "" {
					j.facts = intFacts(e.Facts)
				} else {
					j.done[e.Query] = e
				}
			}
			off += int64(len(line))
		}
		if err == io.EOF {
			if first {
				return 0, fmt.Errorf("empty journal; run without --resume to start over")
			}
			return off, nil
		}
		if err != nil {
			return 0, err
		}
	}
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
	line, err := json.Marshal(e)
	if err != nil {
		return err
	}
	if bytes.IndexByte(line, '\n') >= 0 {
		return fmt.Errorf("journal entry for %q has a raw newline", e.Query)
	}
	j.mu.Lock()
	defer j.mu.Unlock()
	if _, err := j.f.Write(append(line, '\n')); err != nil {
		return fmt.Errorf("write journal: %w", err)
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
// ints, as FactReporters report them.
func intFacts(m map[string]any) map[string]any {
	for k, v := range m {
		if f, ok := v.(float64); ok && f == float64(int(f)) {
			m[k] = int(f)
		}
	}
	return m
}

// Close closes the journal file.
func (j *journal) Close() error { return j.f.Close() }
