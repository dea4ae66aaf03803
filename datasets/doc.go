// Package datasets reads and checks benchmark data from Go: JSONL and CSV
// question files (docs/data.md), BEIR folders and Vecta benchmark CSVs,
// from any fs.FS (os.DirFS, embed.FS, fstest.MapFS).
//
//   - Load returns a *lasagna.Benchmark, named as `lasagna benchmark
//     validate-data` prints it (local/<stem>@<12 hex of its sha256>), ready
//     for evaltest.Config.Data or for a pipeline of your own.
//   - Check returns a Report: the name, the sizes, the tracks the data
//     supports (and why not the others), or every problem of every file
//     of it, each with its file, line, field, message and fix, found in
//     one pass.
//   - Stream hands over a benchmark's queries one by one, for files larger
//     than memory; Check streams the same way.
//   - WriteJSONL writes rows in the JSONL format that Load reads back, as
//     `lasagna benchmark synthesize` and `benchmark download` write them.
//
// The zero Options works: a file under its local name, a BEIR folder's
// test split, every query. Options also choose a corpus file beside a
// JSONL or CSV file, the split, metadata filters and a seeded sample
// (n_samples), as a sweep entry does.
//
// Synthesis of questions from a folder of documents with an LLM is in
// package datasets/synth, so that importing datasets links no LLM client.
package datasets
