// Package evaltest evaluates RAG pipelines as Go tests: one call to Run in a
// test function expands benchmarks × arms × queries into subtests, calls
// the pipelines, scores them, checks thresholds and regression gates,
// writes a results bundle, and fails on blocking integrity problems.
//
// # Quick start
//
// Put a dataset beside the test (JSONL: one {"id", "question", "answer",
// "contexts", "expected_docs"} object per line; see package datasets) and
// write:
//
//	package search_test
//
//	import (
//		"context"
//		"testing"
//
//		"github.com/lasagna-go/lasagna"
//		"github.com/lasagna-go/lasagna/evaltest"
//	)
//
//	func TestRAG(t *testing.T) {
//		mine := lasagna.RetrieverFunc(func(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
//			return search(ctx, q.Text, k) // your system: ranked corpus ids, best first
//		})
//		evaltest.Run(t, evaltest.Config{
//			Benchmarks: []string{"testdata/faq.jsonl"},
//			Arms: []evaltest.Arm{
//				{Name: "mine", Retriever: mine, Thresholds: []evaltest.Threshold{
//					evaltest.AtLeast("ndcg@10", 0.6),
//					evaltest.PerQuery(evaltest.AtLeast("recall@10", 1)),
//				}},
//				evaltest.BM25(), // a built-in baseline beside it
//			},
//			Baseline: "testdata/baseline.json", // regression gate (optional)
//		})
//	}
//
// `go test -run TestRAG -v` then shows TestRAG/faq/mine/<query id> and
// TestRAG/faq/bm25/<query id> subtests; `go test -run 'TestRAG/faq/mine/q17$'`
// reruns one query (and calls the pipeline for it alone). See Run for what
// each level checks.
//
// # Metrics, attrs and JUnit
//
// Each query subtest records its metrics with t.Attr as lasagna.<metric>
// (by default every metric the query scored: lasagna.ndcg@10,
// lasagna.recall@10, lasagna.mrr, lasagna.exact_match, lasagna.token_f1
// first, then the others by name — every cutoff, the Vecta set metrics
// such as lasagna.chunk_f1 when the data and the hits have them, the
// judge's and the scorers' metrics — and lasagna.latency_ms; see
// Config.AttrMetrics and lasagna.Hit) and the original id as
// lasagna.query_id. `go test -json` carries them as "attr" events, and
// gotestsum --junitfile writes them as <properties> of each test case.
//
// # Thresholds
//
// AtLeast and AtMost bound an arm's mean over its scored queries, checked
// by the arm subtest once its queries have finished; PerQuery makes a
// threshold apply to each query inside its subtest. Config.Thresholds
// apply to every arm, Arm.Thresholds to one.
//
// # Baselines
//
// With Config.Baseline set, each arm is compared query by query with the
// same arm of the committed baseline bundle; a metric fails only when its
// mean dropped by more than Gate.Tolerance and the drop is significant
// (paired sign-flip test, Holm-adjusted across the gated metrics, below
// Gate.Alpha). Record or refresh the baseline with
//
//	LASAGNA_UPDATE_BASELINE=1 go test -run '^TestRAG$' -count=1 ./search
//
// and commit the file. A baseline gates only an arm whose data and
// held_fixed description are unchanged; otherwise the gate says so and
// asks for a new baseline. One exception: a benchmark that grew (a query
// added, changed or removed, so its revision changed) on the same corpus
// is gated on the queries whose id and content are unchanged, and the
// gate's lines say how many were added, changed and removed. A changed
// corpus, or a baseline written before lasagna recorded the corpus and
// query digests, still asks for a new baseline.
//
// # Repeats
//
// An arm that calls a sampling LLM sets Arm.Samples (an arm built on
// package generate's generators, or judged, samples without it). Config.Repeats = N
// then runs each of its queries N times inside the query's subtest and
// Config.Pass (All, Majority or RateAtLeast) decides from how many repeats
// met the PerQuery thresholds; the bundle keeps each metric's mean over the
// repeats. Pipelines read the repeat index with Repeat(ctx). A sampling arm
// run once raises the SINGLE_RUN warning.
//
// # Environment
//
// Run reads only these variables (custom test flags would break
// `go test ./...`):
//
//   - LASAGNA_OUT: the folder bundles are written to when go test runs
//     without -artifacts (default: $TMPDIR/lasagna-bundles/<module>-<hash>,
//     one folder per module checkout). With -artifacts the bundle goes to
//     t.ArtifactDir() instead. The file is
//     lasagna-<package folder>-<test name>[-shard-i-of-n][-run-<hash>].json;
//     -run-<hash> marks a run that -run or -skip cut to some of its
//     queries, so it never overwrites the whole run's bundle.
//   - LASAGNA_UPDATE_BASELINE=1: rewrite Config.Baseline from this run
//     (refused for a shard, a -run subset, a run that fails a threshold or
//     a query, or a run with blocking findings).
//   - LASAGNA_LATENCY=1: record each query's latency_ms in the bundle (off
//     by default: wall time makes the bundle differ from run to run).
//   - LASAGNA_SHARD=i/n: run shard i of n of every benchmark's queries,
//     chosen by position among the sorted query ids, so n CI jobs split the
//     work deterministically; `lasagna results merge` joins their bundles.
//     LASAGNA_SHARD=ci reads the CI runner's parallel-job variables
//     (CircleCI, Buildkite, GitLab CI). Unset, Bazel's test sharding
//     protocol applies: TEST_TOTAL_SHARDS and TEST_SHARD_INDEX as
//     <index+1>/<total>, TEST_SHARD_STATUS_FILE touched, the bundle in
//     TEST_UNDECLARED_OUTPUTS_DIR — except under a test main that already
//     gives each shard whole test functions (rules_go's), where the test
//     runs all its queries (docs/evaltest.md, "Sharding").
//   - LASAGNA_CONCURRENCY: pipeline calls in flight in one Run (default 8),
//     independent of -parallel, which caps CPU-bound tests.
//   - LASAGNA_DRY_RUN=1: log the run's LLM calls, estimated tokens and
//     estimated cost per arm and stage on the root test and skip it:
//     nothing is called and no bundle is written.
//   - LASAGNA_MAX_COST: cap the run's LLM spending in US dollars; once the
//     cost spent plus the next query's estimate would pass it, no further
//     query starts and the root test fails as partial.
//   - LASAGNA_LIVE=1: let tests that call a real LLM run (package
//     evaltest/evalllm: RequireLive, Config, Client); without it they
//     skip, so `go test ./...` stays offline.
//   - LASAGNA_CACHE_DIR: the LLM response cache folder evalllm.Config sets.
//   - GITHUB_STEP_SUMMARY: when set (as GitHub Actions does), a Markdown
//     summary is appended to that file.
//
// # Go's test cache
//
// go test caches a passing package result, keyed on the test binary, the
// files it opened and the environment variables it read. An offline
// evaluation (datasets in the package, fake or deterministic pipelines) is
// therefore cached correctly and reruns when the data or code changes. A
// pipeline that calls a network service is invisible to that key: run such
// evaluations, and every LASAGNA_LIVE=1 run, with -count=1. A cached run
// replays its output and attrs but does not rewrite the bundle.
//
// # Other test frameworks
//
// Evaluate runs the same tree without a *testing.T and returns an
// Evaluation: every test with its outcome, messages and attrs, and the
// bundle, as plain values that assertion libraries and framework adapters
// (ginkgo, testify suites) read directly.
//
// # Bundles and reporters
//
// The bundle (package results, schema 1.0) holds every config, aggregate
// metric with its confidence interval, per-query scores and ranked lists,
// and the integrity findings. The parent test logs where it was written and
// a summary table; Config.Reporters (package reporters) receive the same
// bundle.
package evaltest
