// Command lasagna evaluates RAG systems from the command line: it validates
// and scores datasets, computes trec_eval-compatible metrics, and reads,
// validates and compares results bundles. Run "lasagna help" for the verbs.
package main

import (
	"context"
	"errors"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	os.Exit(mainExit(os.Args[1:], os.Stdout, os.Stderr))
}

// mainExit runs the command line and returns the exit status. SIGINT and
// SIGTERM cancel the command's context (a second one kills the process
// outright): a command stopped this way exits 128+signal (130, 143) after
// saying what it kept. A closed stdout (lasagna … | head -1) does not kill
// the process: writes fail with EPIPE, which a command that writes files
// (benchmark run) ignores so its bundle is still written, and the process
// then ends quietly with 141, as a SIGPIPE would.
func mainExit(args []string, stdout, stderr io.Writer) int {
	ctx, cancel := context.WithCancelCause(context.Background())
	defer cancel(nil)
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
	defer signal.Stop(sigs)
	go func() {
		select {
		case s := <-sigs:
			signal.Stop(sigs)
			cancel(&signalError{s})
		case <-ctx.Done():
		}
	}()
	signal.Notify(make(chan os.Signal, 1), syscall.SIGPIPE)

	err := run(ctx, args, stdout, stderr)
	var se *signalError
	switch {
	case err != nil && errors.As(context.Cause(ctx), &se):
		if errors.Is(err, context.Canceled) {
			err = se // not "context canceled"
		}
		exitCode(err, stderr)
		return se.code()
	case errors.Is(err, syscall.EPIPE):
		return 128 + int(syscall.SIGPIPE)
	}
	return exitCode(err, stderr)
}

// signalError is the cause of a command's context cancelled by a signal.
type signalError struct{ sig os.Signal }

func (e *signalError) Error() string { return "interrupted by " + e.name() }

func (e *signalError) name() string {
	switch e.sig {
	case os.Interrupt:
		return "SIGINT"
	case syscall.SIGTERM:
		return "SIGTERM"
	}
	return e.sig.String()
}

// code is the exit status of a process stopped by the signal: 128+n.
func (e *signalError) code() int {
	if s, ok := e.sig.(syscall.Signal); ok {
		return 128 + int(s)
	}
	return 130
}

// interruption describes why ctx ended: "interrupted by SIGINT" when a
// signal cancelled it, else its error.
func interruption(ctx context.Context) string {
	if err := context.Cause(ctx); err != nil {
		return err.Error()
	}
	return "interrupted"
}
