// Command startfloor is the floor of `lasagna metrics trec`'s start-up: the
// same evaluation (internal/treceval, default measures) in a binary that
// links nothing else, so scripts/bench-startup.sh can tell what lasagna's
// start-up costs beyond the evaluation itself. Built with -tags llm it also
// links the LLM client (package llm, and with it openai-go), whose
// packages run their own init before main in every lasagna command; with
// -tags nethttp it links net/http alone (the standard library's HTTP client
// and server, which lasagna links for serve, the hub and the LLM client):
//
//	go build -o /tmp/floor ./scripts/startfloor
//	go build -tags nethttp -o /tmp/floor-http ./scripts/startfloor
//	go build -tags llm -o /tmp/floor-llm ./scripts/startfloor
//	/tmp/floor qrels.txt run.txt
//
// It prints what `lasagna metrics trec qrels.txt run.txt` prints.
package main

import (
	"fmt"
	"io"
	"os"
	"path/filepath"

	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/metrics"
	"github.com/lasagna-go/lasagna/internal/treceval"
)

func main() {
	if len(os.Args) != 3 {
		fmt.Fprintln(os.Stderr, "usage: startfloor QRELS RUN")
		os.Exit(2)
	}
	if err := evaluate(os.Stdout, os.Args[1], os.Args[2]); err != nil {
		fmt.Fprintln(os.Stderr, "startfloor:", err)
		os.Exit(1)
	}
}

// evaluate does what `lasagna metrics trec QRELS RUN` does without flags
// (cmd/lasagna's trecFlags.config and trecFile).
func evaluate(w io.Writer, qrels, run string) error {
	sel, err := treceval.ParseMeasures(nil)
	if err != nil {
		return err
	}
	cfg := treceval.Config{Selection: sel, Options: sel.Options(1), Average: metrics.AverageTrecEval, Summary: true}
	file := func(p string) treceval.File {
		return treceval.File{FS: datasets.OSFS{}, Name: filepath.ToSlash(filepath.Clean(p)), Path: p}
	}
	return treceval.Evaluate(w, file(qrels), file(run), cfg)
}
