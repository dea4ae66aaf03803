package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// faqRuns runs `benchmark run examples/data/faq.jsonl --profile speed`
// unsharded and as shards 1/3 … 3/3 into dir (2/3 as --shard ci under
// Buildkite's parallel-job variables), and returns the bundle paths (the
// unsharded one first).
func faqRuns(t *testing.T, dir string) []string {
	t.Helper()
	t.Setenv("LASAGNA_CACHE_DIR", t.TempDir())
	var paths []string
	for _, shard := range []string{"", "1/3", "2/3", "3/3"} {
		p := filepath.Join(dir, "whole.json")
		args := []string{"benchmark", "run", "../../examples/data/faq.jsonl", "--profile", "speed"}
		switch shard {
		case "":
		case "2/3": // as a CI runner's second parallel job names it
			t.Setenv("BUILDKITE_PARALLEL_JOB", "1")
			t.Setenv("BUILDKITE_PARALLEL_JOB_COUNT", "3")
			p = filepath.Join(dir, "shard2.json")
			args = append(args, "--shard", "ci")
		default:
			p = filepath.Join(dir, "shard"+shard[:1]+".json")
			args = append(args, "--shard", shard)
		}
		out, errOut, code := runCLI(t, append(args, "-o", p)...)
		if code != 0 {
			t.Fatalf("benchmark run --shard %q: exit %d\n%s%s", shard, code, out, errOut)
		}
		paths = append(paths, p)
	}
	return paths
}

func TestResultsMergeShardsGiveTheUnshardedBytes(t *testing.T) {
	dir := t.TempDir()
	paths := faqRuns(t, dir)
	whole, err := os.ReadFile(paths[0])
	if err != nil {
		t.Fatal(err)
	}
	for _, order := range [][]int{{1, 2, 3}, {3, 1, 2}} {
		out := filepath.Join(dir, fmt.Sprintf("merged%d.json", order[0]))
		stdout, errOut, code := runCLI(t, "results", "merge", paths[order[0]], paths[order[1]], paths[order[2]], "-o", out)
		if code != 0 {
			t.Fatalf("merge: exit %d\n%s%s", code, stdout, errOut)
		}
		got, err := os.ReadFile(out)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, whole) {
			a, _ := results.Unmarshal(got)
			b, _ := results.Unmarshal(whole)
			t.Fatalf("shards %v merged: run_id %s, unsharded %s: the bytes differ", order, a.RunID, b.RunID)
		}
		if b, _ := results.Unmarshal(whole); !strings.Contains(stdout, "merged 3 shards: 1 arm, 47 per-query rows → "+out+" (run_id "+b.RunID[:12]+")") {
			t.Errorf("merge output:\n%s", stdout)
		}
	}
	// Merging the one unsharded bundle writes it unchanged.
	one := filepath.Join(dir, "one.json")
	if stdout, errOut, code := runCLI(t, "results", "merge", paths[0], "-o", one); code != 0 {
		t.Fatalf("merge of one bundle: exit %d\n%s%s", code, stdout, errOut)
	}
	if got, _ := os.ReadFile(one); !bytes.Equal(got, whole) {
		t.Error("merging one bundle changed it")
	}
}

// forge rewrites the bundle at src into dst after edit, with the run_id
// recomputed (anyone can: it proves an edit is evident, not who made it).
func forge(t *testing.T, src, dst string, edit func(doc map[string]any)) {
	t.Helper()
	raw, err := os.ReadFile(src)
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	edit(doc)
	data, err := json.MarshalIndent(doc, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	id, err := results.RunIDOf(data)
	if err != nil {
		t.Fatal(err)
	}
	doc["run_id"] = id
	if data, err = json.MarshalIndent(doc, "", "  "); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(dst, data, 0o644); err != nil {
		t.Fatal(err)
	}
}

func obj(v any, path ...any) map[string]any {
	for _, p := range path {
		switch k := p.(type) {
		case string:
			v = v.(map[string]any)[k]
		case int:
			v = v.([]any)[k]
		}
	}
	return v.(map[string]any)
}

func TestResultsMergeRefusesTamperedShards(t *testing.T) {
	dir := t.TempDir()
	paths := faqRuns(t, dir)
	for _, tc := range []struct {
		name string
		edit func(doc map[string]any)
		want []string // each must be printed
	}{
		{"edited score", func(doc map[string]any) {
			obj(doc, "results", 0, "per_sample_scores", 0, "scores")["ndcg@10"] = 0.42
		}, []string{"ndcg@10"}},
		{"bad comparability_key", func(doc map[string]any) {
			obj(doc, "configs", 0)["comparability_key"] = strings.Repeat("0", 64)
		}, []string{"COMPARABILITY_KEY_MISMATCH"}},
		{"edited held_fixed", func(doc map[string]any) {
			hf := obj(doc, "configs", 0, "held_fixed")
			hf["retriever_top_k"] = 1000
			hf["bm25_stemming"] = false
			raw, _ := json.Marshal(hf)
			var h results.HeldFixed
			if err := json.Unmarshal(raw, &h); err != nil {
				t.Fatal(err)
			}
			key, err := results.ComparabilityKey(h)
			if err != nil {
				t.Fatal(err)
			}
			obj(doc, "configs", 0)["comparability_key"] = key
		}, []string{"held_fixed of local/faq@", "differs from", "in bm25_stemming, retriever_top_k"}},
		{"schema_version 2.0", func(doc map[string]any) {
			doc["schema_version"] = "2.0"
		}, []string{"SCHEMA_VERSION"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			bad := filepath.Join(t.TempDir(), "tampered.json")
			forge(t, paths[2], bad, tc.edit)
			out := filepath.Join(t.TempDir(), "merged.json")
			stdout, errOut, code := runCLI(t, "results", "merge", paths[1], bad, paths[3], "-o", out)
			if code != 1 {
				t.Errorf("exit %d, want 1\n%s%s", code, stdout, errOut)
			}
			for _, want := range append(tc.want, bad) {
				if !strings.Contains(stdout+errOut, want) {
					t.Errorf("output does not name %q:\n%s%s", want, stdout, errOut)
				}
			}
			if _, err := os.Stat(out); err == nil {
				t.Error("a refused merge wrote its output")
			}
		})
	}
}

func TestResultsMergeRefusesGapsAndOverlaps(t *testing.T) {
	dir := t.TempDir()
	paths := faqRuns(t, dir)
	out := filepath.Join(dir, "merged.json")
	stdout, errOut, code := runCLI(t, "results", "merge", paths[1], paths[2], paths[2], paths[3], "-o", out)
	if code != 1 || !strings.Contains(stdout, "overlap: local/faq@") || !strings.Contains(stdout, " is in "+paths[2]+" and in "+paths[2]) {
		t.Errorf("overlap: exit %d\n%s%s", code, stdout, errOut)
	}
	stdout, errOut, code = runCLI(t, "results", "merge", paths[1], paths[3], "-o", out)
	if code != 1 || !strings.Contains(stdout, "gap: the 31 queries the shards hold of local/faq@") {
		t.Errorf("gap: exit %d\n%s%s", code, stdout, errOut)
	}
	if _, err := os.Stat(out); err == nil {
		t.Error("a refused merge wrote its output")
	}
	if _, _, code := runCLI(t, "results", "merge", paths[1]); code != 2 {
		t.Errorf("merge without -o: exit %d, want 2", code)
	}
}
