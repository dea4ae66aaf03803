package hf_test

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/buildtag"
	"github.com/lasagna-go/lasagna/internal/datasets"
	"github.com/lasagna-go/lasagna/internal/pgtest"
	"github.com/lasagna-go/lasagna/internal/registry"
	"github.com/lasagna-go/lasagna/internal/registry/hf"
)

func TestMain(m *testing.M) {
	code := m.Run()
	pgtest.Stop()
	os.Exit(code)
}

// eachBackend runs fn against a SQLite registry and one in a throwaway
// PostgreSQL database (skipped, saying what to install, without a server).
func eachBackend(t *testing.T, fn func(t *testing.T, r *registry.Registry)) {
	for _, b := range []struct {
		name string
		dsn  func(t *testing.T) string
	}{
		{"sqlite", func(t *testing.T) string { return filepath.Join(t.TempDir(), "registry.db") }},
		{"postgres", func(t *testing.T) string { return pgtest.Database(t) }},
	} {
		t.Run(b.name, func(t *testing.T) {
			r, err := registry.Open(bg(), b.dsn(t))
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { r.Close() })
			fn(t, r)
		})
	}
}

func bg() context.Context { return context.Background() }

// hfCache lays out dataset files the way huggingface_hub's cache does:
// hub/datasets--OWNER--NAME/{blobs/<sha256>, snapshots/<rev>/<file> (a
// symbolic link to the blob), refs/main}. It returns the hub folder.
func hfCache(t testing.TB, dataset, rev string, files map[string]string) string {
	t.Helper()
	hub := t.TempDir()
	repo := filepath.Join(hub, "datasets--"+strings.ReplaceAll(dataset, "/", "--"))
	for name, src := range files {
		data, err := os.ReadFile(src)
		if err != nil {
			t.Fatal(err)
		}
		sum := sha256.Sum256(data)
		blob := filepath.Join(repo, "blobs", hex.EncodeToString(sum[:]))
		link := filepath.Join(repo, "snapshots", rev, filepath.FromSlash(name))
		for _, d := range []string{filepath.Dir(blob), filepath.Dir(link)} {
			if err := os.MkdirAll(d, 0o755); err != nil {
				t.Fatal(err)
			}
		}
		if err := os.WriteFile(blob, data, 0o644); err != nil {
			t.Fatal(err)
		}
		rel, err := filepath.Rel(filepath.Dir(link), blob)
		if err != nil {
			t.Fatal(err)
		}
		if err := os.Symlink(rel, link); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.MkdirAll(filepath.Join(repo, "refs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(repo, "refs", "main"), []byte(rev), 0o644); err != nil {
		t.Fatal(err)
	}
	return hub
}

const rev = "0123456789abcdef0123456789abcdef01234567"

// msCache is a Hub cache holding MS MARCO v1.1's validation split: the
// committed fixture, which TestCommittedMSMARCOFixture (build tag parquet)
// keeps equal to msFixture written by parquet-go in two row groups.
func msCache(t *testing.T) string {
	return hfCache(t, hf.MSMARCO, rev, map[string]string{"v1.1/validation-00000-of-00001.parquet": "testdata/ms_marco/v1.1/validation-00000-of-00001.parquet"})
}

func TestLocateCache(t *testing.T) {
	hub := msCache(t)
	repo := filepath.Join(hub, "datasets--microsoft--ms_marco")
	os.MkdirAll(filepath.Join(repo, "snapshots", "fedcba9876543210fedcba9876543210fedcba98"), 0o755)
	os.Remove(filepath.Join(repo, "refs", "main"))
	_, err := hf.Convert(bg(), hf.Options{Dataset: hf.MSMARCO, Dir: hub}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "holds 2 snapshots") || !strings.Contains(err.Error(), rev) {
		t.Errorf("two snapshots, no refs/main: err = %v", err)
	}
	os.MkdirAll(filepath.Join(repo, "snapshots", rev, "v2.1"), 0o755)
	_, err = hf.Convert(bg(), hf.Options{Dataset: hf.MSMARCO, Dir: filepath.Join(repo, "snapshots", rev)}, t.TempDir())
	if err == nil || !strings.Contains(err.Error(), "holds the configs v1.1 and v2.1; choose one with --config") {
		t.Errorf("two configs: err = %v", err)
	}
	for _, o := range []hf.Options{
		{Dataset: "squad", Dir: hub},
		{Dataset: hf.MSMARCO, Dir: hub, Config: "v3"},
		{Dataset: hf.GPQA, Dir: hub, Split: "test"},
	} {
		if _, err := hf.Convert(bg(), o, t.TempDir()); err == nil {
			t.Errorf("%+v: no error", o)
		}
	}
}

func TestImportGPQA(t *testing.T) {
	eachBackend(t, func(t *testing.T, r *registry.Registry) {
		hub := hfCache(t, hf.GPQA, rev, map[string]string{"gpqa_diamond.csv": "testdata/gpqa/gpqa_diamond.csv"})
		inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Dir: hub})
		if err != nil {
			t.Fatal(err)
		}
		if inf.Name != "gpqa_diamond" || inf.Questions != 3 || inf.Documents != 0 {
			t.Errorf("info = %s, %d questions, %d documents; want gpqa_diamond, 3, 0", inf.Name, inf.Questions, inf.Documents)
		}
		want := registry.Source{Kind: "huggingface", Path: hub, SHA256: inf.Digest, Format: "csv", Split: "train", Dataset: hf.GPQA, Revision: rev, Config: "gpqa_diamond", Files: []string{"gpqa_diamond.csv"}}
		if !reflect.DeepEqual(*inf.Source, want) {
			t.Errorf("source = %+v, want %+v", inf.Source, want)
		}
		es, _, err := r.Entries(bg(), inf.Name, 0, 0)
		if err != nil {
			t.Fatal(err)
		}
		e := es[1]
		if e.ID != "recFIXTURE002" || e.Answer != "An aldehyde" || !strings.HasPrefix(e.Question, "Which functional group") ||
			fmt.Sprint(e.Metadata["choices"]) != "[A ketone An aldehyde An ester An ether]" ||
			fmt.Sprint(e.Metadata["incorrect_answers"]) != "[A ketone An ester An ether]" ||
			e.Metadata["domain"] != "Chemistry" || e.Metadata["subdomain"] != "Organic Chemistry" || !strings.HasPrefix(fmt.Sprint(e.Metadata["explanation"]), "Mild anhydrous") {
			t.Errorf("entry = %+v", e)
		}
		b, err := r.Resolve(bg(), inf.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range datasets.Capabilities(b) {
			if want := c.Track == lasagna.TrackClosedBook; c.Supported != want {
				t.Errorf("track %s: supported %v, want %v (a closed-book benchmark)", c.Track, c.Supported, want)
			}
		}
		if _, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Dir: "testdata/gpqa", Limit: 1, Name: "g1"}); err != nil {
			t.Fatal(err) // a plain folder
		}
	})
}

func TestImportGPQABadData(t *testing.T) {
	cases := []struct{ name, csv, want string }{
		{"missing column", "Question,Correct Answer,Incorrect Answer 1\nq,a,b\n", `line 1: missing column(s) "Incorrect Answer 2", "Incorrect Answer 3"`},
		{"empty answer", "Question,Correct Answer,Incorrect Answer 1,Incorrect Answer 2,Incorrect Answer 3\nq1,a,b,c,d\nq2, ,b,c,d\n", `:3: column "Correct Answer": empty`},
		{"duplicate id", "Record ID,Question,Correct Answer,Incorrect Answer 1,Incorrect Answer 2,Incorrect Answer 3\nr1,q1,a,b,c,d\nr1,q2,a,b,c,d\n", `:3: column "Record ID": duplicate id "r1" (first at line 2)`},
		{"no rows", "Question,Correct Answer,Incorrect Answer 1,Incorrect Answer 2,Incorrect Answer 3\n", "no rows after the header"},
		{"NUL", "Question,Correct Answer,Incorrect Answer 1,Incorrect Answer 2,Incorrect Answer 3\nq1,a,b,c,d\nq2,a\x00,b,c,d\n", `:3: column "Correct Answer": holds a NUL (U+0000)`},
	}
	eachBackend(t, func(t *testing.T, r *registry.Registry) {
		for _, c := range cases {
			t.Run(c.name, func(t *testing.T) {
				dir := t.TempDir()
				p := filepath.Join(dir, "gpqa_diamond.csv")
				os.WriteFile(p, []byte(c.csv), 0o644)
				_, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.GPQA, Dir: dir, Name: "bad"})
				if err == nil || !strings.Contains(err.Error(), p) || !strings.Contains(err.Error(), c.want) {
					t.Errorf("err = %v\nwant it to name %s and say %q", err, p, c.want)
				}
				if _, err := r.Get(bg(), "bad"); !errors.Is(err, registry.ErrNotFound) {
					t.Errorf("after a failed import, Get(bad) = %v, want ErrNotFound", err)
				}
			})
		}
	})
}

// TestMSMARCONotBuiltIn: without the build tag parquet (the default
// lasagna links no parquet reader), an MS MARCO import is refused with the
// command that builds a lasagna with it, after the folder's layout is
// checked. make test also runs this test in the default build.
func TestMSMARCONotBuiltIn(t *testing.T) {
	if buildtag.Parquet {
		t.Skip("built with -tags parquet; the default build runs this test (make test does)")
	}
	_, err := hf.Convert(context.Background(), hf.Options{Dir: "testdata/ms_marco", Dataset: hf.MSMARCO, Config: "v1.1"}, t.TempDir())
	want := "microsoft/ms_marco: reading its parquet files needs a lasagna built with the parquet reader; build one, from a clone of the repository: go install -tags postgres,weaviate,parquet ./cmd/lasagna"
	if err == nil || err.Error() != want {
		t.Errorf("Convert = %v, want %q", err, want)
	}
}
