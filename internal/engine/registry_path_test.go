package engine

import (
	"errors"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
)

func TestRegistryPathsGoThroughTheResolver(t *testing.T) {
	s, err := ParseSweep([]byte("benchmarks:\n  - path: registry:faq@ea3e86b12545\n  - path: qa.jsonl\narms:\n  - {name: bm25, retriever: bm25}\n"), "conf/s.yaml")
	if err != nil {
		t.Fatal(err)
	}
	if s.Benchmarks[0].Path != "registry:faq@ea3e86b12545" || s.Benchmarks[1].Path != "conf/qa.jsonl" {
		t.Fatalf("paths = %q, %q", s.Benchmarks[0].Path, s.Benchmarks[1].Path)
	}
	fsys := fstest.MapFS{"conf/qa.jsonl": {Data: []byte(`{"question":"q?","answer":"a","contexts":["a b"]}` + "\n")}}
	if _, err := LoadBenchmarks(fsys, s); err == nil || !strings.Contains(err.Error(), "evaltest/evalregistry") {
		t.Errorf("without a resolver: %v", err)
	}
	var asked []string
	resolved := &lasagna.Benchmark{Name: "faq@ea3e86b12545", Revision: "ea3e86b12545", Format: lasagna.FormatJSONL,
		Queries: []lasagna.Query{{ID: "1", Text: "q?", Answers: []string{"a"}}}, Qrels: lasagna.Qrels{}}
	runs, err := LoadBenchmarksWith(fsys, s, func(ref string) (*lasagna.Benchmark, error) {
		asked = append(asked, ref)
		return resolved, nil
	})
	if err != nil || len(runs) != 2 || runs[0].Benchmark.Name != "faq@ea3e86b12545" || len(asked) != 1 || asked[0] != "registry:faq@ea3e86b12545" {
		t.Fatalf("LoadBenchmarksWith = %v, %v; asked %v", runs, err, asked)
	}
	refuse := errors.New("benchmark faq is a draft")
	_, err = LoadBenchmarksWith(fsys, s, func(string) (*lasagna.Benchmark, error) { return nil, refuse })
	if !errors.Is(err, refuse) || !strings.Contains(err.Error(), "conf/s.yaml:2: benchmark registry:faq@ea3e86b12545: benchmark faq is a draft") {
		t.Errorf("a resolver's refusal: %v", err)
	}
	_, err = ParseSweep([]byte("benchmarks:\n  - {path: registry:faq, name: other}\narms:\n  - {name: bm25, retriever: bm25}\n"), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), "s.yaml:2: benchmark registry:faq: name:, split: and corpus: apply to files") {
		t.Errorf("name: with a registry path: %v", err)
	}
	_, err = ParseSweep([]byte("benchmarks:\n  - {name: faq}\narms:\n  - {name: bm25, retriever: bm25}\n"), "s.yaml")
	if err == nil || !strings.Contains(err.Error(), "path: registry:faq") {
		t.Errorf("name without path: %v", err)
	}
}
