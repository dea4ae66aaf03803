package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/engine"
	"github.com/lasagna-go/lasagna/internal/registry"
)

// The registry commands of the benchmark group (docs/registry.md): list, show,
// create, download, export, activate, archive and delete. They work on the
// registry LASAGNA_REGISTRY names (a SQLite file path or a postgres://
// URL; default registry.db under the user data folder).

const registryNote = `
The registry is LASAGNA_REGISTRY: a SQLite file path or a postgres:// URL
(default: registry.db in $XDG_DATA_HOME/lasagna or ~/.local/share/lasagna).`

func newRegistryCmds(stdout, stderr io.Writer) []*cobra.Command {
	return []*cobra.Command{
		newListCmd(stdout), newShowCmd(stdout), newCreateCmd(stdout), newDownloadCmd(stdout),
		newExportCmd(stdout, stderr), newActivateCmd(stdout), newArchiveCmd(stdout), newDeleteCmd(stdout),
		newImportHFCmd(stdout),
	}
}

// withRegistry opens the registry for one command.
func withRegistry(ctx context.Context, fn func(r *registry.Registry) error) error {
	dsn, err := registry.DefaultDSN()
	if err != nil {
		return problems(err)
	}
	r, err := registry.Open(ctx, dsn)
	if err != nil {
		return problems(err)
	}
	defer r.Close()
	return registryErr(fn(r))
}

// registryErr maps registry errors to exit codes: a bad name or reference
// is a usage error (2), anything else a failure (1).
func registryErr(err error) error {
	var ee *exitError
	if err == nil || errors.As(err, &ee) {
		return err
	}
	return problems(err)
}

// checkRef validates a NAME[@hash] argument (exit 2 when malformed).
func checkRef(ref string, hashOK bool) error {
	name, hash, err := registry.ParseRef(ref)
	if err != nil {
		return usageError("%v", err)
	}
	if hash != "" && !hashOK {
		return usageError("%s: give the benchmark's name without @hash (the command applies to the whole benchmark, %s)", ref, name)
	}
	return nil
}

func newListCmd(stdout io.Writer) *cobra.Command {
	var (
		status string
		asJSON bool
	)
	cmd := &cobra.Command{
		Use:   "list",
		Short: "List the registered benchmarks",
		Long: `list prints every registered benchmark at its current revision: name,
status (draft, active, archived), question count, revision (name@hash, the
identity bundles carry), creation time and source. --json prints a JSON
array of objects with name, status, questions, documents, source, created,
revision, digest and revisions.` + registryNote + `
Exit status: 0 done, 1 the registry cannot be read, 2 usage error.`,
		Args: exactArgs(0),
		RunE: func(c *cobra.Command, args []string) error {
			var opts registry.ListOptions
			if status != "" {
				st, err := registry.ParseStatus(status)
				if err != nil {
					return usageError("list: --status: %v", err)
				}
				opts.Status = st
			}
			return withRegistry(c.Context(), func(r *registry.Registry) error {
				list, err := r.List(c.Context(), opts)
				if err != nil {
					return err
				}
				if asJSON {
					return writeJSON(stdout, list)
				}
				if len(list) == 0 {
					fmt.Fprintln(stdout, "no benchmarks; register one with `lasagna benchmark create NAME --from FILE`")
					return nil
				}
				tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
				fmt.Fprintln(tw, "NAME\tSTATUS\tQUESTIONS\tREVISION\tCREATED\tSOURCE")
				for _, inf := range list {
					rev := inf.Revision
					if rev == "" {
						rev = "-"
					}
					fmt.Fprintf(tw, "%s\t%s\t%d\t%s\t%s\t%s\n", inf.Name, inf.Status, inf.Questions, rev, inf.Created.Format(timeLayout), inf.Source.String())
				}
				if err := tw.Flush(); err != nil {
					return err
				}
				for _, inf := range list {
					if inf.Error != "" {
						fmt.Fprintf(stdout, "%s: the last fill failed: %s\n", inf.Name, inf.Error)
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVar(&status, "status", "", "only benchmarks with this `STATUS` (draft, active or archived)")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	return cmd
}

const timeLayout = "2006-01-02 15:04 UTC"

func writeJSON(w io.Writer, v any) error {
	enc := json.NewEncoder(w)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	return enc.Encode(v)
}

func newShowCmd(stdout io.Writer) *cobra.Command {
	var (
		asJSON        bool
		offset, limit int
	)
	cmd := &cobra.Command{
		Use:   "show NAME[@hash]",
		Short: "Show a registered benchmark, its revisions and its entries",
		Long: `show prints a benchmark (its current revision, or NAME@hash), its
revisions and its entries (--limit at a time from --offset; --limit 0 for
all). --json prints {"benchmark", "revisions", "entries", "entries_total",
"offset"}.` + registryNote + `
Exit status: 0 done, 1 no such benchmark, 2 usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkRef(args[0], true); err != nil {
				return err
			}
			if offset < 0 || limit < 0 {
				return usageError("show: --offset and --limit must be ≥ 0")
			}
			ctx := c.Context()
			return withRegistry(ctx, func(r *registry.Registry) error {
				inf, err := r.Get(ctx, args[0])
				if err != nil {
					return err
				}
				revs, err := r.Revisions(ctx, inf.Name)
				if err != nil {
					return err
				}
				entries, total, err := r.Entries(ctx, args[0], offset, limit)
				if err != nil {
					return err
				}
				if asJSON {
					if entries == nil {
						entries = []registry.Entry{}
					}
					if revs == nil {
						revs = []registry.Info{}
					}
					return writeJSON(stdout, map[string]any{"benchmark": inf, "revisions": revs, "entries": entries, "entries_total": total, "offset": offset})
				}
				printShow(stdout, inf, revs, entries, total, offset)
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON")
	cmd.Flags().IntVar(&offset, "offset", 0, "skip this many entries")
	cmd.Flags().IntVar(&limit, "limit", 20, "show at most this many entries (0 = all)")
	return cmd
}

// printShow prints a benchmark as show does without --json: its info, its
// revisions and the entries from offset of its total.
func printShow(stdout io.Writer, inf registry.Info, revs []registry.Info, entries []registry.Entry, total, offset int) {
	printInfo(stdout, inf)
	if len(revs) > 0 {
		fmt.Fprintln(stdout, "revisions:")
		for _, rv := range revs {
			mark := ""
			if rv.Current {
				mark = "  (current)"
			}
			fmt.Fprintf(stdout, "  %s  %s  %d questions%s\n", rv.Revision, rv.RevisionCreated.Format(timeLayout), rv.Questions, mark)
		}
	}
	if total == 0 {
		fmt.Fprintln(stdout, "entries:     none yet")
		return
	}
	fmt.Fprintf(stdout, "entries (%d–%d of %d):\n", min(offset+1, total), offset+len(entries), total)
	for _, e := range entries {
		answer := e.Answer
		if e.Unanswerable {
			answer = "(unanswerable)"
		}
		fmt.Fprintf(stdout, "  %s  %s\n      → %s\n", e.ID, oneLine(e.Question, 100), oneLine(answer, 100))
		if cites := citations(e); cites != "" {
			fmt.Fprintf(stdout, "      %s\n", cites)
		}
	}
	if rest := total - offset - len(entries); rest > 0 {
		fmt.Fprintf(stdout, "… %d more (--offset %d, or --limit 0 for all)\n", rest, offset+len(entries))
	}
}

func printInfo(w io.Writer, inf registry.Info) {
	fmt.Fprintf(w, "name:        %s\n", inf.Name)
	fmt.Fprintf(w, "status:      %s\n", inf.Status)
	if inf.Revision != "" {
		fmt.Fprintf(w, "revision:    %s\n", inf.Revision)
		fmt.Fprintf(w, "questions:   %d\n", inf.Questions)
		fmt.Fprintf(w, "documents:   %d\n", inf.Documents)
		fmt.Fprintf(w, "source:      %s, sha256 %s\n", inf.Source.String(), inf.Digest)
	} else {
		fmt.Fprintln(w, "revision:    none (an empty draft)")
		if inf.Source != nil {
			fmt.Fprintf(w, "source:      %s\n", inf.Source.String())
		}
	}
	if inf.Error != "" {
		fmt.Fprintf(w, "error:       %s\n", inf.Error)
	}
	fmt.Fprintf(w, "created:     %s\n", inf.Created.Format(time.RFC3339))
}

func citations(e registry.Entry) string {
	var parts []string
	if len(e.ChunkIDs) > 0 {
		parts = append(parts, "chunk_ids: "+strings.Join(e.ChunkIDs, ", "))
	}
	if len(e.PageNums) > 0 {
		parts = append(parts, fmt.Sprintf("page_nums: %v", e.PageNums))
	}
	if len(e.SourcePaths) > 0 {
		parts = append(parts, "source_paths: "+strings.Join(e.SourcePaths, ", "))
	}
	if len(e.ExpectedDocs) > 0 {
		parts = append(parts, "expected_docs: "+strings.Join(e.ExpectedDocs, ", "))
	}
	return strings.Join(parts, "; ")
}

func oneLine(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > n {
		return string(r[:n-1]) + "…"
	}
	return s
}

func newCreateCmd(stdout io.Writer) *cobra.Command {
	var (
		from, format, split, corpus string
		draft                       bool
	)
	cmd := &cobra.Command{
		Use:   "create NAME (--from PATH | --draft)",
		Short: "Register a benchmark from a file or folder, or as an empty draft",
		Long:  createLong,
		Args:  exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			name := args[0]
			if err := registry.CheckName(name); err != nil {
				return usageError("create: %v", err)
			}
			if draft == (from != "") {
				return usageError("create %s: give --from PATH (a file or BEIR folder) or --draft, not both", name)
			}
			f, err := registry.ParseFormat(format)
			if err != nil {
				return usageError("create: --format: %v", err)
			}
			ctx := c.Context()
			if draft {
				if format != "auto" || split != "" || corpus != "" {
					return usageError("create %s --draft: --format, --split and --corpus apply to --from", name)
				}
				return withRegistry(ctx, func(r *registry.Registry) error {
					inf, err := r.CreateDraft(ctx, name)
					if err != nil {
						return err
					}
					fmt.Fprintf(stdout, "created %s: an empty draft; fill it with `lasagna benchmark create %s --from FILE`\n", inf.Name, inf.Name)
					return nil
				})
			}
			if _, err := os.Stat(from); err != nil {
				return usageError("create %s: --from %s: no such file or folder", name, from)
			}
			fsys, p := cliPath(from)
			files := registry.Files{FS: fsys, Path: p, Format: f, Split: split}
			if corpus != "" {
				_, files.Corpus = cliPath(corpus)
			}
			return withRegistry(ctx, func(r *registry.Registry) error {
				inf, err := r.Create(ctx, name, files)
				if err != nil {
					return fmt.Errorf("create %s: %w", name, err)
				}
				// inf.Change is decided under the write lock: of two
				// creates of one content at once, one says created and
				// the other unchanged.
				printCreated(stdout, inf)
				return nil
			})
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&from, "from", "", "import this `PATH`: a .jsonl or .csv file or a BEIR folder")
	fl.StringVar(&format, "format", "auto", "`FORMAT` of --from: auto, jsonl, csv, vecta or beir")
	fl.StringVar(&split, "split", "", "BEIR qrels split to import (qrels/`SPLIT`.tsv; default test)")
	fl.StringVar(&corpus, "corpus", "", "a corpus `FILE` (BEIR corpus.jsonl layout) beside a JSONL or CSV file")
	fl.BoolVar(&draft, "draft", false, "register an empty draft")
	return cmd
}

// createLong is `benchmark create --help`'s text.
const createLong = `create registers the benchmark NAME.

With --from PATH it imports a JSONL or CSV file, a Vecta benchmark CSV or a
BEIR folder, with the checks and file:line messages of validate-data, in
one transaction: a failed import leaves the registry unchanged. The
benchmark is registered as NAME@<12 hex of sha256>, the identity the file
has when run with --name NAME, and is active. Creating an existing NAME
again adds a revision (NAME@newhash, now the current one; the old ones
stay addressable as NAME@hash); the same bytes again add nothing.
--format auto (the default) reads a folder as BEIR, .jsonl as JSONL, and a
.csv with a chunk_ids, page_nums or source_paths column as a Vecta CSV
(so an exported CSV imports back), any other .csv as CSV.

With --draft it registers an empty draft (for example while synthesis
fills it); create NAME --from PATH fills and activates it.` + registryNote + `
Exit status: 0 done, 1 the data has problems or NAME is archived, 2 usage
error.`

// printCreated says what create did: created, unchanged, restored an
// older revision or added a revision.
func printCreated(stdout io.Writer, inf registry.Info) {
	switch inf.Change {
	case registry.ChangeCreated:
		fmt.Fprintf(stdout, "created %s: %s, %s, %s\n", inf.Revision, plural(inf.Questions, "question"), plural(inf.Documents, "document"), inf.Status)
	case registry.ChangeUnchanged:
		fmt.Fprintf(stdout, "unchanged: %s is already the current revision (%s)\n", inf.Revision, inf.Status)
	case registry.ChangeRestored:
		fmt.Fprintf(stdout, "%s: the same content as revision %s, which is current again (%s)\n", inf.Name, inf.Revision, inf.Status)
	default:
		fmt.Fprintf(stdout, "added %s: %s, %s, %s; revision %d of %s (the previous ones stay addressable as %s@hash)\n",
			inf.Revision, plural(inf.Questions, "question"), plural(inf.Documents, "document"), inf.Status, inf.Revisions, inf.Name, inf.Name)
	}
}

// writeOut writes with fn to the file out, or to stdout when out is "" or
// "-". A failed write removes the file.
func writeOut(stdout io.Writer, out string, fn func(w io.Writer) error) error {
	if out == "" || out == "-" {
		return fn(stdout)
	}
	f, err := os.Create(out)
	if err != nil {
		return usageError("-o %s: %v", out, err)
	}
	if err := fn(f); err != nil {
		f.Close()
		os.Remove(out)
		return err
	}
	return f.Close()
}

func newDownloadCmd(stdout io.Writer) *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "download NAME[@hash]",
		Short: "Write a registered benchmark's entries as JSONL",
		Long: `download writes the entries of a benchmark (its current revision, or
NAME@hash) as JSONL, one object per line, to stdout or -o FILE. A JSONL or
CSV benchmark (without --corpus) is written as the rows of docs/data.md (id, question, answer
or answers, contexts, expected_docs, metadata with unanswerable: true on an
unanswerable row; empty fields left out), which create --from reads back as
the same benchmark: every entry, id, passage id and judgement. A BEIR
folder, a Vecta CSV, or a file created with --corpus is written as entries (id, question, answer,
answers, unanswerable, chunk_ids, page_nums, source_paths, contexts,
expected_docs, metadata). It works whatever the status.` + registryNote + `
Exit status: 0 done, 1 no such benchmark, 2 usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkRef(args[0], true); err != nil {
				return err
			}
			ctx := c.Context()
			return withRegistry(ctx, func(r *registry.Registry) error {
				inf, err := r.Get(ctx, args[0])
				if err != nil {
					return err
				}
				if err := writeOut(stdout, out, func(w io.Writer) error { return r.Download(ctx, args[0], w) }); err != nil {
					return err
				}
				if out != "" && out != "-" {
					fmt.Fprintf(stdout, "wrote %d entries of %s to %s\n", inf.Questions, inf.Revision, out)
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to `FILE` instead of stdout")
	return cmd
}

func newExportCmd(stdout, stderr io.Writer) *cobra.Command {
	var (
		out  string
		skip bool
	)
	cmd := &cobra.Command{
		Use:   "export NAME[@hash]",
		Short: "Write a registered benchmark as a Vecta benchmark CSV",
		Long: `export writes a benchmark (its current revision, or NAME@hash) as a Vecta
benchmark CSV — id, question, answer, chunk_ids, page_nums, source_paths,
lists separated by | — to stdout or -o FILE. create --from imports it back
with the same entries in those columns (a benchmark that is not a Vecta CSV
exports its expected documents as chunk_ids). Contexts, answers beyond the
first and metadata are not CSV columns (download keeps them; export says
so on stderr). An unanswerable entry has no answer to write: export fails
naming it, unless --skip-unanswerable leaves such entries out.` + registryNote + `
Exit status: 0 done, 1 no such benchmark or an entry cannot be written, 2
usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkRef(args[0], true); err != nil {
				return err
			}
			ctx := c.Context()
			return withRegistry(ctx, func(r *registry.Registry) error {
				inf, err := r.Get(ctx, args[0])
				if err != nil {
					return err
				}
				var skipped []string
				err = writeOut(stdout, out, func(w io.Writer) error {
					skipped, err = r.Export(ctx, args[0], w, registry.ExportOptions{SkipUnanswerable: skip})
					return err
				})
				if err != nil {
					return fmt.Errorf("export %s: %w", inf.Revision, err)
				}
				if out != "" && out != "-" {
					fmt.Fprintf(stdout, "wrote %d of %d entries of %s to %s\n", inf.Questions-len(skipped), inf.Questions, inf.Revision, out)
				}
				if len(skipped) > 0 {
					fmt.Fprintf(stderr, "lasagna: export %s: left out %d unanswerable (no answer): %s\n", inf.Revision, len(skipped), strings.Join(skipped, ", "))
				}
				if entries, _, err := r.Entries(ctx, args[0], 0, 0); err == nil {
					if lost := registry.Lossy(entries); len(lost) > 0 {
						fmt.Fprintf(stderr, "lasagna: export %s: the CSV has no columns for %s; `lasagna benchmark download %s` keeps them\n", inf.Revision, strings.Join(lost, ", "), args[0])
					}
				}
				return nil
			})
		},
	}
	cmd.Flags().StringVarP(&out, "out", "o", "", "write to `FILE` instead of stdout")
	cmd.Flags().BoolVar(&skip, "skip-unanswerable", false, "leave out entries without an answer (listed on stderr)")
	return cmd
}

func newActivateCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "activate NAME[@hash]",
		Short: "Make a draft or archived benchmark active (only active ones evaluate)",
		Long: `activate makes a benchmark active, so it evaluates: a draft that holds
entries, or an archived benchmark. With NAME@hash it also makes that
revision the current one (registry:NAME names it again).` + registryNote + `
Exit status: 0 done, 1 no such benchmark or an empty draft, 2 usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkRef(args[0], true); err != nil {
				return err
			}
			return withRegistry(c.Context(), func(r *registry.Registry) error {
				inf, err := r.Activate(c.Context(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s is active (%s)\n", inf.Name, inf.Revision)
				return nil
			})
		},
	}
}

func newArchiveCmd(stdout io.Writer) *cobra.Command {
	return &cobra.Command{
		Use:   "archive NAME",
		Short: "Archive an active benchmark (it stays listed but no longer evaluates)",
		Long: `archive retires an active benchmark: it stays listed, shown and
downloadable, and evaluating it is refused until ` + "`lasagna benchmark activate NAME`" + `.` + registryNote + `
Exit status: 0 done, 1 no such benchmark or a draft, 2 usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkRef(args[0], false); err != nil {
				return err
			}
			return withRegistry(c.Context(), func(r *registry.Registry) error {
				inf, err := r.Archive(c.Context(), args[0])
				if err != nil {
					return err
				}
				fmt.Fprintf(stdout, "%s is archived\n", inf.Name)
				return nil
			})
		},
	}
}

func newDeleteCmd(stdout io.Writer) *cobra.Command {
	var force bool
	cmd := &cobra.Command{
		Use:   "delete NAME",
		Short: "Delete a benchmark with all its revisions (an active one needs --force)",
		Long: `delete removes a benchmark, its revisions and its entries from the
registry; it no longer shows. An active benchmark is deleted only with
--force (archive it to keep it).` + registryNote + `
Exit status: 0 done, 1 no such benchmark or active without --force, 2
usage error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			if err := checkRef(args[0], false); err != nil {
				return err
			}
			return withRegistry(c.Context(), func(r *registry.Registry) error {
				if err := r.Delete(c.Context(), args[0], force); err != nil {
					return err
				}
				fmt.Fprintf(stdout, "deleted %s\n", args[0])
				return nil
			})
		},
	}
	cmd.Flags().BoolVar(&force, "force", false, "delete an active benchmark too")
	return cmd
}

// registryResolver returns the engine's resolver of registry: paths. It
// opens the registry on first use only (a run without registry: paths
// never touches it); close releases it. A draft or archived benchmark is
// refused: the error carries exit code 2.
func registryResolver(ctx context.Context) (resolve engine.Resolver, close func()) {
	var r *registry.Registry
	resolve = func(ref string) (*lasagna.Benchmark, error) {
		if r == nil {
			dsn, err := registry.DefaultDSN()
			if err != nil {
				return nil, err
			}
			if r, err = registry.Open(ctx, dsn); err != nil {
				return nil, err
			}
		}
		return r.Resolve(ctx, ref)
	}
	return resolve, func() {
		if r != nil {
			r.Close()
		}
	}
}

// checkRegistryPaths refuses malformed registry:NAME[@hash] paths before
// anything runs (exit 2).
func checkRegistryPaths(s *engine.Sweep) error {
	for _, e := range s.Benchmarks {
		if engine.IsRegistryPath(e.Path) {
			if _, _, err := registry.ParseRef(e.Path); err != nil {
				at := ""
				if e.Pos.File != "" {
					at = e.Pos.String() + ": "
				}
				return usageError("%s%v", at, err)
			}
		}
	}
	return nil
}

// loadErr maps a benchmark loading error: a refusal by status is a usage
// error (2), anything else a problem (1).
func loadErr(err error) error {
	var se *registry.StatusError
	if errors.As(err, &se) {
		return &exitError{code: exitUsage, err: err}
	}
	return problems(err)
}
