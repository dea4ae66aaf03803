package engine

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"os"
	"os/exec"
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

// journalWith writes a journal of key holding queries q1..qn and returns
// its path.
func journalWith(t *testing.T, dir string, key journalKey, n int) string {
	t.Helper()
	j, err := openJournal(dir, key, false)
	if err != nil {
		t.Fatal(err)
	}
	for i := 1; i <= n; i++ {
		id := fmt.Sprintf("q%d", i)
		if err := j.Record(journalEntry{Query: id, Hits: []lasagna.Hit{{ID: "d" + id, Score: 1.5}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := j.Close(); err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, key.file())
}

// TestJournalRefusesEditsAndDamage: every line carries a checksum; an
// edited, damaged, duplicated or foreign line is refused with its line
// number and the fix, never resumed and never skipped with what follows.
func TestJournalRefusesEditsAndDamage(t *testing.T) {
	key := journalKey{Benchmark: "local/x@0123456789ab", Revision: "rev1", Arm: "bm25", ArmConfig: "cfg"}
	other := key
	other.Arm = "dense"
	foreignDir := t.TempDir()
	foreign := strings.Split(string(must(os.ReadFile(journalWith(t, foreignDir, other, 3)))), "\n")
	for _, tc := range []struct {
		name string
		edit func(lines []string) []string
		want string
	}{
		{"edited score", func(l []string) []string { l[2] = strings.Replace(l[2], "1.5", "0.5", 1); return l }, "line 3 was edited"},
		{"edited id", func(l []string) []string { l[4] = strings.Replace(l[4], `"q4"`, `"q9"`, 1); return l }, "line 5 was edited"},
		{"garbage mid-file", func(l []string) []string { l[2] = "#### not json"; return l }, "line 3 is damaged"},
		{"truncated mid-file", func(l []string) []string { l[3] = l[3][:20]; return l }, "line 4 is damaged"},
		{"line from another journal", func(l []string) []string { l[2] = foreign[2]; return l }, "line 3 was edited"},
		{"duplicated line", func(l []string) []string { return append(l[:5], append([]string{l[2]}, l[5:]...)...) }, `query "q2" is recorded twice (lines 3 and 6)`},
		{"header of an older format", func(l []string) []string {
			l[0] = `{"lasagna_journal":"1","key":{"benchmark":"local/x@0123456789ab","revision":"rev1","arm":"bm25","arm_config":"cfg"}}`
			return l
		}, "line 1 is not the header"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			name := journalWith(t, dir, key, 5)
			lines := strings.Split(strings.TrimSuffix(string(must(os.ReadFile(name))), "\n"), "\n")
			if err := os.WriteFile(name, []byte(strings.Join(tc.edit(lines), "\n")+"\n"), 0o644); err != nil {
				t.Fatal(err)
			}
			j, err := openJournal(dir, key, true)
			if err == nil {
				j.Close()
				t.Fatalf("resumed %d queries from the edited journal; want an error", j.Len())
			}
			for _, want := range []string{name, tc.want, "run without --resume to start over (or delete the journal)"} {
				if !strings.Contains(err.Error(), want) {
					t.Errorf("error lacks %q:\n%v", want, err)
				}
			}
			// The refused journal is left as it was, for the user to see.
			if got := strings.Count(string(must(os.ReadFile(name))), "\n"); got < 6 {
				t.Errorf("the refused journal was cut to %d lines", got)
			}
		})
	}
}

// TestJournalLastLineWithoutNewline: a whole last line whose newline was
// lost (an editor, a copy) is kept, not dropped as torn, and the journal
// goes on after it.
func TestJournalLastLineWithoutNewline(t *testing.T) {
	dir := t.TempDir()
	key := journalKey{Benchmark: "local/x@0123456789ab", Revision: "rev1", Arm: "bm25", ArmConfig: "cfg"}
	name := journalWith(t, dir, key, 3)
	data := must(os.ReadFile(name))
	os.WriteFile(name, data[:len(data)-1], 0o644)
	j, err := openJournal(dir, key, true)
	if err != nil {
		t.Fatal(err)
	}
	if j.Len() != 3 {
		t.Errorf("resumed %d queries, want 3", j.Len())
	}
	j.Record(journalEntry{Query: "q4"})
	j.Close()
	if j, err = openJournal(dir, key, true); err != nil || j.Len() != 4 {
		t.Fatalf("reopened: %v, %d queries; want 4", err, j.Len())
	}
	j.Close()
}

// TestJournalLockedByAnotherProcess: a journal is locked while open; a
// second process (a real one, and a second open in this one) gets an error
// naming the holder's pid, and the lock goes when the holder dies.
func TestJournalLockedByAnotherProcess(t *testing.T) {
	key := journalKey{Benchmark: "local/x@0123456789ab", Revision: "rev1", Arm: "bm25", ArmConfig: "cfg"}
	if dir := os.Getenv("LASAGNA_TEST_LOCK_CHILD"); dir != "" {
		j, err := openJournal(dir, key, false)
		if err != nil {
			t.Fatal(err)
		}
		fmt.Println("locked")
		io.ReadAll(os.Stdin) // hold the journal until the parent closes stdin or kills us
		j.Close()
		return
	}
	if testing.Short() {
		t.Skip("starts a child process; skipped with -short")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestJournalLockedByAnotherProcess$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LASAGNA_TEST_LOCK_CHILD="+dir)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Process.Kill()
	if line, err := bufio.NewReader(stdout).ReadString('\n'); err != nil || line != "locked\n" {
		t.Fatalf("child said %q, %v", line, err)
	}
	for _, resume := range []bool{false, true} {
		j, err := openJournal(dir, key, resume)
		if err == nil {
			j.Close()
			t.Fatalf("resume=%v: opened a journal another process holds", resume)
		}
		for _, want := range []string{"is in use by another run", fmt.Sprintf("pid %d, started ", cmd.Process.Pid), "wait for that run to finish"} {
			if !strings.Contains(err.Error(), want) {
				t.Errorf("error lacks %q:\n%v", want, err)
			}
		}
	}
	// The holder's journal was not truncated by the refused opens.
	if data := must(os.ReadFile(filepath.Join(dir, key.file()))); len(data) == 0 {
		t.Error("a refused open truncated the holder's journal")
	}
	// Killed, the holder releases the lock.
	cmd.Process.Kill()
	cmd.Wait()
	stdin.Close()
	j, err := openJournal(dir, key, true)
	if err != nil {
		t.Fatalf("after the holder died: %v", err)
	}
	// A second open in the same process is refused too.
	if j2, err := openJournal(dir, key, true); err == nil {
		j2.Close()
		t.Error("a second open in one process shared the journal")
	}
	j.Close()
	if j, err = openJournal(dir, key, true); err != nil {
		t.Fatalf("after Close: %v", err)
	}
	j.Close()
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}

// TestJournalLineIsEncodingJSON holds the journal line built by hand to
// what encoding/json writes for a journalLine, so journals stay readable
// by every release that reads them.
func TestJournalLineIsEncodingJSON(t *testing.T) {
	j := &journal{sum: "0123456789abcdef0123456789abcdef.jsonl"}
	for _, v := range []any{
		journalEntry{Query: "q1", Hits: []lasagna.Hit{{ID: "p1", Score: 12.964025497436523}, {ID: "<&>\"\u2028", Score: -1e-7}}, LatencyNS: 12},
		journalEntry{Query: "q2", Answer: "a\nb", Answered: true, Passages: []string{"x"}},
		journalEntry{Facts: map[string]any{"corpus_documents": 3}},
		journalHeader{Lasagna: journalVersion, Key: journalKey{Benchmark: "b", Arm: "bm25"}},
	} {
		got, err := j.encode(v)
		if err != nil {
			t.Fatal(err)
		}
		entry, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(journalLine{Entry: entry, Sum: lineSum(j.sum, entry)})
		if err != nil {
			t.Fatal(err)
		}
		if want = append(want, '\n'); string(got) != string(want) {
			t.Errorf("journal line\n got %s\nwant %s", got, want)
		}
	}
}

// TestAppendEntryIsEncodingJSON holds appendEntry, the journal's encoder of
// a finished query, to json.Marshal on random entries: ids and texts with
// quotes, escapes, HTML's <>&, control characters, U+2028, DEL and
// invalid UTF-8, scores of every magnitude and sign, cited hits and facts;
// and checks that a NaN or infinite score is left to encoding/json.
func TestAppendEntryIsEncodingJSON(t *testing.T) {
	rng := rand.New(rand.NewPCG(39, 6))
	pieces := []string{"p", "doc-7", "Ω", "\"", "\\", "<", ">", "&", "\n", "\t", "\x01", "\u2028", "\x7f", "\xff", " ", "é", "/"}
	str := func() string {
		var b strings.Builder
		for range rng.IntN(5) {
			b.WriteString(pieces[rng.IntN(len(pieces))])
		}
		return b.String()
	}
	num := func() float64 {
		switch rng.IntN(6) {
		case 0:
			return 0
		case 1:
			return math.Copysign(0, -1)
		case 2:
			return float64(float32(rng.NormFloat64() * 20))
		case 3:
			return rng.Float64() * math.Pow(10, float64(rng.IntN(60)-30))
		case 4:
			return -rng.Float64() * 1e-7
		}
		return float64(rng.IntN(1000))
	}
	page := 3
	for i := range 2000 {
		e := journalEntry{Query: str(), Answer: str(), Answered: rng.IntN(2) == 0, Abstain: rng.IntN(3) == 0, LatencyNS: int64(rng.IntN(3)) * 12345}
		for range rng.IntN(6) {
			h := lasagna.Hit{ID: str(), Score: num()}
			if rng.IntN(5) == 0 {
				h.Cite = &lasagna.Citation{ChunkID: str(), PageNum: &page, SourcePath: str()}
			}
			e.Hits = append(e.Hits, h)
		}
		for range rng.IntN(3) {
			e.Passages = append(e.Passages, str())
		}
		if rng.IntN(10) == 0 {
			e.Facts = map[string]any{"corpus_documents": rng.IntN(100), str(): str()}
		}
		want, err := json.Marshal(e)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := appendEntry(nil, &e)
		if !ok || string(got) != string(want) {
			t.Fatalf("entry %d: appendEntry = %s (%v)\nwant %s", i, got, ok, want)
		}
	}
	for _, bad := range []float64{math.NaN(), math.Inf(1), math.Inf(-1)} {
		e := journalEntry{Query: "q", Hits: []lasagna.Hit{{ID: "p", Score: 1}, {ID: "d", Score: bad}}}
		if got, ok := appendEntry(nil, &e); ok {
			t.Errorf("score %v: appendEntry = %s, want it left to encoding/json", bad, got)
		}
		if _, err := (&journal{}).encode(e); err == nil {
			t.Errorf("score %v: encode gave no error", bad)
		}
	}
}
