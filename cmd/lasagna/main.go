// Command lasagna evaluates RAG systems from the command line: it validates
// and scores datasets, computes trec_eval-compatible metrics, and reads,
// validates and compares results bundles. Run "lasagna help" for the verbs.
package main

import (
	"context"
	"os"
	"os/signal"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}
