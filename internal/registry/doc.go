// Package registry stores benchmarks as managed objects (docs/registry.md):
// named benchmarks with revisions, a source, a creation time, a
// question count and a lifecycle draft → active → archived (→ active).
//
// # Location
//
// Open takes a DSN: a SQLite file path (embedded, pure Go, the default) or
// a postgres:// URL (a team's shared registry). DefaultDSN reads
// LASAGNA_REGISTRY and falls back to registry.db under the user data
// folder ($XDG_DATA_HOME/lasagna, else ~/.local/share/lasagna). Both
// backends sit behind one database/sql implementation with versioned
// migrations (table lasagna_schema); every write takes the registry's
// write lock (SQLite BEGIN IMMEDIATE, a PostgreSQL transaction-level
// advisory lock), so two processes importing or changing one registry at
// once lose nothing.
//
// # Storage and identity
//
// A revision stores the bytes of the files it was imported from (the data
// file, a corpus file beside it, or a BEIR folder's corpus.jsonl,
// queries.jsonl and qrels/<split>.tsv) and is rebuilt from them with the
// datasets loaders, so a benchmark from the registry is exactly the
// benchmark the file gives: registering examples/data/faq.jsonl as faq
// keeps faq@ea3e86b12545, and a run of registry:faq has the bundle
// identity and comparability key of the file run with name: faq. The
// entries are also stored one per row (id, question and a JSON document)
// for listing, showing, paging and downloading without a rebuild.
//
// An import is streamed, in one transaction: the datasets loader
// (datasets.Stream) reads each file once, the bytes it reads — the bytes
// its identity hashes — are stored in 1 MiB chunks as they are read, and
// each entry is inserted as the loader hands it over (SQLite: batched
// INSERTs; PostgreSQL: COPY). A JSONL file with a corpus beside it keeps
// nothing per row in memory: its rows (with their lines) and both files'
// ids go to temporary tables on the import's transaction
// (datasets.StreamSpooled with a datasets.Spool), where duplicates are
// found and the documents the rows name are looked up, batch by batch, so
// that the rules and the file:line Problems stay the datasets loader's; a
// CSV file with a corpus is validated keeping only the corpus's ids. A
// problem found late rolls everything back. BENCHMARKS.md has the figures.
//
// # Lifecycle
//
// Create imports files as a new active benchmark, or as a new revision of
// an existing one (an active benchmark's entries never change: different
// content is a new revision name@newhash, and older revisions stay
// addressable as name@hash). CreateDraft makes an empty draft; Import with
// Draft fills a draft without activating it. StartDraft makes a draft that
// lists with the source about to fill it (`synthesize --into`), FailDraft
// records why a fill failed (the benchmark stays a draft, Info.Error), and
// ImportRows fills it from rows, recording ImportOptions.Source. Only active benchmarks
// evaluate: Resolve refuses drafts and archived ones with a StatusError
// naming the command that activates them.
package registry
