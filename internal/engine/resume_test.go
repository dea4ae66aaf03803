package engine

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"testing/fstest"
	"time"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/results"
)

const resumeQueries = 40

func resumeBench(t testing.TB) *BenchmarkRun {
	t.Helper()
	var b strings.Builder
	for i := range resumeQueries {
		fmt.Fprintf(&b, `{"id": "q%02d", "question": "question number %d about topic %d", "answer": "a%d", "contexts": ["passage %d on topic %d"]}`+"\n", i, i, i, i, i, i)
	}
	fsys := fstest.MapFS{"resume.jsonl": {Data: []byte(b.String())}}
	runs, err := LoadBenchmarks(fsys, &Sweep{Benchmarks: []BenchmarkEntry{{Path: "resume.jsonl"}}})
	if err != nil {
		t.Fatal(err)
	}
	return runs[0]
}

// gatedArm retrieves the gold passages, calling seen(id) first; a query for
// which seen returns false blocks until its context ends.
func gatedArm(seen func(id string) bool) Arm {
	arm := goldArm("slow")
	inner := arm.Retriever
	arm.Retriever = func(ctx context.Context, b *lasagna.Benchmark) (lasagna.Retriever, error) {
		r, err := inner(ctx, b)
		if err != nil {
			return nil, err
		}
		return lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
			if !seen(q.ID) {
				<-ctx.Done()
				return nil, ctx.Err()
			}
			return r.Retrieve(ctx, q, k)
		}), nil
	}
	return arm
}

// TestKillAndResume kills a run with SIGKILL mid-way (a real child
// process), resumes it, and checks that no finished query ran again, none
// was lost, and the bundle equals an uninterrupted run's.
func TestKillAndResume(t *testing.T) {
	if dir := os.Getenv("LASAGNA_TEST_KILL_CHILD"); dir != "" {
		// The child: finish 12 queries, then hang until killed (no timing:
		// the kill cannot come too late).
		var n atomic.Int64
		_, err := Run(context.Background(), []*BenchmarkRun{resumeBench(t)}, []Arm{gatedArm(func(string) bool { return n.Add(1) <= 12 })},
			Options{Concurrency: 2, JournalDir: dir})
		t.Fatalf("the child finished (err %v) before the parent killed it", err)
	}
	if testing.Short() {
		t.Skip("starts a child process; skipped with -short")
	}
	dir := t.TempDir()
	cmd := exec.Command(os.Args[0], "-test.run=^TestKillAndResume$", "-test.count=1")
	cmd.Env = append(os.Environ(), "LASAGNA_TEST_KILL_CHILD="+dir)
	var childOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &childOut, &childOut
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(30 * time.Second)
	for journalLines(t, dir) < 11 { // header + 10 finished queries
		if time.Now().After(deadline) {
			cmd.Process.Kill()
			t.Fatalf("the child journalled nothing in 30s; its output:\n%s", childOut.String())
		}
		time.Sleep(5 * time.Millisecond) // polls a real process; no fake clock reaches it
	}
	if err := cmd.Process.Kill(); err != nil { // SIGKILL
		t.Fatal(err)
	}
	cmd.Wait()
	finished := journalLines(t, dir) - 1
	if finished >= resumeQueries {
		t.Fatalf("the child finished all %d queries before the kill", finished)
	}

	var (
		mu  sync.Mutex
		ran []string
	)
	br := resumeBench(t)
	arm := gatedArm(func(id string) bool { mu.Lock(); ran = append(ran, id); mu.Unlock(); return true })
	rep, err := Run(t.Context(), []*BenchmarkRun{br}, []Arm{arm}, Options{Concurrency: 2, JournalDir: dir, Resume: true})
	if err != nil {
		t.Fatal(err)
	}
	if got := rep.Cells[0].Resumed; got < finished {
		t.Errorf("resumed %d queries, but the journal held %d", got, finished)
	}
	if len(ran)+rep.Cells[0].Resumed != resumeQueries {
		t.Errorf("resume ran %d and restored %d queries; want %d in all, none twice", len(ran), rep.Cells[0].Resumed, resumeQueries)
	}
	for _, r := range rep.Cells[0].Queries {
		if r.Resumed && slices.Contains(ran, r.Query.ID) {
			t.Errorf("%s was finished before the kill and ran again", r.Query.ID)
		}
	}
	resumed := bundleBytes(t, rep)

	fresh, err := Run(t.Context(), []*BenchmarkRun{resumeBench(t)}, []Arm{gatedArm(func(string) bool { return true })}, Options{Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	if want := bundleBytes(t, fresh); !bytes.Equal(resumed, want) {
		t.Errorf("the resumed bundle differs from an uninterrupted run's")
	}
}

func bundleBytes(t *testing.T, rep *Report) []byte {
	t.Helper()
	b, err := rep.Bundle(BundleOptions{LasagnaVersion: "test", Concurrency: 2})
	if err != nil {
		t.Fatal(err)
	}
	data, err := results.Marshal(b)
	if err != nil {
		t.Fatal(err)
	}
	return data
}

func journalLines(t *testing.T, dir string) int {
	files, _ := filepath.Glob(filepath.Join(dir, "*.jsonl"))
	if len(files) == 0 {
		return 0
	}
	f, err := os.Open(files[0])
	if err != nil {
		return 0
	}
	defer f.Close()
	n := 0
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		n++
	}
	return n
}

// TestRunInterrupted: a run whose context ends mid-way returns
// *Interrupted with the number of queries on record in the journal, which
// a resumed run then restores.
func TestRunInterrupted(t *testing.T) {
	dir := t.TempDir()
	ctx, cancel := context.WithCancel(t.Context())
	var n atomic.Int64
	arm := gatedArm(func(string) bool {
		if n.Add(1) > 12 {
			cancel() // Ctrl-C while the 13th query runs
			return false
		}
		return true
	})
	_, err := Run(ctx, []*BenchmarkRun{resumeBench(t)}, []Arm{arm}, Options{Concurrency: 1, JournalDir: dir})
	var intr *Interrupted
	if !errors.As(err, &intr) || !errors.Is(err, context.Canceled) {
		t.Fatalf("err = %v (%T); want *Interrupted wrapping context.Canceled", err, err)
	}
	if intr.Journalled != 12 || intr.Total != resumeQueries {
		t.Errorf("interrupted: %d of %d queries journalled; want 12 of %d", intr.Journalled, intr.Total, resumeQueries)
	}
	if want := fmt.Sprintf("context canceled: 12 of %d queries journalled", resumeQueries); err.Error() != want {
		t.Errorf("message %q, want %q", err, want)
	}
	rep, err := Run(t.Context(), []*BenchmarkRun{resumeBench(t)}, []Arm{gatedArm(func(string) bool { return true })}, Options{Concurrency: 1, JournalDir: dir, Resume: true})
	if err != nil || rep.Cells[0].Resumed != 12 {
		t.Fatalf("resume: %v; restored %v", err, rep)
	}
}
