// Package treceval is `lasagna metrics trec`'s evaluator: it reads a TREC
// run and its qrels, evaluates the run as trec_eval 10 does and prints
// trec_eval's output, byte for byte.
//
// ParseMeasures reads trec_eval's -m values (measure names, the sets
// official, all_trec and set, cutoff parameters, and the gains, persistence
// and values of the measures that take them) into a Selection,
// whose Options are the metrics options that compute what it prints.
// Evaluate does the rest: it reads the qrels while the run is parsed
// (internal/trecparse, on all CPUs), evaluates a run grouped by query
// query by query as it is parsed, partitions any other by query first or,
// when it has problems to report, parses it whole, and writes the
// trec_eval-format blocks. The run file is memory-mapped on Linux and its
// ids alias the mapping until Evaluate returns; the garbage collector's
// pacing is paused meanwhile, since nearly all it allocates stays live.
//
// With Config.RelFormat set to trec_eval's other -R formats (prefs,
// qrels_prefs, qrels_jg), Evaluate reads that file instead (trecparse's
// ParsePrefs, ParseQrelsJG) and computes the measures it enables here, as
// trec_eval's form_prefs_counts.c and form_res_rels_jg.c do: preference
// counts per judgement group (equivalence classes, or a transitively
// closed preference array) and measures averaged over judgement groups.
//
// The scoring of the qrels measures is internal/metrics'; the command line (flags, exit
// statuses, the hints that name flags) is cmd/lasagna's.
package treceval
