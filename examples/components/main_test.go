package main

import (
	"io"
	"os"
	"strings"
	"testing"
)

// TestOutputIsTheDocs runs this program, docs/retrieval.md's example of
// the built-in components, and checks that it prints the output the docs
// show under it.
func TestOutputIsTheDocs(t *testing.T) {
	doc, err := os.ReadFile("../../docs/retrieval.md")
	if err != nil {
		t.Fatal(err)
	}
	_, after, ok := strings.Cut(string(doc), "func show(name string, hits []lasagna.Hit) {")
	if !ok {
		t.Fatal("docs/retrieval.md shows no copy of this program")
	}
	_, after, ok = strings.Cut(after, "Output:\n\n```\n")
	want, _, ok2 := strings.Cut(after, "```")
	if !ok || !ok2 {
		t.Fatal("docs/retrieval.md shows no Output: block after the program")
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
	if string(got) != want {
		t.Errorf("the program prints\n%s\ndocs/retrieval.md shows\n%s", got, want)
	}
}
