package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
	idatasets "github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/spf13/cobra"
)

// newValidateDataCmd is `lasagna benchmark validate-data PATH`: it loads a
// JSONL or CSV file or a BEIR folder, prints the name the benchmark
// registers under, its counts and the tracks it supports, or every problem
// with file:line. Exit 0 valid, 1 problems, 2 usage.
func newValidateDataCmd(stdout io.Writer) *cobra.Command {
	var opts datasets.Options
	var format, corpus string
	cmd := &cobra.Command{
		Use:   "validate-data PATH",
		Short: "Check a JSONL/CSV file or BEIR folder and show what it supports",
		Long: `validate-data reads a benchmark (a .jsonl or .csv file, or a BEIR folder with
corpus.jsonl, queries.jsonl and qrels/<split>.tsv) and prints the name it
registers under (local/<stem>@<12 hex of sha256>, or <name>@... with --name),
the number of rows, documents and judgements, which tracks it supports (and
why not the others), or every problem found with file:line.
Exit status: 0 valid, 1 the data has problems, 2 usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o := opts
			if corpus != "" {
				if _, err := os.Stat(corpus); err != nil {
					return usageError("validate-data: --corpus %s: no such file", corpus)
				}
				_, o.Corpus = cliPath(corpus)
			}
			return validateData(stdout, args[0], o, format)
		},
	}
	cmd.Flags().StringVar(&opts.Name, "name", "", "register under `NAME`@<hash> instead of local/<stem>@<hash>")
	cmd.Flags().StringVar(&opts.Split, "split", "", "BEIR qrels split to read (qrels/`SPLIT`.tsv; default test)")
	cmd.Flags().StringVar(&corpus, "corpus", "", "a corpus `FILE` (BEIR corpus.jsonl layout) beside a JSONL or CSV file, as create takes it")
	cmd.Flags().StringVar(&format, "format", "auto", "`FORMAT`: auto (by extension; a folder is BEIR; a .csv whose header has chunk_ids, page_nums or source_paths is a Vecta CSV) or vecta (a Vecta benchmark CSV)")
	return cmd
}

func validateData(w io.Writer, arg string, opts datasets.Options, format string) error {
	if format != "auto" && format != "vecta" {
		return usageError("validate-data: unknown --format %q (want auto or vecta)", format)
	}
	fsys, name := cliPath(arg)
	st, err := idatasets.Stat(fsys, name)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return usageError("validate-data: %s: no such file or folder", arg)
	case err != nil:
		return usageError("validate-data: %v", err)
	case format == "vecta" && st.IsDir():
		return usageError("validate-data: --format vecta wants a .csv file, %s is a folder", arg)
	}
	if format == "vecta" {
		opts.Format = lasagna.FormatVecta
	}
	// The public API's Load: the name printed is the one a Go program
	// gets (Benchmark.Name), and a BEIR folder's problems are every
	// file's.
	b, err := datasets.Load(fsys, name, opts)
	if err != nil {
		var ps datasets.Problems
		if !errors.As(err, &ps) {
			return problems(fmt.Errorf("validate-data: %v", err))
		}
		for _, p := range ps {
			p.File = filepath.FromSlash(p.File)
			fmt.Fprintln(w, p.Error())
		}
		n := len(ps)
		if n > idatasets.MaxProblems {
			n = idatasets.MaxProblems
		}
		return problems(fmt.Errorf("%s: %s found; fix them and run validate-data again", arg, plural(n, "problem")))
	}
	printSummary(w, arg, b)
	return nil
}

func plural(n int, word string) string {
	if n == 1 {
		return fmt.Sprintf("1 %s", word)
	}
	return fmt.Sprintf("%d %ss", n, word)
}

func printSummary(w io.Writer, arg string, b *lasagna.Benchmark) {
	answerable, unanswerable, noAnswer := 0, 0, 0
	for _, q := range b.Queries {
		switch {
		case q.Unanswerable:
			unanswerable++
		case len(q.Answers) > 0:
			answerable++
		default:
			noAnswer++
		}
	}
	relevant := 0
	for _, m := range b.Qrels {
		for _, g := range m {
			if g > 0 {
				relevant++
			}
		}
	}
	fmt.Fprintf(w, "name:        %s\n", b.Name)
	fmt.Fprintf(w, "revision:    %s\n", b.Revision)
	switch b.Format {
	case lasagna.FormatBEIR:
		fmt.Fprintf(w, "format:      BEIR folder, split %s\n", b.Split)
		fmt.Fprintf(w, "queries:     %d (those judged in qrels/%s.tsv)\n", len(b.Queries), b.Split)
	default:
		fmt.Fprintf(w, "format:      %s\n", b.Format)
		fmt.Fprintf(w, "rows:        %d (%d with answers, %d unanswerable, %d without answer)\n", len(b.Queries), answerable, unanswerable, noAnswer)
	}
	switch b.Provenance {
	case lasagna.ProvenanceNone:
		fmt.Fprintf(w, "documents:   0 (no corpus)\n")
	default:
		fmt.Fprintf(w, "documents:   %d (corpus_provenance: %s)\n", len(b.Corpus), b.Provenance)
	}
	fmt.Fprintf(w, "judgements:  %d (%d relevant, %d judged non-relevant)\n", b.Qrels.Judgements(), relevant, b.Qrels.Judgements()-relevant)
	fmt.Fprintln(w, "tracks:")
	for _, c := range idatasets.Capabilities(b) {
		if c.Supported {
			fmt.Fprintf(w, "  %-12s yes\n", c.Track)
		} else {
			fmt.Fprintf(w, "  %-12s no: %s (fix: %s)\n", c.Track, c.Reason, c.Fix)
		}
	}
	if b.Provenance == lasagna.ProvenancePooledGold {
		fmt.Fprintln(w, "note:        retrieval searches a pool of the rows' own passages (no hard negatives), an easier search than a real corpus")
	}
	fmt.Fprintf(w, "ok: %s is valid\n", arg)
}
