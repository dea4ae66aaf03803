// Package reporters turns a finished results bundle into what people read:
// a console summary table (Text, Table), a Markdown summary for a CI job
// page such as GitHub's step summary (Markdown, MarkdownSummary), and the
// bundle file itself (JSONFile).
//
// A Reporter is one method taking the finished bundle; Func adapts a plain
// function. A FileReporter also says which file it writes, so that
// evaltest can log the path. SummaryMetrics chooses the columns of every
// results table, evaltest's and the lasagna CLI's alike. Reporters are pure functions of the bundle: they read no
// environment variable and no flag (the caller — evaltest or the CLI —
// decides where output goes and passes paths and writers in), hold no
// package state, and never import testing.
package reporters
