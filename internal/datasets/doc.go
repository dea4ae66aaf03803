// Package datasets reads, validates and writes benchmark data: JSONL and CSV
// question files (docs/data.md's format), BEIR folders, Vecta benchmark CSVs,
// predictions files and TREC qrels/run files, all from an fs.FS (os.DirFS,
// embed.FS and fstest.MapFS work).
//
// Every input file is opened by Open (ReadFile for whole-file reads), which
// refuses anything but a regular file: a FIFO, a device or a socket is an
// error wrapping ErrNotRegular before anything is read, a symbolic link
// loop one wrapping ErrSymlinkLoop. OSFS is the operating system's file
// system with absolute paths and ".." allowed. Text must be UTF-8 (an
// invalid byte is a Problem with its line and column); a line may hold at
// most MaxLineBytes, a file MaxFileBytes.
//
// Loaders stream: a file is read line by line through a bufio reader and
// hashed as it is read (sha256), and each passage is held once, in
// Benchmark.Corpus. Invalid data gives a Problems error listing every
// problem found (up to MaxProblems) as file:line: message, naming the field
// and the fix; loaders never panic and never drop or zero data silently.
//
// A file with contexts gets a pooled-gold corpus (BuildBenchmark): each
// distinct passage is one document, named by expected_docs or by
// PassageID(text) = "p" + the first 12 hex digits of sha256(text). A file
// given with Options.Corpus (a corpus file in the BEIR corpus.jsonl layout)
// searches that corpus instead: expected_docs name its documents.
//
// Identity (docs/data.md): a file registers as local/<stem>@<12 hex of the
// sha256 of its bytes>, or <Options.Name>@<12 hex>; Benchmark.Revision is
// the full digest. A BEIR folder's digest is the sha256 of what
// `sha256sum corpus.jsonl queries.jsonl qrels/<split>.tsv` prints in it; a
// file with a corpus beside it hashes the two files' digests, the dataset
// file's first (see LoadJSONL).
//
// Capabilities and RequireTracks say which tracks (retrieval, generation,
// closed_book) a benchmark supports; Select applies metadata filters and
// seeded n_samples sampling.
package datasets
