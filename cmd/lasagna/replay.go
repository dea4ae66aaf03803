package main

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/atomicfile"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/results"
)

// replayInput says what `results bundle` and `benchmark score` replay:
// predictions made elsewhere (a predictions JSONL file or a TREC run) on a
// dataset.
type replayInput struct {
	data   string // dataset path
	format string // auto, jsonl, csv, vecta, beir
	// predictions is a predictions JSONL file, run a TREC run file; one
	// is set.
	predictions, run string
	arm              string // arm name; "" means the file's stem
	cutoffs          []int  // @k cutoffs; nil means the engine's default
	seed             uint64 // bootstrap seed; 0 means the engine's default
	// ownIndex marks lists from a system that searches its own index
	// (engine.Arm.OwnIndex).
	ownIndex bool
	// topK is the arm's depth (retriever_top_k); 0 means the longest
	// list's length.
	topK int
	// slices are the metadata keys the bundle breaks the metrics down by
	// (engine.Options.Slices).
	slices []string
	// missingZero scores a query without a prediction 0 on every metric
	// (engine.Arm.MissingZero) instead of failing its row.
	missingZero bool
	// normalization is the answer normalisation ("" for squad, or orqa).
	normalization string
}

// replayed is the outcome of a replay: the engine's report and bundle,
// and what the console adds to them.
type replayed struct {
	bench  *lasagna.Benchmark
	arm    *engine.Arm
	rep    *engine.Report
	bundle *results.Bundle
	// source is the predictions or run file, kind "predictions" or "TREC
	// run", entries the number of queries it holds.
	source, kind string
	entries      int
	// missing are the dataset queries without a prediction (failed rows),
	// unknown the prediction ids that are not dataset queries (ignored).
	missing, unknown []string
	// scoresNothing is true when the engine scores nothing of the
	// predictions (a Vecta CSV with retrieved chunk ids only); the bundle
	// then holds no metric.
	scoresNothing bool
	// vecta holds the Vecta set metrics (chunk_*) of a Vecta CSV, computed
	// from the replayed outputs; they are not bundle metrics.
	vecta *results.ArmResult
	notes []string
}

// replay replays predictions made elsewhere through the engine, as one
// arm whose pipeline returns the recorded prediction of each query, and
// returns the report and the finalized bundle. The rule for a query
// without a prediction is the engine's for any failed pipeline call: a
// failed row (PIPELINE_ERRORS), never a 0. So is a prediction that lacks
// what the run scores: a null or absent "answer" when other lines answer,
// a null or absent "retrieved" when other lines retrieve. Errors are
// returned ready for exitCode.
func replay(ctx context.Context, in replayInput) (*replayed, error) {
	out, preds, err := loadReplay(in)
	if err != nil {
		return nil, err
	}
	sel, info, err := datasets.Select(out.bench, datasets.Selection{})
	if err != nil {
		return nil, problems(err)
	}
	if in.normalization != "" {
		sel.AnswerNormalization = in.normalization
	}
	sc, err := replayScope(in, sel, preds, out)
	if err != nil {
		return nil, err
	}
	arm, err := replayArm(in, sel, out, preds, sc)
	if err != nil {
		return nil, err
	}
	rep, err := engine.Run(ctx, []*engine.BenchmarkRun{{Benchmark: sel, Sample: info}}, []engine.Arm{arm}, engine.Options{Cutoffs: in.cutoffs, Slices: in.slices})
	if err != nil {
		return nil, problems(err)
	}
	out.rep, out.arm = rep, rep.Cells[0].Arm
	out.bundle, err = rep.Bundle(engine.BundleOptions{LasagnaVersion: version(), StatsSeed: in.seed})
	if err != nil {
		return nil, err
	}
	if sc.vecta {
		out.vecta = vectaSetMetrics(rep.Cells[0], preds, in.seed)
		hasPages, hasSources := false, false
		for _, q := range out.bench.Queries {
			hasPages = hasPages || q.Metadata["page_nums"] != nil
			hasSources = hasSources || q.Metadata["source_paths"] != nil
		}
		if hasPages || hasSources {
			out.notes = append(out.notes, "page_* and document_* metrics not available: predictions list chunk ids only, without page numbers or source paths")
		}
	}
	return out, nil
}

// loadReplay loads the dataset and the predictions (or TREC run) of in,
// keyed by query id, and lists the dataset queries without a prediction
// and the prediction ids that are not dataset queries.
func loadReplay(in replayInput) (*replayed, map[string]datasets.Prediction, error) {
	b, err := scoreLoadBenchmark(in.data, in.format)
	if err != nil {
		return nil, nil, problems(err)
	}
	out := &replayed{bench: b, kind: "predictions", source: in.predictions}
	var preds map[string]datasets.Prediction
	if in.run != "" {
		out.kind, out.source = "TREC run", in.run
		preds, err = loadRunPredictions(in.run)
	} else {
		preds, err = loadPredictions(in.predictions)
	}
	if err != nil {
		return nil, nil, problems(err)
	}
	out.entries = len(preds)

	known := make(map[string]bool, len(b.Queries))
	for _, q := range b.Queries {
		known[q.ID] = true
		if _, ok := preds[q.ID]; !ok {
			out.missing = append(out.missing, q.ID)
		}
	}
	for id := range preds {
		if !known[id] {
			out.unknown = append(out.unknown, id)
		}
	}
	slices.Sort(out.unknown)
	return out, preds, nil
}

// replayScoring is what a replay scores: the ranked lists (retrieves),
// the answers, the Vecta set metrics of a Vecta CSV's lists (vecta), and
// the depth of the longest list (topK, at least 1).
type replayScoring struct {
	retrieves, answers, vecta bool
	topK                      int
}

// replayScope decides what the predictions (or the TREC run) of in can
// be scored on in the selected dataset sel; what cannot be is a note on
// out, or an error when nothing is left to score.
func replayScope(in replayInput, sel *lasagna.Benchmark, preds map[string]datasets.Prediction, out *replayed) (replayScoring, error) {
	sc := replayScoring{retrieves: in.run != "", topK: 1}
	for _, p := range preds {
		sc.retrieves = sc.retrieves || p.Hits != nil
		sc.answers = sc.answers || p.Answered || p.Abstained
		sc.topK = max(sc.topK, len(p.Hits))
	}
	if !sc.retrieves && !sc.answers {
		return sc, problems(fmt.Errorf("%s: no prediction has an answer or a retrieved list; nothing to score", out.source))
	}
	sc.vecta = out.bench.Format == lasagna.FormatVecta && sc.retrieves
	if sc.answers && !sel.HasAnswers() {
		out.notes = append(out.notes, "answers not scored: the dataset has no reference answers (or unanswerable marks)")
		sc.answers = false
	}
	if sc.retrieves {
		if err := datasets.RequireTracks(sel, lasagna.TrackRetrieval); err != nil {
			switch {
			case sc.vecta:
				out.notes = append(out.notes, "ranked retrieval metrics (ndcg@k, recall@k, …) not computed: a Vecta CSV has no corpus to judge ranked lists against; its chunk_ids are scored by the Vecta set metrics")
			case !sc.answers:
				return sc, problems(fmt.Errorf("cannot score the retrieved lists of %s: %w", out.source, err))
			default:
				out.notes = append(out.notes, fmt.Sprintf("retrieved lists not scored: %v", err))
			}
			sc.retrieves = false
		}
	}
	return sc, nil
}

// replayArm is the arm that replays the predictions: named after the file
// (or in.arm), in the mode of what sc scores, its pipeline returning each
// query's recorded prediction (replayOutput). It sets out.scoresNothing.
func replayArm(in replayInput, sel *lasagna.Benchmark, out *replayed, preds map[string]datasets.Prediction, sc replayScoring) (engine.Arm, error) {
	base := filepath.Base(out.source)
	what := "predictions " + base
	if in.run != "" {
		what = "trec run " + base
	}
	name := in.arm
	if name == "" {
		name = atomicfile.SafeName(strings.TrimSuffix(base, filepath.Ext(base)))
	}
	topK := sc.topK
	if in.topK > 0 {
		topK = in.topK
	}
	arm := engine.Arm{Name: name, TopK: topK, Stages: map[lasagna.Stage]string{}, MissingZero: in.missingZero}
	switch {
	case sc.retrieves && sc.answers:
		arm.Mode = lasagna.ModeRAG
		arm.Stages[lasagna.StageRetriever] = what
		arm.Stages[lasagna.StageGenerator] = what
	case sc.retrieves:
		arm.Mode = lasagna.ModeRetrieval
		arm.Stages[lasagna.StageRetriever] = what
	default:
		arm.Stages[lasagna.StageGenerator] = what
		// Answers need no passages to be scored: on data without passages
		// the arm is scored as closed-book.
		arm.Mode = lasagna.ModeGeneration
		if datasets.RequireTracks(sel, lasagna.TrackGeneration) != nil {
			arm.Mode = lasagna.ModeClosedBook
		}
	}
	out.scoresNothing = !sc.retrieves && !sc.answers
	if in.ownIndex {
		if !sc.retrieves {
			return arm, problems(fmt.Errorf("--own-index: %s has no ranked list the run scores; drop --own-index", out.source))
		}
		arm.OwnIndex = true
	}
	retrieves, answers, needHits := sc.retrieves, sc.answers, sc.retrieves || sc.vecta
	arm.Pipeline = func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) {
		return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
			return replayOutput(preds, q.ID, base, needHits, retrieves, answers)
		}), nil
	}
	return arm, nil
}

// replayOutput is the replayed pipeline's output for query id: the
// recorded prediction, or an error when there is none or it lacks what the
// run scores (an answer when answers is set, a ranked list when needHits
// is). Answers the run does not score are dropped, and so are ranked lists
// unless keepHits is set.
func replayOutput(preds map[string]datasets.Prediction, id, file string, needHits, keepHits, answers bool) (lasagna.Output, error) {
	p, ok := preds[id]
	if !ok {
		return lasagna.Output{}, fmt.Errorf("%w for query %q in %s", engine.ErrNoPrediction, id, file)
	}
	at := file
	if p.Pos.File != "" {
		at = p.Pos.String()
	}
	if answers && !p.Answered && !p.Abstained {
		return lasagna.Output{}, fmt.Errorf("%s: the prediction for query %q has no answer (\"answer\" is null or absent) while other lines answer; give a string (\"\" for an empty answer) or \"abstained\": true", at, id)
	}
	if needHits && p.Hits == nil {
		return lasagna.Output{}, fmt.Errorf("%s: the prediction for query %q has no ranked list (\"retrieved\" is null or absent) while other lines retrieve; give [] for an empty list", at, id)
	}
	out := p.Output()
	// An abstention is an answer: it scores 1 on an unanswerable question.
	out.Answered = out.Answered || out.Abstained
	if !answers {
		out.Answer, out.Answered, out.Abstained, out.Passages = "", false, false, nil
	}
	if !keepHits {
		out.Hits = nil
	}
	return out, nil
}

// vectaSetMetrics averages the Vecta set metrics of cell c as the engine
// scores them (engine.VectaScores): a Vecta CSV's chunk_ids against each
// prediction's retrieved list, taken whole, over the entries that have
// chunk_ids and whose replay did not fail (failed rows are left out, as
// the bundle's metrics leave them out). A Vecta CSV has no corpus, so the
// lists are kept out of the run (their ids would all be unknown
// documents) and scored here from the predictions.
func vectaSetMetrics(c *engine.Cell, preds map[string]datasets.Prediction, seed uint64) *results.ArmResult {
	per := map[string][]float64{}
	for _, r := range c.Queries {
		if r.Err != nil {
			continue
		}
		for n, v := range engine.VectaScores(c.Bench.Benchmark, r.Query, preds[r.Query.ID].Hits) {
			per[n] = append(per[n], v)
		}
	}
	a := &results.ArmResult{Label: c.Arm.Name, Config: results.Config{Name: c.Arm.Name, Benchmark: c.Bench.Benchmark.Name},
		Result: results.Result{Metrics: map[string]float64{}, MetricStats: map[string]results.MetricStat{}}}
	for _, n := range metrics.VectaMetricNames() {
		if xs, ok := per[n]; ok {
			st := results.NewMetricStat(xs, results.StatsOptions{Seed: orSeed(seed)})
			a.Result.Metrics[n] = st.Mean
			a.Result.MetricStats[n] = st
		}
	}
	return a
}

func orSeed(s uint64) uint64 {
	if s == 0 {
		return engine.DefaultSeed
	}
	return s
}

// scoreLoadBenchmark loads the dataset at p in the given format (auto: by
// name; a .csv whose header names a Vecta column is a Vecta CSV).
func scoreLoadBenchmark(p, format string) (*lasagna.Benchmark, error) {
	fsys, name := cliPath(p)
	if format == "auto" && strings.EqualFold(filepath.Ext(p), ".csv") {
		if vecta, err := scoreIsVectaCSV(fsys, name); err != nil {
			return nil, err
		} else if vecta {
			format = "vecta"
		}
	}
	switch format {
	case "vecta":
		return datasets.LoadVectaCSV(fsys, name, datasets.Options{})
	case "jsonl":
		return datasets.LoadJSONL(fsys, name, datasets.Options{})
	case "csv":
		return datasets.LoadCSV(fsys, name, datasets.Options{})
	case "beir":
		return datasets.LoadBEIR(fsys, name, datasets.Options{})
	}
	return datasets.Load(fsys, name, datasets.Options{})
}

// scoreIsVectaCSV reports whether the CSV header names a Vecta-only column.
func scoreIsVectaCSV(fsys fs.FS, name string) (bool, error) {
	return datasets.IsVectaCSV(fsys, name)
}

// loadPredictions reads a predictions JSONL file, keyed by query id.
func loadPredictions(p string) (map[string]datasets.Prediction, error) {
	fsys, name := cliPath(p)
	list, err := datasets.ReadPredictions(fsys, name)
	if err != nil {
		return nil, err
	}
	preds := make(map[string]datasets.Prediction, len(list))
	for _, x := range list {
		preds[x.ID] = x
	}
	return preds, nil
}

// loadRunPredictions reads a TREC run file as retrieval-only predictions,
// keyed by query id, each list in trec_eval's rank order.
func loadRunPredictions(p string) (map[string]datasets.Prediction, error) {
	fsys, name := cliPath(p)
	run, err := datasets.ReadRun(fsys, name)
	if err != nil {
		return nil, err
	}
	if len(run.Hits) == 0 {
		return nil, errors.New(p + ": the run file holds no line")
	}
	preds := make(map[string]datasets.Prediction, len(run.Hits))
	for id, hits := range run.Hits {
		preds[id] = datasets.Prediction{ID: id, Hits: hits}
	}
	return preds, nil
}
