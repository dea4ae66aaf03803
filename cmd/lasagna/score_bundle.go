package main

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
	"github.com/lasagna-go/lasagna/engine"
	"github.com/lasagna-go/lasagna/results"
)

// scoreBundle replays predictions produced elsewhere through the engine, as
// one arm named after the predictions file, and returns the finalized
// bundle. A dataset query without a prediction is a failed row ("no
// prediction", raising PIPELINE_ERRORS) rather than a zero: the bundle
// states what was not measured, while the printed table follows SQuAD's
// convention of scoring it 0.
func scoreBundle(ctx context.Context, b *lasagna.Benchmark, preds map[string]datasets.Prediction, predPath string, cutoffs []int, seed uint64) (*results.Bundle, error) {
	sel, info, err := datasets.Select(b, datasets.Selection{})
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(filepath.Base(predPath), filepath.Ext(predPath))
	arm := engine.Arm{Name: safeName(name), TopK: 1, Stages: map[lasagna.Stage]string{"retriever": "predictions " + filepath.Base(predPath)}}
	for _, p := range preds {
		arm.Retrieves = arm.Retrieves || p.Hits != nil
		arm.Answers = arm.Answers || p.Answered || p.Abstained
		arm.TopK = max(arm.TopK, len(p.Hits))
	}
	if arm.Answers && !arm.Retrieves {
		arm.Stages = map[lasagna.Stage]string{"generator": "predictions " + filepath.Base(predPath)}
		// Answers need no passages to be scored: on data without contexts
		// the arm is scored as closed-book.
		arm.ClosedBook = datasets.RequireTracks(sel, lasagna.TrackGeneration) != nil
	}
	arm.Build = func(context.Context, *lasagna.Benchmark) (lasagna.Pipeline, error) {
		return lasagna.PipelineFunc(func(ctx context.Context, q lasagna.Query) (lasagna.Output, error) {
			p, ok := preds[q.ID]
			if !ok {
				return lasagna.Output{}, fmt.Errorf("no prediction for query %q in %s", q.ID, filepath.Base(predPath))
			}
			return p.Output(), nil
		}), nil
	}
	rep, err := engine.Run(ctx, []*engine.BenchmarkRun{{Benchmark: sel, Sample: info}}, []engine.Arm{arm}, engine.Options{Cutoffs: cutoffs})
	if err != nil {
		return nil, err
	}
	return rep.Bundle(engine.BundleOptions{LasagnaVersion: version, StatsSeed: seed})
}
