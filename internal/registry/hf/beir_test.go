package hf_test

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/registry/hf"
	"github.com/lasagna-go/lasagna/internal/registry/hf/hftest"
)

// TestHFImportBEIR: BeIR/NAME with BeIR/NAME-qrels downloaded from the
// fake Hub registers with the digest and the entries of the same BEIR
// folder imported from disk (create --from DIR --format beir), records
// both repositories' commits, reads the cache the second time and
// offline, and is read again from the cache folder with --from.
func TestHFImportBEIR(t *testing.T) {
	corpus, qrels := hftest.BEIR("scifact")
	hub := hftest.New(t, token, corpus, qrels)
	home := t.TempDir()
	r, _ := sqlite(t)
	disk, err := r.Create(bg(), "folder", registry.Files{FS: os.DirFS(hftest.BEIRFolder()), Path: ".", Format: registry.FormatBEIR, Split: "test"})
	if err != nil {
		t.Fatal(err)
	}
	h := hubEnv(t, hub.URL, home, "HF_TOKEN", token)
	inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: "BeIR/scifact", Hub: h})
	if err != nil {
		t.Fatal(err)
	}
	if inf.Name != "scifact-test" || inf.Digest != disk.Digest || inf.Questions != disk.Questions || inf.Documents != disk.Documents {
		t.Errorf("hub import %s %s %d/%d; the folder %s %d/%d", inf.Name, inf.Digest, inf.Questions, inf.Documents, disk.Digest, disk.Questions, disk.Documents)
	}
	want := registry.Source{Kind: "huggingface", SHA256: disk.Digest, Format: "beir", Split: "test", Dataset: "BeIR/scifact", Revision: corpus.SHA(),
		Files: []string{"corpus.jsonl.gz", "queries.jsonl.gz", "BeIR/scifact-qrels@" + qrels.SHA() + "/test.tsv"}}
	if !reflect.DeepEqual(*inf.Source, want) {
		t.Errorf("source = %+v\nwant %+v", *inf.Source, want)
	}
	a, _, err := r.Entries(bg(), "folder", 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	b, _, err := r.Entries(bg(), inf.Name, 0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(a, b) {
		t.Errorf("entries differ:\n%+v\n%+v", a, b)
	}
	for _, q := range hub.Requests() {
		if strings.Contains(q.Path, "dev.tsv") || strings.HasSuffix(q.Path, ".py") || strings.Contains(q.Path, "README") {
			t.Errorf("a file the import does not read was requested: %s", q.Path)
		}
	}
	files := hub.FileRequests()
	if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: "beir/scifact", Hub: h}); err != nil || hub.FileRequests() != files {
		t.Errorf("again: %v, %d file requests more", err, hub.FileRequests()-files)
	}
	off := hubEnv(t, hub.URL, home, "HF_HUB_OFFLINE", "1")
	n := len(hub.Requests())
	if got, _, err := hf.Import(bg(), r, hf.Options{Dataset: "BeIR/scifact", Hub: off, Name: "offline"}); err != nil || got.Digest != disk.Digest || len(hub.Requests()) != n {
		t.Errorf("offline: %v, %d requests", err, len(hub.Requests())-n)
	}
	// The cache folder as --from: the qrels repository is found beside.
	for _, dir := range []string{filepath.Join(home, "hub"), filepath.Join(home, "hub", "datasets--BeIR--scifact"), filepath.Join(home, "hub", "datasets--BeIR--scifact", "snapshots", corpus.SHA())} {
		got, _, err := hf.Import(bg(), r, hf.Options{Dataset: "BeIR/scifact", Dir: dir, Name: "cached"})
		if err != nil || got.Digest != disk.Digest || got.Source.Revision != corpus.SHA() || got.Source.Files[2] != "BeIR/scifact-qrels@"+qrels.SHA()+"/test.tsv" {
			t.Errorf("--from %s: %v %+v", dir, err, got.Source)
		}
	}
	// Another split, and one the qrels repository lacks.
	dev, _, err := hf.Import(bg(), r, hf.Options{Dataset: "BeIR/scifact", Hub: h, Split: "dev"})
	if err != nil || dev.Name != "scifact-dev" || dev.Questions != 1 {
		t.Errorf("dev: %v %+v", err, dev)
	}
	_, _, err = hf.Import(bg(), r, hf.Options{Dataset: "BeIR/scifact", Hub: h, Split: "train"})
	if err == nil || !strings.Contains(err.Error(), "BeIR/scifact-qrels at revision main ("+qrels.SHA()[:12]+") has no train.tsv: no split train; it has dev, test (choose one with --split)") {
		t.Errorf("train: %v", err)
	}
	for _, c := range []struct {
		o    hf.Options
		want string
	}{
		{hf.Options{Dataset: "BeIR/scifact-qrels"}, "give the corpus repository BeIR/NAME"},
		{hf.Options{Dataset: "BeIR/scifact", Limit: 2}, "--limit is not for a BEIR dataset"},
		{hf.Options{Dataset: "BeIR/scifact", Config: "x"}, "BeIR/scifact has no configs"},
		{hf.Options{Dataset: "BeIR/nfcorpus"}, "BeIR/nfcorpus: no such dataset on"},
	} {
		c.o.Hub = h
		if _, _, err := hf.Import(bg(), r, c.o); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want %q", c.o, err, c.want)
		}
	}
	noSecret(t, home)
}

// TestHFImportBEIRPlainFolder: a plain folder with the Hub's files (and
// qrels/<split>.tsv) imports as the BEIR folder it unzips to.
func TestHFImportBEIRPlainFolder(t *testing.T) {
	corpus, qrels := hftest.BEIR("scifact")
	dir := t.TempDir()
	for p, data := range corpus.Files {
		os.WriteFile(filepath.Join(dir, p), data, 0o644)
	}
	r, _ := sqlite(t)
	_, _, err := hf.Import(bg(), r, hf.Options{Dataset: "BeIR/scifact", Dir: dir})
	if err == nil || !strings.Contains(err.Error(), "(no datasets--BeIR--scifact-qrels beside it) has no test.tsv") {
		t.Errorf("no qrels: %v", err)
	}
	os.MkdirAll(filepath.Join(dir, "qrels"), 0o755)
	os.WriteFile(filepath.Join(dir, "qrels", "test.tsv"), qrels.Files["test.tsv"], 0o644)
	disk, err := r.Create(bg(), "folder", registry.Files{FS: os.DirFS(hftest.BEIRFolder()), Path: ".", Format: registry.FormatBEIR})
	if err != nil {
		t.Fatal(err)
	}
	inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: "BeIR/scifact", Dir: dir})
	if err != nil || inf.Digest != disk.Digest || !reflect.DeepEqual(inf.Source.Files, []string{"corpus.jsonl.gz", "queries.jsonl.gz", "qrels/test.tsv"}) {
		t.Errorf("plain folder: %v %+v", err, inf.Source)
	}
	os.WriteFile(filepath.Join(dir, "corpus.jsonl.gz"), []byte("not gzip"), 0o644)
	if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: "BeIR/scifact", Dir: dir}); err == nil || !strings.Contains(err.Error(), "corpus.jsonl.gz: not a gzip file") {
		t.Errorf("damaged: %v", err)
	}
}
