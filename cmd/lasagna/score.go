package main

import (
	"bufio"
	"context"
	"encoding/csv"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
	"github.com/lasagna-go/lasagna/metrics"
	"github.com/lasagna-go/lasagna/results"
)

// scoreListMax is how many ids a "missing"/"unknown" note lists before it
// says "and N more".
const scoreListMax = 10

func newScoreCmd(stdout io.Writer) *cobra.Command {
	var (
		perQuery  string
		out       string
		format    string
		cutoffs   []int
		seed      uint64
		resamples int
	)
	cmd := &cobra.Command{
		Use:   "score DATA PREDICTIONS",
		Short: "Score predictions produced elsewhere against a benchmark",
		Long: `Score predictions produced elsewhere against a benchmark.

DATA is a benchmark: a .jsonl or .csv file, a Vecta benchmark CSV, or a BEIR
folder. PREDICTIONS is a predictions JSONL file (name ending in .jsonl:
{"id", "answer", "retrieved", "abstained"} per line) or, for any other name,
a TREC run file (qid Q0 docid rank score tag).

Answer metrics (exact_match, token_f1; SQuAD normalisation, max over the
reference answers, unanswerable questions per SQuAD v2.0) are averaged over
every dataset question that has an answer or is marked unanswerable; a
question without a prediction scores 0, as in SQuAD's evaluation script.
They are computed when some prediction line has an "answer" (or
"abstained": true).

Retrieval metrics (trec_eval semantics, one family per -k cutoff) are
averaged over the dataset queries with at least one relevant judged
document; such a query without retrieved documents scores 0. For a Vecta
benchmark, chunk_precision/recall/f1 compare the whole retrieved list with
the entry's chunk_ids, averaged over the entries that have chunk_ids.

Each mean is printed with n and a 95% percentile bootstrap confidence
interval (seeded: the same --seed gives the same interval).`,
		Args: exactArgs(2),
		RunE: func(c *cobra.Command, args []string) error {
			switch format {
			case "auto", "jsonl", "csv", "vecta", "beir":
			default:
				return usageError("benchmark score: --format %q is not one of auto, jsonl, csv, vecta, beir", format)
			}
			if len(cutoffs) == 0 {
				return usageError("benchmark score: -k needs at least one cutoff")
			}
			for _, k := range cutoffs {
				if k < 1 {
					return usageError("benchmark score: cutoff %d is not positive (-k 1,5,10)", k)
				}
			}
			if resamples < 1 {
				return usageError("benchmark score: --resamples %d must be at least 1", resamples)
			}
			cuts := slices.Clone(cutoffs)
			slices.Sort(cuts)
			cuts = slices.Compact(cuts)
			return runScore(stdout, args[0], args[1], scoreConfig{
				format: format, cutoffs: cuts, perQuery: perQuery, out: out,
				boot: metrics.BootstrapOptions{Seed: seed, Resamples: resamples},
			})
		},
	}
	f := cmd.Flags()
	f.StringVar(&perQuery, "per-query", "", "write per-query scores to this TSV file (id, then one column per metric; empty cell = not in that metric's averaging set)")
	f.StringVarP(&out, "out", "o", "", "also write a results bundle here (queries without a prediction are failed rows in it, raising PIPELINE_ERRORS)")
	f.IntSliceVarP(&cutoffs, "cutoffs", "k", []int{10}, "retrieval cutoffs, e.g. -k 1,5,10")
	f.StringVar(&format, "format", "auto", "dataset format: auto (by name; a .csv whose header has chunk_ids, page_nums or source_paths is a Vecta CSV), jsonl, csv, vecta, beir")
	f.Uint64Var(&seed, "seed", 1, "seed of the bootstrap confidence intervals")
	f.IntVar(&resamples, "resamples", metrics.DefaultResamples, "bootstrap resamples per confidence interval")
	return cmd
}

type scoreConfig struct {
	format   string
	cutoffs  []int
	perQuery string
	out      string
	boot     metrics.BootstrapOptions
}

// scoreColumn is one metric: its per-query values over its averaging set.
type scoreColumn struct {
	name string
	vals map[string]float64 // query id → value, for the queries in the averaging set
}

func runScore(stdout io.Writer, dataPath, predPath string, cfg scoreConfig) error {
	b, err := scoreLoadBenchmark(dataPath, cfg.format)
	if err != nil {
		return problems(err)
	}
	preds, predLines, isRun, err := scoreLoadPredictions(predPath)
	if err != nil {
		return problems(err)
	}

	known := make(map[string]bool, len(b.Queries))
	for _, q := range b.Queries {
		known[q.ID] = true
	}
	var unknown, missing []string
	for id := range preds {
		if !known[id] {
			unknown = append(unknown, id)
		}
	}
	slices.Sort(unknown)
	for _, q := range b.Queries {
		if _, ok := preds[q.ID]; !ok {
			missing = append(missing, q.ID)
		}
	}

	var cols []*scoreColumn
	var notes []string
	col := func(name string) *scoreColumn {
		c := &scoreColumn{name: name, vals: map[string]float64{}}
		cols = append(cols, c)
		return c
	}

	// Answers.
	hasAnswers := false
	for _, p := range preds {
		if p.Answered || p.Abstained {
			hasAnswers = true
			break
		}
	}
	switch {
	case hasAnswers && b.HasAnswers():
		em, f1 := col("exact_match"), col("token_f1")
		for _, q := range b.Queries {
			if len(q.Answers) == 0 && !q.Unanswerable {
				continue
			}
			var s metrics.AnswerScore // a missing prediction scores 0
			if p, ok := preds[q.ID]; ok && (p.Answered || p.Abstained) {
				s = metrics.ScoreAnswer(p.Answer, q.Answers, metrics.AnswerOptions{Abstained: p.Abstained, Unanswerable: q.Unanswerable})
			}
			em.vals[q.ID], f1.vals[q.ID] = s.ExactMatch, s.TokenF1
		}
	case hasAnswers:
		notes = append(notes, "answer metrics not computed: the dataset has no reference answers")
	}

	// Retrieval.
	hasHits := isRun
	for _, p := range preds {
		if p.Hits != nil {
			hasHits = true
			break
		}
	}
	if hasHits {
		if err := scoreRetrieval(b, preds, cfg.cutoffs, col, &notes); err != nil {
			return problems(err)
		}
	}
	if !hasAnswers && !hasHits {
		return problems(fmt.Errorf("%s: no prediction has an answer or a retrieved list; nothing to score", predPath))
	}

	w := bufio.NewWriter(stdout)
	fmt.Fprintf(w, "benchmark    %s (%d queries)\n", b.Name, len(b.Queries))
	kind := "predictions"
	if isRun {
		kind = "TREC run"
	}
	fmt.Fprintf(w, "predictions  %s (%s, %d queries)\n\n", predPath, kind, predLines)
	tw := tabwriter.NewWriter(w, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "metric\tn\tmean\t95% CI")
	small := false
	sums := scoreSummaries(b, cols, cfg.boot)
	for i, c := range cols {
		s := sums[i]
		flag := ""
		if s.SmallSample {
			flag, small = "*", true
		}
		if s.N == 0 {
			fmt.Fprintf(tw, "%s\t0\t-\t-\n", c.name)
			continue
		}
		fmt.Fprintf(tw, "%s\t%d\t%.4f\t[%.4f, %.4f]%s\n", c.name, s.N, s.Mean, s.Lo, s.Hi, flag)
	}
	tw.Flush()
	if small {
		fmt.Fprintf(w, "* n < %d: the confidence interval is indicative only\n", metrics.SmallSampleN)
	}
	if len(missing) > 0 {
		fmt.Fprintf(w, "\n%d dataset quer%s no prediction (scored 0 in each average that includes it): %s\n", len(missing), scorePlural(len(missing), "y has", "ies have"), scoreList(missing))
	}
	if len(unknown) > 0 {
		fmt.Fprintf(w, "\n%d prediction id%s not in the dataset (ignored): %s\n", len(unknown), scorePlural(len(unknown), " is", "s are"), scoreList(unknown))
	}
	for _, n := range notes {
		fmt.Fprintf(w, "\nnote: %s\n", n)
	}
	if err := w.Flush(); err != nil {
		return err
	}
	if cfg.perQuery != "" {
		if err := scoreWriteTSV(cfg.perQuery, b, cols); err != nil {
			return problems(err)
		}
	}
	if cfg.out != "" {
		bundle, err := scoreBundle(context.Background(), b, preds, predPath, cfg.cutoffs, cfg.boot.Seed)
		if err != nil {
			return problems(err)
		}
		if err := results.WriteFile(cfg.out, bundle); err != nil {
			return err
		}
		fmt.Fprintf(stdout, "\nbundle: %s\n", cfg.out)
		for _, line := range bundle.Integrity.Blocking {
			fmt.Fprintf(stdout, "blocking: %s\n", line)
		}
	}
	return nil
}

// scoreSummaries summarises each column over its values in dataset order
// (so the bootstrap is reproducible), one column per CPU at a time.
func scoreSummaries(b *lasagna.Benchmark, cols []*scoreColumn, o metrics.BootstrapOptions) []metrics.Summary {
	out := make([]metrics.Summary, len(cols))
	sem := make(chan struct{}, runtime.GOMAXPROCS(0))
	var wg sync.WaitGroup
	for i, c := range cols {
		xs := make([]float64, 0, len(c.vals))
		for _, q := range b.Queries {
			if v, ok := c.vals[q.ID]; ok {
				xs = append(xs, v)
			}
		}
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			out[i] = metrics.Summarize(xs, o)
		})
	}
	wg.Wait()
	return out
}

// scoreRetrieval adds the retrieval (and Vecta chunk-level) columns.
func scoreRetrieval(b *lasagna.Benchmark, preds map[string]datasets.Prediction, cutoffs []int, col func(string) *scoreColumn, notes *[]string) error {
	var names []string
	for _, k := range cutoffs {
		s := strconv.Itoa(k)
		names = append(names, "ndcg@"+s, "recall@"+s, "precision@"+s, "mrr@"+s, "map@"+s, "hit@"+s)
	}
	names = append(names, "ndcg", "mrr", "map", "r_precision")
	byName := map[string]*scoreColumn{}
	if len(b.Qrels) > 0 {
		for _, n := range names {
			byName[n] = col(n)
		}
	}
	vecta := b.Format == lasagna.FormatVecta
	var chunkCols [3]*scoreColumn
	if vecta {
		chunkCols = [3]*scoreColumn{col("chunk_precision"), col("chunk_recall"), col("chunk_f1")}
	}
	noRel := 0
	for _, q := range b.Queries {
		p := preds[q.ID]
		ranked := make([]string, len(p.Hits))
		for i, h := range p.Hits {
			ranked[i] = h.ID
		}
		if len(b.Qrels) > 0 {
			judged := b.Qrels[q.ID]
			if len(b.Qrels.Relevant(q.ID)) == 0 {
				noRel++
			} else {
				m, err := metrics.Retrieval(ranked, judged, cutoffs)
				if err != nil {
					if p.Pos.File != "" {
						return fmt.Errorf("%s: query %q: %w", p.Pos, q.ID, err)
					}
					return fmt.Errorf("query %q: %w", q.ID, err)
				}
				for _, n := range names {
					byName[n].vals[q.ID] = m[n]
				}
			}
		}
		if vecta {
			gold := metrics.VectaRefs{ChunkIDs: scoreMetaStrings(q.Metadata["chunk_ids"])}
			s := metrics.ScoreVecta(metrics.VectaRefs{ChunkIDs: ranked}, gold)
			if s.Chunk.OK {
				chunkCols[0].vals[q.ID] = s.Chunk.Precision
				chunkCols[1].vals[q.ID] = s.Chunk.Recall
				chunkCols[2].vals[q.ID] = s.Chunk.F1
			}
		}
	}
	if len(b.Qrels) == 0 && !vecta {
		*notes = append(*notes, "retrieval metrics not computed: the dataset has no relevance judgements")
	}
	if noRel > 0 && len(b.Qrels) > 0 {
		*notes = append(*notes, fmt.Sprintf("retrieval metrics averaged over the %d queries with a relevant document; %d without one are left out", len(b.Queries)-noRel, noRel))
	}
	if vecta {
		hasPages, hasSources := false, false
		for _, q := range b.Queries {
			hasPages = hasPages || q.Metadata["page_nums"] != nil
			hasSources = hasSources || q.Metadata["source_paths"] != nil
		}
		if hasPages || hasSources {
			*notes = append(*notes, "page_* and document_* metrics not available: predictions list chunk ids only, without page numbers or source paths")
		}
	}
	return nil
}

// scoreMetaStrings reads a []string (or []any of strings) metadata value.
func scoreMetaStrings(v any) []string {
	switch x := v.(type) {
	case []string:
		return x
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			if s, ok := e.(string); ok {
				out = append(out, s)
			}
		}
		return out
	}
	return nil
}

// scoreFS opens p as a path in an fs.FS, keeping the user's spelling in error
// positions when p is local to the working directory.
func scoreFS(p string) (fs.FS, string, error) {
	if filepath.IsLocal(p) {
		return os.DirFS("."), filepath.ToSlash(filepath.Clean(p)), nil
	}
	abs, err := filepath.Abs(p)
	if err != nil {
		return nil, "", err
	}
	dir, base := filepath.Split(abs)
	return os.DirFS(dir), base, nil
}

func scoreLoadBenchmark(p, format string) (*lasagna.Benchmark, error) {
	fsys, name, err := scoreFS(p)
	if err != nil {
		return nil, err
	}
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
	f, err := fsys.Open(name)
	if err != nil {
		return false, err
	}
	defer f.Close()
	r := csv.NewReader(f)
	header, err := r.Read()
	if err != nil {
		return false, nil // let the CSV loader report it with its position
	}
	for _, h := range header {
		switch strings.TrimSpace(strings.TrimPrefix(h, "\ufeff")) {
		case "chunk_ids", "page_nums", "source_paths":
			return true, nil
		}
	}
	return false, nil
}

// scoreLoadPredictions reads a predictions JSONL file (name ending in
// .jsonl) or a TREC run, keyed by query id. lines is the number of queries
// it holds.
func scoreLoadPredictions(p string) (preds map[string]datasets.Prediction, lines int, isRun bool, err error) {
	if strings.EqualFold(filepath.Ext(p), ".jsonl") {
		fsys, name, err := scoreFS(p)
		if err != nil {
			return nil, 0, false, err
		}
		list, err := datasets.ReadPredictions(fsys, name)
		if err != nil {
			return nil, 0, false, err
		}
		preds = make(map[string]datasets.Prediction, len(list))
		for _, x := range list {
			preds[x.ID] = x
		}
		return preds, len(list), false, nil
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return nil, 0, true, err
	}
	run, err := datasets.ParseRun(p, data)
	if err != nil {
		return nil, 0, true, err
	}
	preds = make(map[string]datasets.Prediction, len(run.Hits))
	for id, hits := range run.Hits {
		preds[id] = datasets.Prediction{ID: id, Hits: hits}
	}
	return preds, len(run.Hits), true, nil
}

// scoreWriteTSV writes one row per dataset query scored by some metric.
func scoreWriteTSV(path string, b *lasagna.Benchmark, cols []*scoreColumn) error {
	var sb strings.Builder
	sb.WriteString("id")
	for _, c := range cols {
		sb.WriteString("\t" + c.name)
	}
	sb.WriteByte('\n')
	for _, q := range b.Queries {
		row := make([]string, len(cols))
		scored := false
		for i, c := range cols {
			if v, ok := c.vals[q.ID]; ok {
				row[i] = strconv.FormatFloat(v, 'g', -1, 64)
				scored = true
			}
		}
		if !scored {
			continue
		}
		sb.WriteString(scoreTSVField(q.ID))
		for _, cell := range row {
			sb.WriteString("\t" + cell)
		}
		sb.WriteByte('\n')
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		return fmt.Errorf("--per-query: %w", err)
	}
	return nil
}

// scoreTSVField replaces tabs and line breaks, which TSV cannot hold, in an id.
func scoreTSVField(s string) string {
	return strings.NewReplacer("\t", `\t`, "\n", `\n`, "\r", `\r`).Replace(s)
}

func scoreList(ids []string) string {
	if len(ids) <= scoreListMax {
		return strings.Join(ids, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(ids[:scoreListMax], ", "), len(ids)-scoreListMax)
}

func scorePlural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}
