// Package hf imports Hugging Face datasets into the benchmark registry
// (Catalogue lists them): MS MARCO (microsoft/ms_marco, configs v1.1 and
// v2.1, parquet), GPQA (Idavidrein/gpqa, gpqa_diamond.csv and its sibling
// CSVs), any BEIR dataset (BeIR/NAME with BeIR/NAME-qrels), SQuAD v1.1 and
// 2.0 (rajpurkar/squad, rajpurkar/squad_v2, parquet) and NQ-open
// (google-research-datasets/nq_open, parquet). The files
// come from a folder on disk (Options.Dir: a Hugging Face cache folder —
// the hub folder, datasets--OWNER--NAME, or one of its
// snapshots/<revision> folders; the revision is recorded in the source —
// or a plain folder holding the dataset's files), or, without one, from
// the Hub: Hub downloads the files the import needs into the Hub's cache
// layout, as huggingface_hub does, and reads them from there
// (docs/registry.md, "Downloading from the Hub").
//
// Convert streams the dataset into the canonical files the datasets
// loaders read (a JSONL file, plus a BEIR-layout corpus.jsonl for MS
// MARCO) in a folder: parquet rows are read a batch at a time from each
// row group (values taken column by column, without reflection), CSV
// records one by one, and written through a buffer, so no row is kept;
// what grows is a 16-byte key per distinct passage (deduplication) and a
// map entry per query id (duplicates are errors). Import converts into a
// temporary folder and stores the files as a revision with
// registry.Import (the same validation, one transaction), recording the
// dataset, revision, config, split and limit as its source. registry.Import
// itself loads the files whole (see BENCHMARKS.md).
//
// MS MARCO: each row is an entry with id = query_id, question = query,
// answers = answers then wellFormedAnswers (each once); a row with no
// answer but "No Answer Present." is unanswerable (and has no
// expected_docs). Every passage of the
// imported rows goes into the corpus once, in order of first appearance,
// as {"_id": "p" + 16 hex of sha256(passage_text), "text", "url"} (the
// first url seen); the selected passages (is_selected = 1) are the entry's
// expected_docs. metadata holds query_id and query_type.
//
// BEIR: the gzipped corpus and queries and the split's qrels file are
// written, unzipped and byte for byte, as a BEIR folder and registered as
// one (registry.FormatBEIR), so the benchmark has that folder's identity.
//
// SQuAD: id = id, question, answers = the distinct answers.text, contexts
// = [context], metadata title; a SQuAD 2.0 row without answers is
// unanswerable. NQ-open: closed-book, id = "nq-" + 12 hex of
// sha256(question) ("-2", "-3"… for a repeated question), answers =
// answer.
//
// GPQA: each row is a closed-book entry (no contexts, no corpus) with id =
// Record ID, question = Question, answer = Correct Answer, and metadata
// choices (the correct and the three incorrect answers, sorted, so the
// correct one's position tells nothing), incorrect_answers, domain (High-
// level domain), subdomain and explanation.
package hf

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"syscall"

	"github.com/lasagna-go/lasagna/internal/registry"
)

// Options say what to import.
type Options struct {
	// Dataset is a repository of Catalogue (BeIR/NAME for BEIR).
	Dataset string
	// Dir is the folder: a Hugging Face cache folder or a plain folder
	// with the dataset's files.
	Dir string
	// Config is v1.1 or v2.1 for MS MARCO ("" = the only one on disk);
	// gpqa_diamond (the default), gpqa_main, gpqa_extended or
	// gpqa_experts for GPQA.
	Config string
	// Split is the split to read: validation by default for MS MARCO;
	// GPQA has only train.
	Split string
	// Limit, when > 0, imports the first Limit rows of the split.
	Limit int
	// Name is the registry name ("" = DefaultName).
	Name string
	// Draft leaves the benchmark a draft (registry.ImportOptions.Draft).
	Draft bool
	// Revision is the branch, tag or commit to download when Dir is ""
	// ("" = main).
	Revision string
	// Hub is where to download from when Dir is "" (nil = HubFromEnv of
	// the process's environment).
	Hub *Hub

	// qrels is the folder of a BEIR dataset's judgements and qrelsRev
	// its commit, when they were downloaded (else they are found beside
	// Dir).
	qrels, qrelsRev string
}

// Converted describes the canonical files Convert wrote.
type Converted struct {
	// Main is the JSONL file's name in the output folder (the BEIR
	// folder's, when BEIR is set); Corpus the corpus file's ("" for a
	// closed-book dataset or a BEIR folder).
	Main, Corpus string
	// BEIR reports that Main is a folder in the BEIR layout.
	BEIR bool
	// Rows is the number of entries, Documents of corpus documents.
	Rows, Documents int
	// Source is the source to record (Kind huggingface).
	Source registry.Source
}

// DefaultName is the registry name an import gets without Options.Name:
// ms_marco-<config>-<split>, the GPQA config (gpqa_diamond), NAME-<split>
// for BeIR/NAME, squad-<split>, squad_v2-<split> or nq_open-<split>; ""
// when the options do not name a dataset (or, without a config, the folder
// holds no single MS MARCO config).
func DefaultName(o Options) string {
	o, err := o.normalize()
	if err != nil {
		return ""
	}
	if name, ok := beirName(o.Dataset); ok {
		return name + "-" + o.Split
	}
	switch o.Dataset {
	case GPQA:
		return o.Config
	case SQuAD, SQuADv2, NQOpen:
		_, repo, _ := strings.Cut(o.Dataset, "/")
		return repo + "-" + o.Split
	}
	if o.Config == "" { // the only config on disk
		root, _, err := locate(o.Dir, o.Dataset)
		if err != nil {
			return ""
		}
		if o.Config, err = onlyConfig(root); err != nil {
			return ""
		}
	}
	return "ms_marco-" + o.Config + "-" + o.Split
}

// Import converts the dataset opts names and registers it in r (see the
// package documentation). A failed import leaves r unchanged.
func Import(ctx context.Context, r *registry.Registry, opts Options) (registry.Info, Converted, error) {
	name := opts.Name
	if name != "" {
		if err := registry.CheckName(name); err != nil {
			return registry.Info{}, Converted{}, err
		}
	}
	downloaded := opts.Dir == ""
	if downloaded {
		o, err := opts.normalize()
		if err != nil {
			return registry.Info{}, Converted{}, err
		}
		hub := opts.Hub
		if hub == nil {
			h, err := HubFromEnv(os.Getenv)
			if err != nil {
				return registry.Info{}, Converted{}, err
			}
			hub = &h
		}
		got, err := hub.download(ctx, o)
		if err != nil {
			return registry.Info{}, Converted{}, err
		}
		opts.Dir, opts.Config, opts.qrels, opts.qrelsRev = got.Dir, got.Config, got.qrels, got.qrelsRev
	} else if opts.Revision != "" {
		return registry.Info{}, Converted{}, errors.New("a revision chooses what to download; with a folder, give its snapshots/<revision> folder instead")
	}
	tmp, err := os.MkdirTemp("", "lasagna-hf-")
	if err != nil {
		return registry.Info{}, Converted{}, err
	}
	defer os.RemoveAll(tmp)
	conv, err := Convert(ctx, opts, tmp)
	if errors.Is(err, syscall.ENOSPC) {
		return registry.Info{}, Converted{}, fmt.Errorf("%w; the dataset is converted in a temporary folder first: free space on the disk holding %s, or set TMPDIR to a folder with room", err, filepath.Dir(tmp))
	}
	if err != nil {
		return registry.Info{}, Converted{}, err
	}
	if name == "" {
		o := opts
		o.Config = conv.Source.Config
		name = DefaultName(o)
	}
	files := registry.Files{FS: os.DirFS(tmp), Path: conv.Main, Format: registry.FormatJSONL, Corpus: conv.Corpus}
	if conv.BEIR {
		files = registry.Files{FS: os.DirFS(tmp), Path: conv.Main, Format: registry.FormatBEIR, Split: conv.Source.Split}
	}
	src := conv.Source
	if downloaded {
		src.Path = "" // the repository and commit say where it came from
	}
	inf, err := r.Import(ctx, name, files, registry.ImportOptions{Draft: opts.Draft, Source: &src})
	if err != nil {
		return registry.Info{}, conv, fmt.Errorf("%s converted from %s: %w", conv.Main, opts.Dir, err)
	}
	return inf, conv, nil
}

// nulMsg refuses a source value holding NUL, which no benchmark text may
// hold (docs/data.md, "Text").
const nulMsg = "holds a NUL (U+0000); text may not contain NUL, which a PostgreSQL registry cannot store: remove it from the source file"

// normalize checks the dataset and fills the default config and split
// (see Catalogue).
func (o Options) normalize() (Options, error) {
	if o.Limit < 0 {
		return o, fmt.Errorf("limit %d: want 0 (all rows) or more", o.Limit)
	}
	if name, ok := beirName(o.Dataset); ok {
		if name == "" || strings.HasSuffix(name, "-qrels") {
			return o, fmt.Errorf("%s: give the corpus repository %s/NAME (BeIR/scifact, say); its judgements are read from %s/NAME-qrels with it", o.Dataset, BEIROwner, BEIROwner)
		}
		o.Dataset = BEIROwner + "/" + name
		if o.Config != "" {
			return o, fmt.Errorf("%s has no configs (--config %q); choose the qrels file with --split", o.Dataset, o.Config)
		}
		if o.Limit > 0 {
			return o, fmt.Errorf("%s: --limit is not for a BEIR dataset: its benchmark is the whole corpus and the split's judged queries, so that it has the identity of the same BEIR folder on disk", o.Dataset)
		}
		if o.Split == "" {
			o.Split = "test"
		}
		if strings.ContainsAny(o.Split, "/\\") || o.Split == "." || o.Split == ".." {
			return o, fmt.Errorf("%s: bad split %q; a split names the qrels file <split>.tsv", o.Dataset, o.Split)
		}
		return o, nil
	}
	var sp *Spec
	for _, c := range Catalogue() {
		if strings.EqualFold(o.Dataset, c.Repo) {
			sp = &c
			break
		}
	}
	if sp == nil {
		return o, fmt.Errorf("unknown dataset %q; want one of %s (lasagna benchmark import-hf --list)", o.Dataset, strings.Join(repos(), ", "))
	}
	o.Dataset = sp.Repo
	switch {
	case o.Config == "":
		o.Config = sp.Config
	case o.Config != "" && !slices.Contains(sp.Configs, o.Config):
		return o, fmt.Errorf("%s: unknown config %q; want %s", sp.Repo, o.Config, orList(sp.Configs))
	}
	if o.Split == "" {
		o.Split = sp.Split
	}
	if len(sp.Splits) > 0 && !slices.Contains(sp.Splits, o.Split) {
		if len(sp.Splits) == 1 {
			return o, fmt.Errorf("%s has only the split %s, not %q", sp.Repo, sp.Splits[0], o.Split)
		}
		return o, fmt.Errorf("%s has the splits %s, not %q", sp.Repo, orList(sp.Splits), o.Split)
	}
	return o, nil
}

// orList words names as "a", "a or b", "a, b or c".
func orList(names []string) string {
	if len(names) <= 1 {
		return strings.Join(names, "")
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Convert writes the dataset opts names into the folder out as canonical
// files (see the package documentation) and returns what it wrote.
// Problems in the data name the file, the row and the column.
func Convert(ctx context.Context, opts Options, out string) (Converted, error) {
	o, err := opts.normalize()
	if err != nil {
		return Converted{}, err
	}
	root, rev, err := locate(o.Dir, o.Dataset)
	if err != nil {
		return Converted{}, err
	}
	src := registry.Source{Kind: "huggingface", Path: o.Dir, Dataset: o.Dataset, Revision: rev, Split: o.Split, Limit: o.Limit}
	var conv Converted
	switch o.Dataset {
	case GPQA:
		src.Config, src.Format = o.Config, "csv"
		src.Files = []string{o.Config + ".csv"}
		conv, err = convertGPQA(ctx, root, o, out)
	case MSMARCO:
		if o.Config == "" {
			if o.Config, err = onlyConfig(root); err != nil {
				return Converted{}, err
			}
		}
		src.Config, src.Format = o.Config, "parquet"
		if all, lerr := listFiles(root); lerr == nil {
			src.Files, _ = matchParquet(all, o.Dataset, o.Config, o.Split, root)
		}
		conv, err = convertMSMARCO(ctx, root, o, out)
	case SQuAD, SQuADv2, NQOpen:
		src.Config, src.Format = o.Config, "parquet"
		if all, lerr := listFiles(root); lerr == nil {
			src.Files, _ = matchParquet(all, o.Dataset, o.Config, o.Split, root)
		}
		conv, err = convertQA(ctx, root, o, out)
	default: // BeIR/NAME
		src.Format = "beir"
		conv, src.Files, err = convertBEIR(ctx, root, o, out)
	}
	conv.Source = src
	return conv, err
}

// locate finds the folder holding the dataset's files under dir: dir
// itself, or in a Hugging Face cache the snapshot refs/main names (or the
// only snapshot). rev is the snapshot's revision ("" for a plain folder).
func locate(dir, dataset string) (root, rev string, err error) {
	st, err := os.Stat(dir)
	if err != nil {
		return "", "", fmt.Errorf("--from %s: %w", dir, errors.Unwrap(err))
	}
	if !st.IsDir() {
		return "", "", fmt.Errorf("--from %s is a file; give the folder holding the dataset (a Hugging Face cache folder or a plain folder)", dir)
	}
	repo := "datasets--" + strings.ReplaceAll(dataset, "/", "--")
	if isDir(filepath.Join(dir, repo)) { // the hub folder
		dir = filepath.Join(dir, repo)
	}
	if isDir(filepath.Join(dir, "snapshots")) { // datasets--OWNER--NAME
		snaps := filepath.Join(dir, "snapshots")
		if ref, err := os.ReadFile(filepath.Join(dir, "refs", "main")); err == nil {
			rev = strings.TrimSpace(string(ref))
			if !isDir(filepath.Join(snaps, rev)) {
				return "", "", fmt.Errorf("%s names revision %s, which has no folder in %s; download the dataset again or give the snapshot folder", filepath.Join(dir, "refs", "main"), rev, snaps)
			}
			return filepath.Join(snaps, rev), rev, nil
		}
		ents, err := os.ReadDir(snaps)
		if err != nil {
			return "", "", err
		}
		var revs []string
		for _, e := range ents {
			if e.IsDir() {
				revs = append(revs, e.Name())
			}
		}
		switch len(revs) {
		case 0:
			return "", "", fmt.Errorf("%s holds no snapshot; download the dataset first", snaps)
		case 1:
			return filepath.Join(snaps, revs[0]), revs[0], nil
		}
		return "", "", fmt.Errorf("%s holds %d snapshots (%s) and no refs/main; give one snapshot folder with --from", snaps, len(revs), strings.Join(revs, ", "))
	}
	if filepath.Base(filepath.Dir(filepath.Clean(dir))) == "snapshots" { // a snapshot folder
		rev = filepath.Base(filepath.Clean(dir))
	}
	return dir, rev, nil
}

func isDir(p string) bool {
	st, err := os.Stat(p)
	return err == nil && st.IsDir()
}

// openRegular opens p, refusing anything but a regular file (a symbolic
// link, as in the Hugging Face cache, is followed).
func openRegular(p string) (*os.File, error) {
	f, err := os.Open(p)
	if err != nil {
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, err
	}
	if !st.Mode().IsRegular() {
		f.Close()
		return nil, fmt.Errorf("%s is not a regular file (%s)", p, st.Mode().Type())
	}
	return f, nil
}

// output is a buffered file in the output folder.
type output struct {
	f *os.File
	*bufio.Writer
}

func create(dir, name string) (*output, error) {
	f, err := os.Create(filepath.Join(dir, name))
	if err != nil {
		return nil, err
	}
	return &output{f: f, Writer: bufio.NewWriterSize(f, 1<<20)}, nil
}

func (o *output) Close() error {
	err := o.Flush()
	if cerr := o.f.Close(); err == nil {
		err = cerr
	}
	return err
}

// listFiles returns the names below root (slash-separated, sorted).
func listFiles(root string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && strings.HasPrefix(d.Name(), ".") && p != root {
			return filepath.SkipDir
		}
		if !d.IsDir() {
			rel, err := filepath.Rel(root, p)
			if err != nil {
				return err
			}
			out = append(out, filepath.ToSlash(rel))
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}
