package hf

import (
	"bufio"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A BEIR dataset on the Hub is two repositories: BeIR/NAME holds
// corpus.jsonl.gz and queries.jsonl.gz (the files of BEIR's own zip,
// gzipped), BeIR/NAME-qrels one <split>.tsv per split (query-id,
// corpus-id, score, with a header). The import writes them, unzipped and
// byte for byte, as the BEIR folder NAME/{corpus.jsonl, queries.jsonl,
// qrels/<split>.tsv} and registers that folder as `create --from` would:
// the same digest, entries and numbers as the folder on disk.

// beirCorpusFiles picks the corpus and queries of a BeIR/NAME revision:
// corpus.jsonl.gz (or corpus.jsonl) and queries.jsonl.gz (or
// queries.jsonl).
func beirCorpusFiles(names []string, where string) ([]string, error) {
	var out, missing []string
	for _, base := range []string{"corpus", "queries"} {
		switch {
		case slices.Contains(names, base+".jsonl.gz"):
			out = append(out, base+".jsonl.gz")
		case slices.Contains(names, base+".jsonl"):
			out = append(out, base+".jsonl")
		default:
			missing = append(missing, base+".jsonl.gz")
		}
	}
	if len(missing) > 0 {
		var parquet []string
		for _, n := range names {
			if strings.HasSuffix(n, ".parquet") {
				parquet = append(parquet, n)
			}
		}
		hint := ""
		if len(parquet) > 0 {
			hint = " (only parquet files: " + listed(parquet, "") + "; this is not BEIR's layout)"
		}
		return nil, fmt.Errorf("%s has no %s%s; a BEIR dataset (BeIR/NAME) holds corpus.jsonl.gz and queries.jsonl.gz", where, strings.Join(missing, " or "), hint)
	}
	return out, nil
}

// beirQrelsFiles picks <split>.tsv (or qrels/<split>.tsv) of a
// BeIR/NAME-qrels revision.
func beirQrelsFiles(names []string, split, where string) ([]string, error) {
	for _, want := range []string{split + ".tsv", "qrels/" + split + ".tsv"} {
		if slices.Contains(names, want) {
			return []string{want}, nil
		}
	}
	var tsv []string
	for _, n := range names {
		if strings.HasSuffix(n, ".tsv") {
			tsv = append(tsv, strings.TrimSuffix(path.Base(n), ".tsv"))
		}
	}
	return nil, fmt.Errorf("%s has no %s.tsv: no split %s; it has %s (choose one with --split)", where, split, split, listed(tsv, "no .tsv file"))
}

// locateQrels finds BeIR/NAME-qrels in the Hugging Face cache that holds
// dir (the hub folder, datasets--BeIR--NAME or one of its snapshots):
// its snapshot folder and revision; ok is false when the cache has none.
func locateQrels(dir, dataset string) (root, rev string, ok bool, err error) {
	dir = filepath.Clean(dir)
	hubs := []string{dir}
	if filepath.Base(dir) == repoFolder(dataset) {
		hubs = append(hubs, filepath.Dir(dir))
	}
	if filepath.Base(filepath.Dir(dir)) == "snapshots" {
		hubs = append(hubs, filepath.Dir(filepath.Dir(filepath.Dir(dir))))
	}
	for _, h := range hubs {
		if isDir(filepath.Join(h, repoFolder(dataset+"-qrels"))) {
			root, rev, err = locate(h, dataset+"-qrels")
			return root, rev, err == nil, err
		}
	}
	return "", "", false, nil
}

// convertBEIR writes the BEIR folder of o (root holds the corpus and
// queries) into out and returns it with the files read, as the source
// records them.
func convertBEIR(ctx context.Context, root string, o Options, out string) (Converted, []string, error) {
	name, _ := beirName(o.Dataset)
	all, err := listFiles(root)
	if err != nil {
		return Converted{}, nil, err
	}
	files, err := beirCorpusFiles(all, root)
	if err != nil {
		return Converted{}, nil, err
	}
	qroot, qrev := o.qrels, o.qrelsRev
	qrepo := o.Dataset + "-qrels"
	if qroot == "" {
		var ok bool
		if qroot, qrev, ok, err = locateQrels(o.Dir, o.Dataset); err != nil {
			return Converted{}, nil, err
		}
		if !ok { // a plain folder: qrels/<split>.tsv beside the corpus
			qroot, qrepo = root, ""
		}
	}
	qall, err := listFiles(qroot)
	if err != nil {
		return Converted{}, nil, err
	}
	where := qroot
	if qrepo == "" {
		where = root + " (no " + repoFolder(o.Dataset+"-qrels") + " beside it)"
	}
	qfiles, err := beirQrelsFiles(qall, o.Split, where)
	if err != nil {
		return Converted{}, nil, err
	}
	conv := Converted{Main: name, BEIR: true}
	dst := filepath.Join(out, name)
	if err := os.MkdirAll(filepath.Join(dst, "qrels"), 0o755); err != nil {
		return conv, nil, err
	}
	for _, f := range files {
		base := strings.TrimSuffix(f, ".gz")
		if err := copyMaybeGzip(ctx, filepath.Join(root, filepath.FromSlash(f)), filepath.Join(dst, base)); err != nil {
			return conv, nil, err
		}
	}
	if err := copyMaybeGzip(ctx, filepath.Join(qroot, filepath.FromSlash(qfiles[0])), filepath.Join(dst, "qrels", o.Split+".tsv")); err != nil {
		return conv, nil, err
	}
	recorded := slices.Clone(files)
	switch {
	case qrepo != "" && qrev != "":
		recorded = append(recorded, qrepo+"@"+qrev+"/"+qfiles[0])
	case qrepo != "":
		recorded = append(recorded, qrepo+"/"+qfiles[0])
	default:
		recorded = append(recorded, qfiles[0])
	}
	return conv, recorded, nil
}

// copyMaybeGzip copies src to dst, unzipping it when its name ends in .gz.
func copyMaybeGzip(ctx context.Context, src, dst string) error {
	in, err := openRegular(src)
	if err != nil {
		return err
	}
	defer in.Close()
	var r io.Reader = bufio.NewReaderSize(in, 1<<20)
	if strings.HasSuffix(src, ".gz") {
		zr, err := gzip.NewReader(r)
		if err != nil {
			return fmt.Errorf("%s: not a gzip file (%v); download it again", src, err)
		}
		defer zr.Close()
		r = zr
	}
	w, err := create(filepath.Dir(dst), filepath.Base(dst))
	if err != nil {
		return err
	}
	defer w.Close()
	buf := make([]byte, 256<<10)
	for {
		if err := ctx.Err(); err != nil {
			return err
		}
		n, rerr := r.Read(buf)
		if n > 0 {
			if _, err := w.Write(buf[:n]); err != nil {
				return err
			}
		}
		if errors.Is(rerr, io.EOF) {
			break
		}
		if rerr != nil {
			return fmt.Errorf("%s: %w (a damaged download: remove it and download again)", src, rerr)
		}
	}
	return w.Close()
}
