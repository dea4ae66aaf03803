package main

import (
	"bufio"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestNoDuplicateJudgements writes 20,000 queries (the size that used to
// repeat a judgement) and requires every (query, document) judgement to be
// unique and every query to have exactly the requested number.
func TestNoDuplicateJudgements(t *testing.T) {
	dir := t.TempDir()
	run, qrels := filepath.Join(dir, "run.txt"), filepath.Join(dir, "qrels.txt")
	const queries, judged = 20_000, 60
	if err := write(queries, 40, judged, 1, false, run, qrels); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(qrels)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	seen := map[string]bool{}
	perQuery := map[string]int{}
	sc := bufio.NewScanner(f)
	for line := 1; sc.Scan(); line++ {
		fields := strings.Fields(sc.Text())
		if len(fields) != 4 {
			t.Fatalf("qrels line %d: %q has %d fields, want 4", line, sc.Text(), len(fields))
		}
		key := fields[0] + " " + fields[2]
		if seen[key] {
			t.Fatalf("qrels line %d: judgement %s repeated", line, key)
		}
		seen[key] = true
		perQuery[fields[0]]++
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(perQuery) != queries {
		t.Fatalf("%d queries judged, want %d", len(perQuery), queries)
	}
	for q, n := range perQuery {
		if n != judged {
			t.Fatalf("query %s has %d judgements, want %d", q, n, judged)
		}
	}
}

// TestShuffleSameLines: -shuffle writes the lines of the grouped run in
// another order, and the same qrels.
func TestShuffleSameLines(t *testing.T) {
	dir := t.TempDir()
	p := func(n string) string { return filepath.Join(dir, n) }
	if err := write(30, 20, 10, 1, false, p("run"), p("qrels")); err != nil {
		t.Fatal(err)
	}
	if err := write(30, 20, 10, 1, true, p("srun"), p("sqrels")); err != nil {
		t.Fatal(err)
	}
	read := func(n string) string {
		b, err := os.ReadFile(p(n))
		if err != nil {
			t.Fatal(err)
		}
		return string(b)
	}
	run, srun := read("run"), read("srun")
	sorted := func(s string) []string { l := strings.Split(s, "\n"); slices.Sort(l); return l }
	if run == srun || !slices.Equal(sorted(run), sorted(srun)) || read("qrels") != read("sqrels") {
		t.Error("the shuffled run is not the grouped one's lines in another order with the same qrels")
	}
}
