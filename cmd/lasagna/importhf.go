package main

import (
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"

	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/registry/hf"
)

// newImportHFCmd is `lasagna benchmark import-hf`: a Hugging Face dataset
// downloaded on disk into the registry (package registry/hf).
func newImportHFCmd(stdout io.Writer) *cobra.Command {
	var (
		o     hf.Options
		draft bool
	)
	cmd := &cobra.Command{
		Use:   "import-hf DATASET --from DIR [--name N] [--split S] [--limit N] [--config C]",
		Short: "Register a Hugging Face dataset downloaded on disk (MS MARCO, GPQA)",
		Long: `import-hf converts a Hugging Face dataset on disk into a benchmark and
registers it, with the checks and the single transaction of create: a
failed import leaves the registry unchanged. Nothing is downloaded.

DATASET is microsoft/ms_marco (--config v1.1 or v2.1; parquet; --split
validation by default) or Idavidrein/gpqa (--config gpqa_diamond by
default; closed-book: no corpus). DIR is a Hugging Face cache folder (the
hub folder, datasets--OWNER--NAME, or snapshots/<revision>; the revision is
recorded in the source) or a plain folder holding the dataset's files.

MS MARCO: each row is an entry (id = query_id; answers, then well-formed
answers; "No Answer Present." marks it unanswerable); every passage of the
imported rows is a corpus document once (id p + 16 hex of its sha256),
and the selected passages are the entry's expected_docs. GPQA: answer =
Correct Answer; metadata holds the four choices (sorted), the incorrect
answers, domain, subdomain and explanation.

--name defaults to ms_marco-<config>-<split> or the GPQA config; --limit N
imports the first N rows of the split.` + registryNote + `
Exit status: 0 done, 1 the data has problems or NAME is archived, 2 usage
error.`,
		Args: exactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			o.Dataset, o.Draft = args[0], draft
			if o.Dir == "" {
				return usageError("import-hf %s: give --from DIR (a Hugging Face cache folder or a folder holding the dataset's files)", o.Dataset)
			}
			if _, err := os.Stat(o.Dir); err != nil {
				return usageError("import-hf %s: --from %s: no such folder", o.Dataset, o.Dir)
			}
			if o.Limit < 0 {
				return usageError("import-hf: --limit must be ≥ 0")
			}
			switch o.Dataset {
			case hf.MSMARCO, hf.GPQA:
			default:
				return usageError("import-hf: unknown dataset %q; want %s (--config v1.1 or v2.1) or %s", o.Dataset, hf.MSMARCO, hf.GPQA)
			}
			if o.Name != "" {
				if err := registry.CheckName(o.Name); err != nil {
					return usageError("import-hf: --name: %v", err)
				}
			}
			ctx := c.Context()
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
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&o.Dir, "from", "", "the dataset's `DIR`: a Hugging Face cache folder or a plain folder")
	fl.StringVar(&o.Name, "name", "", "register as `NAME` (default ms_marco-<config>-<split> or gpqa_diamond)")
	fl.StringVar(&o.Split, "split", "", "`SPLIT` to import (MS MARCO: validation by default; GPQA: train)")
	fl.StringVar(&o.Config, "config", "", "`CONFIG`: v1.1 or v2.1 for MS MARCO (default: the only one on disk); gpqa_diamond, gpqa_main, gpqa_extended or gpqa_experts for GPQA")
	fl.IntVar(&o.Limit, "limit", 0, "import the first `N` rows only (0 = all)")
	fl.BoolVar(&draft, "draft", false, "leave the benchmark a draft")
	return cmd
}
