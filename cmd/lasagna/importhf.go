package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"slices"
	"strings"
	"sync"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/registry/hf"
	"github.com/lasagna-go/lasagna/internal/suggest"
)

// newImportHFCmd is `lasagna benchmark import-hf`: a Hugging Face dataset,
// downloaded from the Hub or read from disk, into the registry (package
// registry/hf; docs/registry.md).
func newImportHFCmd(stdout io.Writer) *cobra.Command {
	var (
		o     hf.Options
		draft bool
		list  bool
	)
	cmd := &cobra.Command{
		Use:   "import-hf DATASET [--from DIR | --revision REV] [--name N] [--split S] [--limit N] [--config C] | import-hf --list",
		Short: "Register a Hugging Face dataset (MS MARCO, GPQA, BEIR, SQuAD, NQ-open), downloaded from the Hub or on disk",
		Long:  importHFLong,
		Args: func(c *cobra.Command, args []string) error {
			if list {
				if len(args) > 0 {
					return usageError("import-hf --list takes no dataset (got %q)", args[0])
				}
				return nil
			}
			return exactArgs(1)(c, args)
		},
		RunE: func(c *cobra.Command, args []string) error {
			if list {
				printCatalogue(stdout)
				return nil
			}
			o.Dataset, o.Draft = args[0], draft
			if err := checkImportHF(&o); err != nil {
				return err
			}
			if o.Dir == "" {
				hub, err := hf.HubFromEnv(os.Getenv)
				if err != nil {
					return usageError("import-hf %s: %v", o.Dataset, err)
				}
				if stderr := c.ErrOrStderr(); isTerminal(stderr) {
					hub.Progress = downloadProgress(stderr)
				}
				o.Hub = &hub
			}
			return importHF(c.Context(), stdout, o)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Dir, "from", "", "read the dataset from `DIR` (a Hugging Face cache folder or a plain folder) instead of downloading it")
	fl.StringVar(&o.Revision, "revision", "", "download the branch, tag or commit `REV` (default main)")
	fl.StringVar(&o.Name, "name", "", "register as `NAME` (default ms_marco-<config>-<split>, gpqa_diamond, NAME-<split> for BeIR/NAME, squad-<split>, …)")
	fl.StringVar(&o.Split, "split", "", "`SPLIT` to import (validation by default; GPQA: train; BEIR: test, the qrels file <split>.tsv)")
	fl.StringVar(&o.Config, "config", "", "`CONFIG`: v1.1 or v2.1 for MS MARCO (default: the only one there); gpqa_diamond, gpqa_main, gpqa_extended or gpqa_experts for GPQA")
	fl.BoolVar(&list, "list", false, "list the datasets import-hf knows, with their configs, splits, files and what each becomes")
	fl.IntVar(&o.Limit, "limit", 0, "import the first `N` rows only (0 = all)")
	fl.BoolVar(&draft, "draft", false, "leave the benchmark a draft")
	return cmd
}

// importHFLong is `benchmark import-hf --help`'s text.
const importHFLong = `import-hf converts a Hugging Face dataset into a benchmark and registers
it, with the checks and the single transaction of create: a failed import
leaves the registry unchanged. --list names the datasets it knows, with
what each becomes (docs/registry.md, "Standard datasets").

Without --from, the files the import needs are downloaded from the Hub
(HF_ENDPOINT, default ` + hf.DefaultEndpoint + `; --revision, default main)
into the Hugging Face cache (HF_HUB_CACHE, else HF_HOME/hub, default
~/.cache/huggingface/hub) in the layout huggingface_hub uses, and read from
there: a second import of the revision downloads nothing. HF_TOKEN is sent
as the bearer token (gated datasets such as GPQA need one, after accepting
their conditions on the dataset page); it is never printed or stored.
HF_HUB_OFFLINE=1 reads the cache only. An interrupted download resumes.

With --from DIR, nothing is downloaded: DIR is a Hugging Face cache folder
(the hub folder, datasets--OWNER--NAME, or snapshots/<revision>; the
revision is recorded in the source) or a plain folder holding the
dataset's files.

DATASET is microsoft/ms_marco (--config v1.1 or v2.1), Idavidrein/gpqa
(--config gpqa_diamond by default; closed-book), BeIR/NAME (any BEIR
dataset: its corpus and queries, with the judgements of --split, default
test, from BeIR/NAME-qrels at main), rajpurkar/squad (SQuAD v1.1),
rajpurkar/squad_v2 (SQuAD v2.0) or google-research-datasets/nq_open
(closed-book). Parquet datasets (MS MARCO, SQuAD, NQ-open) need a lasagna
built with -tags parquet: ` + buildtag.Install + `.

A BEIR dataset becomes the BEIR folder its files unzip to, with that
folder's identity: the same digest and numbers as create --from the folder.

--name defaults to ms_marco-<config>-<split>, the GPQA config, NAME-<split>
for BeIR/NAME, squad-<split>, squad_v2-<split> or nq_open-<split>; --limit N
imports the first N rows of the split (not for BEIR).` + registryNote + `
Exit status: 0 done, 1 the data has problems, the download failed or NAME
is archived, 2 usage error.`

// checkImportHF checks import-hf's arguments before anything is read or
// downloaded: usage errors (exit 2).
func checkImportHF(o *hf.Options) error {
	if o.Dir != "" {
		if o.Revision != "" {
			return usageError("import-hf %s: --revision chooses what to download; with --from, give the snapshots/<revision> folder instead", o.Dataset)
		}
		if _, err := os.Stat(o.Dir); err != nil {
			return usageError("import-hf %s: --from %s: no such folder", o.Dataset, o.Dir)
		}
	}
	if o.Limit < 0 {
		return usageError("import-hf: --limit must be ≥ 0")
	}
	if !hf.Known(o.Dataset) {
		return unknownHFDataset(o.Dataset)
	}
	if o.Name != "" {
		if err := registry.CheckName(o.Name); err != nil {
			return usageError("import-hf: --name: %v", err)
		}
	}
	return nil
}

// unknownHFDataset is the usage error for a dataset import-hf does not
// know, with the nearest known one (a bare name matches its repository:
// squad → rajpurkar/squad).
func unknownHFDataset(dataset string) error {
	var names []string
	for _, sp := range hf.Catalogue() {
		names = append(names, sp.Repo)
	}
	hint := ""
	for _, n := range names {
		if _, base, _ := strings.Cut(n, "/"); strings.EqualFold(base, dataset) {
			hint = fmt.Sprintf("did you mean %q? ", n)
		}
	}
	if s, ok := suggest.Nearest(dataset, names); ok && hint == "" {
		hint = fmt.Sprintf("did you mean %q? ", s)
	}
	return usageError("import-hf: unknown dataset %q; %swant one of %s (see `lasagna benchmark import-hf --list`)", dataset, hint, strings.Join(names, ", "))
}

// importHF imports the dataset o names into the registry and prints what
// it registered.
func importHF(ctx context.Context, stdout io.Writer, o hf.Options) error {
	return withRegistry(ctx, func(r *registry.Registry) error {
		inf, _, err := hf.Import(ctx, r, o)
		if err != nil {
			return fmt.Errorf("import-hf %s: %w", o.Dataset, err)
		}
		// inf.Change is decided under the registry's write lock
		// (see benchmark create).
		fmt.Fprintf(stdout, "%s %s: %s, %s, %s, from %s\n", inf.Change, inf.Revision, plural(inf.Questions, "question"), plural(inf.Documents, "document"), inf.Status, inf.Source.String())
		return nil
	})
}

// printCatalogue writes the datasets import-hf knows (hf.Catalogue).
func printCatalogue(w io.Writer) {
	for i, sp := range hf.Catalogue() {
		if i > 0 {
			fmt.Fprintln(w)
		}
		fmt.Fprintf(w, "%s (%s", sp.Repo, sp.Format)
		if sp.Parquet {
			fmt.Fprint(w, "; needs a lasagna built with -tags parquet")
		}
		fmt.Fprintln(w, ")")
		var opts []string
		switch {
		case len(sp.Configs) > 1 && sp.Config == "":
			opts = append(opts, "--config "+strings.Join(sp.Configs, "|")+" (default: the only one there)")
		case len(sp.Configs) > 1:
			opts = append(opts, "--config "+strings.Join(sp.Configs, "|")+" (default "+sp.Config+")")
		}
		split := "--split " + sp.Split
		switch {
		case len(sp.Splits) == 1:
			split += " (the only split)"
		case len(sp.Splits) > 1:
			split += " (or " + strings.Join(slices.DeleteFunc(slices.Clone(sp.Splits), func(s string) bool { return s == sp.Split }), ", ") + ")"
		default:
			split += " (any qrels file)"
		}
		opts = append(opts, split)
		fmt.Fprintf(w, "  options: %s\n  reads:   %s\n  maps:    %s\n", strings.Join(opts, ", "), sp.Files, sp.Maps)
	}
}

// downloadProgress returns a Hub.Progress that redraws one status line on
// the terminal w per file, at most every 1% (and ends it with the file).
func downloadProgress(w io.Writer) func(file string, done, total int64) {
	var mu sync.Mutex
	last, lastFile := int64(-1), ""
	return func(file string, done, total int64) {
		mu.Lock()
		defer mu.Unlock()
		pct := int64(100)
		if total > 0 {
			pct = done * 100 / total
		}
		if file == lastFile && pct == last && done != total {
			return
		}
		last, lastFile = pct, file
		fmt.Fprintf(w, "\r\033[Kdownloading %s: %s of %s (%d%%)", file, byteSize(done), byteSize(total), pct)
		if done == total {
			fmt.Fprintln(w)
			lastFile = ""
		}
	}
}

// byteSize words n bytes: 512 B, 3.2 kB, 41.0 MB, 1.2 GB.
func byteSize(n int64) string {
	switch {
	case n < 1000:
		return fmt.Sprintf("%d B", n)
	case n < 1_000_000:
		return fmt.Sprintf("%.1f kB", float64(n)/1e3)
	case n < 1_000_000_000:
		return fmt.Sprintf("%.1f MB", float64(n)/1e6)
	}
	return fmt.Sprintf("%.1f GB", float64(n)/1e9)
}
