package main

import (
	"context"
	"errors"
	"fmt"
	"github.com/lasagna-go/lasagna/internal/engine"
	"io"
	"slices"
	"sync"

	"github.com/spf13/cobra"
)

// addVersionFunc registers version as the template function
// lasagnaVersion of root's version template, once: cobra keeps template
// functions in one map for every command, which concurrent runs (tests)
// must not write at the same time.
var addVersionFunc = sync.OnceFunc(func() { cobra.AddTemplateFunc("lasagnaVersion", version) })

// version returns the lasagna module version this binary was built from
// (engine.Version: "dev" for a build of the checkout), the version every
// front end records in bundles. It reads the build information on first
// use, not at start, so the commands that do not print it do not pay.
var version = sync.OnceValue(engine.Version)

// Exit codes: 0 success; 1 the input or the outcome has problems (invalid
// data, failed validation, blocking integrity, a failed threshold or
// baseline check); 2 usage errors, including a sweep file with problems
// (it is the command's configuration, like its flags).
const (
	exitOK      = 0
	exitProblem = 1
	exitUsage   = 2
)

// exitError carries an exit code. A command returns one (via problemf or
// usageError) when the code is not the default.
type exitError struct {
	code int
	err  error
}

func (e *exitError) Error() string {
	if e.err == nil {
		return ""
	}
	return e.err.Error()
}
func (e *exitError) Unwrap() error { return e.err }

// problems returns an exit-1 error whose message has already been printed
// (err may be nil, meaning "nothing more to say").
func problems(err error) error { return &exitError{code: exitProblem, err: err} }

// usageError returns an exit-2 error.
func usageError(format string, args ...any) error {
	return &exitError{code: exitUsage, err: fmt.Errorf(format, args...)}
}

// exitCode prints err (if it has a message) and maps it to an exit code.
func exitCode(err error, stderr io.Writer) int {
	if err == nil {
		return exitOK
	}
	code := exitProblem
	var ee *exitError
	if errors.As(err, &ee) {
		code = ee.code
	}
	if msg := err.Error(); msg != "" {
		fmt.Fprintf(stderr, "lasagna: %s\n", msg)
	}
	return code
}

// run executes the command line args (without the program name).
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	root := newRootCmd(stdout, stderr, commandGroup(args))
	root.SetArgs(args)
	return root.ExecuteContext(ctx)
}

// commandGroups are the root's commands, each built with its subcommands
// by newRootCmd.
var commandGroups = []string{"benchmark", "results", "metrics", "judge", "serve"}

// commandGroup returns the root command args name first, or "" when they
// start otherwise (a flag, help, a typo): every command is built then, for
// the root's help, its flags and its suggestions.
func commandGroup(args []string) string {
	if len(args) > 0 && slices.Contains(commandGroups, args[0]) {
		return args[0]
	}
	return ""
}

// newRootCmd builds the command tree: with only set to one of
// commandGroups, the root and that group alone. A command line that names
// a group runs inside it (its help, errors and suggestions are the
// group's), so it is answered the same as with the whole tree, and start-up
// does not build the flags of every other command (BENCHMARKS.md,
// "Start-up").
func newRootCmd(stdout, stderr io.Writer, only string) *cobra.Command {
	root := &cobra.Command{
		Use:   "lasagna",
		Short: "Evaluate RAG systems: datasets, metrics, results bundles",
		Long: `Evaluate RAG systems: datasets, metrics, results bundles.

Exit status, for every command (its --help says what 1 means for it):
  0  done, and every check passed
  1  a failed verdict or a problem in the input: a failed threshold, query
     or baseline check, a blocking integrity finding (a bundle is still
     written), an invalid bundle, data or predictions with problems, a
     refused comparison or merge
  2  a usage or configuration error: an unknown command or flag, a bad flag
     value, a sweep file with problems; nothing was run
  130, 143  interrupted by SIGINT or SIGTERM: nothing but the resume journal
     was written (benchmark run says how many queries it holds)
  141  stdout was closed while printing (benchmark run writes its bundle
     first and ignores a closed console)`,
		Version:       "(computed when printed)",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	// The version is read from the build information only when printed.
	addVersionFunc()
	root.SetVersionTemplate(`{{with .DisplayName}}{{printf "%s " .}}{{end}}{{printf "version %s" lasagnaVersion}}
`)
	root.CompletionOptions.DisableDefaultCmd = true
	root.SetOut(stdout)
	root.SetErr(stderr)
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return &exitError{code: exitUsage, err: fmt.Errorf("%s: %w (see %q)", c.CommandPath(), err, c.CommandPath()+" --help")}
	})

	// Each verb lives in its own file as newXxxCmd; add it to its group here.
	groups := map[string]func() *cobra.Command{
		"benchmark": func() *cobra.Command {
			benchmark := &cobra.Command{Use: "benchmark", Short: "Validate, run, synthesize and score benchmarks"}
			benchmark.AddCommand(newRunCmd(stdout, stderr), newScoreCmd(stdout), newValidateDataCmd(stdout), newSynthesizeCmd(stdout))
			benchmark.AddCommand(newRegistryCmds(stdout, stderr)...)
			return benchmark
		},
		"results": func() *cobra.Command {
			results := &cobra.Command{Use: "results", Short: "Make, read, validate, compare and merge results bundles"}
			results.AddCommand(newResultsSchemaCmd(stdout), newResultsValidateCmd(stdout), newResultsCompareCmd(stdout), newResultsSignificanceCmd(stdout), newResultsMergeCmd(stdout), newResultsBundleCmd(stdout), newResultsReportCmd(stdout), newResultsSubmitCmd(stdout, stderr))
			return results
		},
		"metrics": func() *cobra.Command {
			metrics := &cobra.Command{Use: "metrics", Short: "Compute metrics from standard files"}
			metrics.AddCommand(newMetricsTrecCmd(stdout))
			return metrics
		},
		"judge": func() *cobra.Command { return newJudgeCmd(stdout) },
		"serve": func() *cobra.Command { return newServeCmd(stdout, stderr) }, // the dashboard (package dashboard)
	}
	for _, name := range commandGroups {
		if only != "" && name != only {
			continue
		}
		c := groups[name]()
		if name != "serve" {
			c.Args = noArgsUsage
			c.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
		}
		root.AddCommand(c)
	}
	// An unknown command is a usage error (2), as an unknown sub-verb is.
	root.Args = noArgsUsage
	root.RunE = func(c *cobra.Command, args []string) error { return c.Help() }
	return root
}

// noArgsUsage rejects unknown sub-verbs with exit code 2.
func noArgsUsage(c *cobra.Command, args []string) error {
	if len(args) > 0 {
		hint := ""
		if c.SuggestionsMinimumDistance <= 0 {
			c.SuggestionsMinimumDistance = 2 // cobra's default
		}
		if s := c.SuggestionsFor(args[0]); len(s) > 0 {
			hint = fmt.Sprintf("; did you mean %q?", s[0])
		}
		return usageError("unknown command %q for %q%s (see %q)", args[0], c.CommandPath(), hint, c.CommandPath()+" --help")
	}
	return nil
}

// exactArgs is cobra.ExactArgs with exit code 2.
func exactArgs(n int) cobra.PositionalArgs {
	return func(c *cobra.Command, args []string) error {
		if len(args) != n {
			return usageError("%s: want %d argument(s), got %d (usage: %s)", c.CommandPath(), n, len(args), c.UseLine())
		}
		return nil
	}
}
