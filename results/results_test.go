package results

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/golden"
)

// TestGoldenBundles compares the writer's output with testdata/golden/*.json;
// LASAGNA_UPDATE_GOLDEN=1 rewrites them (internal/golden), and the diff is
// reviewed before committing. (The schema's golden file is
// results/schema/run-schema.json.)
func TestGoldenBundles(t *testing.T) {
	for name, build := range goldens {
		t.Run(name, func(t *testing.T) {
			got := encode(t, build(t))
			path := filepath.Join("testdata", "golden", name)
			golden.Check(t, path, got)
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			// write → read → write is byte-identical.
			b, err := Unmarshal(want)
			if err != nil {
				t.Fatal(err)
			}
			if again := encode(t, b); !bytes.Equal(again, want) {
				t.Errorf("read → write of %s is not byte-identical:\n%s", path, again)
			}
		})
	}
}

func TestGoldensValidate(t *testing.T) {
	// Every check accepts what the writer writes; the only problems are the
	// integrity codes the bundle lists. (results/schema checks the same
	// goldens against the JSON Schema.)
	want := map[string][]string{
		"retrieval.json": nil,
		"minimal.json":   nil,
		"rag.json":       {"PIPELINE_ERRORS", "JUDGE_ERRORS", "POOLED_GOLD_CORPUS", "SINGLE_RUN", "SMALL_SAMPLE"},
	}
	for name := range goldens {
		raw, err := os.ReadFile(filepath.Join("testdata", "golden", name))
		if err != nil {
			t.Fatal(err)
		}
		r := Validate(raw)
		if got := codes(r); !slices.Equal(got, want[name]) {
			t.Errorf("%s: codes %v, want %v:%s", name, got, want[name], problemLines(r))
		}
		for _, p := range r.Problems {
			if !strings.Contains(p.Detail, "(listed in integrity.") {
				t.Errorf("%s: unexpected problem %s", name, p)
			}
		}
	}
}

func TestTamper(t *testing.T) {
	raw := encode(t, retrievalBundle(t))
	if r := Validate(raw); len(r.Problems) != 0 {
		t.Fatalf("clean bundle has problems:%s", problemLines(r))
	}
	cases := []struct {
		name   string
		edit   func(m map[string]any)
		rehash bool
		want   lasagna.Code
	}{
		{"metric value", func(m map[string]any) {
			obj(arr(m, "results")[0], "metrics")["ndcg@10"] = json.Number("0.99")
		}, false, lasagna.RunIDMismatch},
		{"per-query score", func(m map[string]any) {
			row := arr(arr(m, "results")[1], "per_sample_scores")[3]
			obj(row, "scores")["recall@10"] = json.Number("1")
		}, false, lasagna.RunIDMismatch},
		{"held_fixed field", func(m map[string]any) {
			obj(arr(m, "configs")[0], "held_fixed")["retriever_top_k"] = json.Number("10")
		}, false, lasagna.ComparabilityKeyMismatch},
		{"held_fixed field, run_id recomputed", func(m map[string]any) {
			obj(arr(m, "configs")[1], "held_fixed")["split"] = "dev"
			raw, _ := json.Marshal(m)
			m["run_id"], _ = RunIDOf(raw)
		}, false, lasagna.ComparabilityKeyMismatch},
		{"schema_version 2.0", func(m map[string]any) { m["schema_version"] = "2.0" }, true, lasagna.SchemaVersion},
		{"schema_version 0.9", func(m map[string]any) { m["schema_version"] = "0.9" }, true, lasagna.SchemaVersion},
		{"schema_version missing", func(m map[string]any) { delete(m, "schema_version") }, true, lasagna.SchemaVersion},
		{"duplicate retrieved id", func(m map[string]any) {
			row := arr(arr(m, "results")[0], "per_sample_scores")[0].(map[string]any)
			ids := row["_retrieved_ids"].([]any)
			ids[1] = ids[0]
			hits := row["_retrieved"].([]any)
			hits[1].(map[string]any)["id"] = ids[0]
		}, true, lasagna.DuplicateRetrievedID},
		{"ranks not 1..n", func(m map[string]any) {
			row := arr(arr(m, "results")[0], "per_sample_scores")[0].(map[string]any)
			row["_retrieved"].([]any)[2].(map[string]any)["rank"] = json.Number("2")
		}, true, lasagna.InvalidBundle},
		{"failed query not listed", func(m map[string]any) {
			row := arr(arr(m, "results")[0], "per_sample_scores")[4].(map[string]any)
			delete(row, "scores")
			row["error"] = "boom"
		}, true, lasagna.PipelineErrors},
		{"failed query with scores", func(m map[string]any) {
			row := arr(arr(m, "results")[0], "per_sample_scores")[4].(map[string]any)
			row["error"] = "boom"
		}, true, lasagna.InvalidBundle},
		{"missing result", func(m map[string]any) { m["results"] = arr(m, "results")[:1] }, true, lasagna.MissingResults},
		{"empty result", func(m map[string]any) {
			res := arr(m, "results")[1].(map[string]any)
			res["metrics"] = map[string]any{}
			delete(res, "metric_stats")
			delete(res, "per_sample_scores")
		}, true, lasagna.MissingResults},
		{"result of unknown config", func(m map[string]any) {
			arr(m, "results")[1].(map[string]any)["config_name"] = "hybrid"
		}, true, lasagna.InvalidBundle},
		{"blocking code listed", func(m map[string]any) {
			obj(m, "integrity")["blocking"] = []any{lasagna.Finding{Code: lasagna.UnknownDocID, Where: "local/faq@0123456789ab/bm25/q01", Detail: "d99 is not in the corpus"}.String()}
		}, true, lasagna.UnknownDocID},
		{"ingest gap not listed", func(m map[string]any) {
			obj(arr(m, "configs")[0], "held_fixed")["corpus_ingest_gap"] = json.Number("3")
		}, true, lasagna.PartialCorpus},
		{"wrong type", func(m map[string]any) { obj(m, "experiment")["nothing_samples"] = "yes" }, true, lasagna.InvalidBundle},
		{"string embedder_dim", func(m map[string]any) {
			obj(arr(m, "configs")[0], "held_fixed")["embedder_dim"] = "768"
		}, true, lasagna.InvalidBundle},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			bad := edit(t, raw, func(m map[string]any) {
				c.edit(m)
				if c.rehash {
					rehash(t, m)
				}
			})
			r := Validate(bad)
			if !r.Has(c.want) {
				t.Fatalf("codes %v, want %s:%s", codes(r), c.want, problemLines(r))
			}
			if r.OK(false) {
				t.Errorf("a blocking problem passes validation:%s", problemLines(r))
			}
			for _, p := range r.Problems {
				if p.Where == "" {
					t.Errorf("problem without where: %s", p)
				}
			}
		})
	}
}

func TestLaterMinorVersionAccepted(t *testing.T) {
	raw := encode(t, retrievalBundle(t))
	later := edit(t, raw, func(m map[string]any) {
		m["schema_version"] = "1.3"
		m["provenance_chain"] = []any{"a", "b"}                                                 // unknown top-level field
		obj(arr(m, "configs")[0], "held_fixed")["reranker_depth"] = json.Number("50")           // unknown held_fixed field
		arr(arr(m, "results")[0], "per_sample_scores")[0].(map[string]any)["latency_ms"] = 12.5 // unknown row field
		rehash(t, m)
	})
	r := Validate(later)
	if len(r.Problems) != 0 {
		t.Fatalf("a 1.3 bundle with unknown optional fields is refused:%s", problemLines(r))
	}
	// A bundle edited after a 1.y writer hashed it still fails: the run_id
	// covers the unknown fields too.
	edited := bytes.Replace(later, []byte(`"latency_ms": 12.5`), []byte(`"latency_ms": 13.5`), 1)
	if bytes.Equal(edited, later) {
		t.Fatal("test edit did not apply")
	}
	if r := Validate(edited); !r.Has(lasagna.RunIDMismatch) {
		t.Errorf("editing an unknown field went unnoticed: %v", codes(r))
	}
	if _, err := Unmarshal(later); err != nil {
		t.Errorf("Read refuses a 1.3 bundle: %v", err)
	}
}

func TestNullOptionalsAccepted(t *testing.T) {
	// Another writer may spell "not applicable" as null.
	raw := encode(t, retrievalBundle(t))
	other := edit(t, raw, func(m map[string]any) {
		hf := obj(arr(m, "configs")[0], "held_fixed")
		for _, f := range []string{"embedder_model", "embedder_dim", "judge_model", "bm25_stemming", "corpus_provenance", "fixed_stages"} {
			hf[f] = nil
		}
		row := arr(arr(m, "results")[0], "per_sample_scores")[0].(map[string]any)
		row["answer"], row["error"], row["_retrieved_ids"] = nil, nil, nil
		m["submitter"] = nil
		arr(m, "results")[1].(map[string]any)["metric_stats"] = nil
		rehash(t, m)
	})
	if r := Validate(other); len(r.Problems) != 0 {
		t.Errorf("null optional fields refused:%s", problemLines(r))
	}
	b, err := Unmarshal(other)
	if err != nil {
		t.Fatal(err)
	}
	if b.Configs[0].HeldFixed.EmbedderDim != nil || b.Results[0].PerSampleScores[0].Answer != nil {
		t.Error("null did not read as absent")
	}
}

func TestAbsentIsNotZero(t *testing.T) {
	b := ragBundle(t)
	raw := encode(t, b)
	for _, want := range []string{`"embedder_dim": 0`, `"corpus_ingest_gap": 0`, `"bm25_stemming": false`, `"answer": ""`, `"_retrieved_ids": []`} {
		if !bytes.Contains(raw, []byte(want)) {
			t.Errorf("bundle lacks %s", want)
		}
	}
	for _, absent := range []string{`"retriever_top_k"`, `"chunker"`, `"fixed_stages"`} {
		if bytes.Contains(raw, []byte(absent)) {
			t.Errorf("bundle holds %s, which the run did not set", absent)
		}
	}
	// The failed query carries its error and no scores.
	got, err := Unmarshal(raw)
	if err != nil {
		t.Fatal(err)
	}
	row := got.Results[0].PerSampleScores[2]
	if row.Error == "" || row.Scores != nil {
		t.Errorf("failed row = %+v, want an error and no scores", row)
	}
	if st := got.Results[0].MetricStats["exact_match"]; st.N != 3 {
		t.Errorf("exact_match n = %d, want 3 (the failed query is not scored)", st.N)
	}
	if st := got.Results[0].MetricStats["judge_correctness"]; st.N != 2 {
		t.Errorf("judge_correctness n = %d, want 2 (a judge error is not a 0)", st.N)
	}
}

func TestFinalizeRefusesNaN(t *testing.T) {
	b := minimalBundle(t)
	b.Results[0].Metrics["exact_match"] = zero() / zero()
	err := Finalize(b)
	if err == nil || !strings.Contains(err.Error(), "NaN") {
		t.Errorf("Finalize with a NaN metric: %v, want an error naming NaN", err)
	}
}

func zero() float64 { return 0 }

func TestReadErrors(t *testing.T) {
	for _, c := range []struct{ in, want string }{
		{"", "empty input"},
		{"{\n  \"configs\": 3\n}", "line 2, column 14: field configs: got a json number, want an array"},
		{"{\n  \"run_id\": \"x\",\n  oops\n}", "line 3, column 3: invalid json"},
		{"{} {}", "line 1, column 4: unexpected data after the bundle object"},
		{`{"schema_version": "1.0"`, "truncated"},
	} {
		_, err := Unmarshal([]byte(c.in))
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Unmarshal(%q) = %v, want an error containing %q", c.in, err, c.want)
		}
	}
	if _, err := ReadFile(filepath.Join(t.TempDir(), "nope.json")); err == nil {
		t.Error("ReadFile of a missing file succeeded")
	}
}

func TestValidateNonBundles(t *testing.T) {
	for _, in := range []string{"", "[]", "null", "{", `{"schema_version": 1}`, `{"schema_version": "1.0"}`} {
		r := Validate([]byte(in))
		if r.OK(false) {
			t.Errorf("Validate(%q) passed", in)
		}
	}
}

func TestParseFinding(t *testing.T) {
	f := lasagna.Finding{Code: lasagna.PipelineErrors, Where: "b@1/arm/q 7", Detail: "boom: bad"}
	got := parseFinding(f.String())
	info, _ := lasagna.PipelineErrors.Info()
	if got.Code != f.Code || got.Where != f.Where || got.Detail != "boom: bad" || got.Fix != info.Fix || got != newFinding(f) {
		t.Errorf("parseFinding(%q) = %+v, want %+v", f.String(), got, newFinding(f))
	}
	if got := parseFinding("SINGLE_RUN: only one"); got.Code != lasagna.SingleRun || got.Where != "" || got.Detail != "only one" || got.Fix != "" {
		t.Errorf("parseFinding without where = %+v", got)
	}
	if got := parseFinding("not a code"); got.Code != "" || got.String() != "not a code" {
		t.Errorf("parseFinding of a line without a code = %+v", got)
	}
	// Any line is written back byte for byte: one in the form String
	// writes, and ones edited by hand or written by another release.
	for _, line := range []string{f.String(), "SINGLE_RUN: only one", "not a code", "PIPELINE_ERRORS at b/a: x (fix: an older fix)",
		"PIPELINE_ERRORS at b/a: x (fix: " + info.Fix + ") and more", "", "UNKNOWN_CODE at x: y (fix: z)"} {
		if got := parseFinding(line).String(); got != line {
			t.Errorf("parseFinding(%q).String() = %q", line, got)
		}
	}
	// lasagna.Finding.String writes the same line as the bundle's form.
	for _, info := range lasagna.Catalogue() {
		for _, lf := range []lasagna.Finding{{Code: info.Code}, {Code: info.Code, Where: "b/a", Detail: "d"}} {
			if lf.String() != newFinding(lf).String() {
				t.Errorf("%s: lasagna.Finding.String %q, results.Finding.String %q", info.Code, lf.String(), newFinding(lf).String())
			}
		}
	}
}

func TestCatalogueMarkdown(t *testing.T) {
	md := catalogueMarkdown()
	for _, info := range lasagna.Catalogue() {
		if !strings.Contains(md, "| `"+string(info.Code)+"` | "+string(info.Level)+" |") {
			t.Errorf("catalogue table lacks %s", info.Code)
		}
	}
	if !strings.Contains(md, string(lasagna.InvalidBundle)) {
		t.Error("catalogue table lacks the validation codes")
	}
}
