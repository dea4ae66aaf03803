package main

import (
	"io"

	"github.com/spf13/cobra"
)

// newResultsBundleCmd is `lasagna results bundle DATA --predictions F |
// --run F`: the one command that makes a bundle without running a
// pipeline. `benchmark score` is the same code path printing to the
// console.
func newResultsBundleCmd(stdout io.Writer) *cobra.Command {
	var (
		f           replayFlags
		predictions string
		runFile     string
	)
	cmd := &cobra.Command{
		Use:   "bundle DATA (--predictions F.jsonl | --run RUN.trec) [-o out.json]",
		Short: "Make a results bundle from predictions made elsewhere, without running a pipeline",
		Long: `bundle makes a results bundle from a dataset and what another system
produced for it: a predictions JSONL file (--predictions; {"id", "answer",
"retrieved", "abstained", "passages"} per line) or a TREC run file (--run;
qid Q0 docid rank score tag, retrieval only).

The predictions are replayed through the engine as one arm (named after the
file, or --arm), whose pipeline returns each query's recorded prediction:
the bundle is scored, hashed and checked like a benchmark run's, so it can
be validated, compared, merged and used as a --baseline. The arm's mode
follows the predictions: retrieval (ranked lists), generation (answers; from
gold contexts when the data has them, else closed_book) or rag (both).

A dataset query without a prediction is a failed row (PIPELINE_ERRORS), as
a failed pipeline call is, never a 0; so is a line with "answer": null (or
no answer) when other lines answer, and one without "retrieved" when other
lines retrieve. The bundle is written all the same, and the command exits 1.

DATA is a .jsonl or .csv file, a Vecta benchmark CSV or a BEIR folder. The
bundle goes to -o (default lasagna-out/<run id>.json). ` + "`lasagna benchmark score`" + `
is this command printing to the console (and -o writes the same bundle).

Exit status: 0 written; 1 the data or predictions have problems, or the
bundle has blocking integrity problems (it is written); 2 usage errors.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			in, err := f.input("results bundle", args[0])
			if err != nil {
				return err
			}
			switch {
			case (predictions == "") == (runFile == ""):
				return usageError("results bundle: give exactly one of --predictions F.jsonl and --run RUN.trec (usage: %s)", c.UseLine())
			case predictions != "":
				in.predictions = predictions
			default:
				in.run = runFile
			}
			return replayAndReport(c.Context(), stdout, in, f.out, true, "")
		},
	}
	f.register(cmd, "write the bundle here (default lasagna-out/<run id>.json)")
	cmd.Flags().StringVar(&predictions, "predictions", "", "predictions JSONL `FILE` to replay")
	cmd.Flags().StringVar(&runFile, "run", "", "TREC run `FILE` to replay (retrieval only)")
	return cmd
}
