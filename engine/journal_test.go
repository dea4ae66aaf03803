package engine

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

func TestJournalResume(t *testing.T) {
	dir := t.TempDir()
	key := journalKey{Benchmark: "local/x@0123456789ab", Revision: "rev1", Arm: "bm25", ArmConfig: "cfg"}
	j, err := openJournal(dir, key, false)
	if err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"q1", "q2"} {
		if err := j.Record(journalEntry{Query: id, Hits: []lasagna.Hit{{ID: "d" + id, Score: 1.5}}}); err != nil {
			t.Fatal(err)
		}
	}
	j.Close()
	// A torn last line, as a SIGKILL mid-write would leave.
	name := filepath.Join(dir, key.file())
	f, _ := os.OpenFile(name, os.O_APPEND|os.O_WRONLY, 0)
	f.WriteString(`{"q":"q3","hits":[{"id":"d`)
	f.Close()

	j, err = openJournal(dir, key, true)
	if err != nil {
		t.Fatal(err)
	}
	if j.Len() != 2 {
		t.Errorf("resumed %d entries, want 2", j.Len())
	}
	if e, ok := j.Done("q2"); !ok || e.Hits[0].ID != "dq2" || e.Hits[0].Score != 1.5 {
		t.Errorf("q2 = %+v, %v", e, ok)
	}
	if err := j.Record(journalEntry{Query: "q3"}); err != nil {
		t.Fatal(err)
	}
	j.Close()
	data, _ := os.ReadFile(name)
	if strings.Contains(string(data), `"hits":[{"id":"d`+"\n") || strings.Count(string(data), "\n") != 4 {
		t.Errorf("journal after resume:\n%s", data)
	}

	// Another revision never resumes from this journal; a fresh run
	// without --resume discards it.
	other := key
	other.Revision = "rev2"
	j, err = openJournal(dir, other, true)
	if err != nil {
		t.Fatal(err)
	}
	if j.Len() != 0 {
		t.Errorf("an edited dataset resumed %d entries", j.Len())
	}
	j.Close()
	j, err = openJournal(dir, key, false)
	if err != nil {
		t.Fatal(err)
	}
	if j.Len() != 0 {
		t.Errorf("a run without resume kept %d entries", j.Len())
	}
	j.Close()
}
