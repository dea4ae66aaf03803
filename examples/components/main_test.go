package main

import (
	"io"
	"os"
	"testing"

	"github.com/lasagna-go/lasagna/internal/doctest"
)

// TestOutputIsTheDocs runs this program, docs/retrieval.md's example of
// the built-in components, and checks that it prints the output the docs
// show under it, the block marked <!-- output: TestOutputIsTheDocs -->
// (CONTRIBUTING.md, "Sample outputs in the documentation").
func TestOutputIsTheDocs(t *testing.T) {
	blocks, err := doctest.MarkedOutput("../..", "TestOutputIsTheDocs")
	if err != nil {
		t.Fatal(err)
	}
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	stdout := os.Stdout
	os.Stdout = w
	main()
	os.Stdout = stdout
	w.Close()
	got, _ := io.ReadAll(r)
	for _, b := range blocks {
		if err := doctest.Match(b.Lines, string(got)); err != nil {
			t.Errorf("%s: %v", b.Where(), err)
		}
	}
}
