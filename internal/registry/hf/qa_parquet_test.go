//go:build parquet

package hf_test

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/registry/hf"
)

// The SQuAD and NQ-open fixtures are written with parquet-go in the shape
// the Hub's parquet files of rajpurkar/squad, rajpurkar/squad_v2 and
// google-research-datasets/nq_open have (the datasets library's
// features: strings, and answers a struct of two lists; every column
// optional, lists of optional elements).
type squadAnswers struct {
	Text        []*string `parquet:"text,optional,list"`
	AnswerStart []*int32  `parquet:"answer_start,optional,list"`
}

type squadRow struct {
	ID       *string       `parquet:"id,optional"`
	Title    *string       `parquet:"title,optional"`
	Context  *string       `parquet:"context,optional"`
	Question *string       `parquet:"question,optional"`
	Answers  *squadAnswers `parquet:"answers,optional"`
}

type nqRow struct {
	Question *string   `parquet:"question,optional"`
	Answer   []*string `parquet:"answer,optional,list"`
}

func str(s string) *string { return &s }

func squad(id, title, context, question string, answers ...string) squadRow {
	a := &squadAnswers{Text: []*string{}, AnswerStart: []*int32{}}
	for _, t := range answers {
		start := int32(strings.Index(context, t))
		a.Text, a.AnswerStart = append(a.Text, str(t)), append(a.AnswerStart, &start)
	}
	return squadRow{ID: str(id), Title: str(title), Context: str(context), Question: str(question), Answers: a}
}

// squadFixture is SQuAD v1.1's shape: every question answered, three
// answers per validation question (often the same span twice).
func squadFixture() []squadRow {
	return []squadRow{
		squad("5733be284776f41900661182", "Glass", ctxGlass, "What lowers the melting point of silica?", "The soda", "soda", "The soda"),
		squad("5733be284776f41900661183", "Glass", ctxGlass, "What makes the glass stable in water?", "the lime", "lime", "lime"),
		squad("5733be284776f41900661184", "Solidus", ctxCoin, "Who introduced the solidus?", "Constantine the Great", "Constantine the Great", "Constantine"),
	}
}

// squadV2Fixture adds SQuAD v2.0's unanswerable questions (empty lists).
func squadV2Fixture() []squadRow {
	return append(squadFixture(),
		squad("5ad39d53604f3c001a3fe8d1", "Solidus", ctxCoin, "What did the solidus cost to mint?"))
}

func nqFixture() []nqRow {
	return []nqRow{
		{Question: str("who introduced the solidus"), Answer: []*string{str("Constantine the Great"), str("Constantine I")}},
		{Question: str("when was the hyperpyron introduced"), Answer: []*string{str("1092")}},
		{Question: str("what does soda lower in glass making"), Answer: []*string{str("the melting point of silica")}},
	}
}

// TestHFCommittedQAFixtures keeps the parquet fixtures under testdata (the
// fake Hub serves them) equal to the fixtures above written by
// parquet-go; LASAGNA_UPDATE_TESTDATA=1 rewrites them.
func TestHFCommittedQAFixtures(t *testing.T) {
	for committed, write := range map[string]func(string){
		"testdata/squad/plain_text/validation-00000-of-00001.parquet":  func(p string) { writeParquet(t, p, squadFixture(), 2) },
		"testdata/squad_v2/squad_v2/validation-00000-of-00001.parquet": func(p string) { writeParquet(t, p, squadV2Fixture(), 2) },
		"testdata/nq_open/nq_open/validation-00000-of-00001.parquet":   func(p string) { writeParquet(t, p, nqFixture(), 2) },
	} {
		fresh := filepath.Join(t.TempDir(), "f.parquet")
		write(fresh)
		want, err := os.ReadFile(fresh)
		if err != nil {
			t.Fatal(err)
		}
		if os.Getenv("LASAGNA_UPDATE_TESTDATA") == "1" {
			os.MkdirAll(filepath.Dir(committed), 0o755)
			if err := os.WriteFile(committed, want, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		got, err := os.ReadFile(committed)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from its fixture written with parquet-go; rerun with LASAGNA_UPDATE_TESTDATA=1", committed)
		}
	}
}

// TestHFQABadData: the rules of each dataset refuse rows that break them,
// naming the file, row and column.
func TestHFQABadData(t *testing.T) {
	r, _ := sqlite(t)
	for _, c := range []struct {
		name, dataset, want string
		write               func(p string)
	}{
		{"v1.1 without an answer", hf.SQuAD, "row 2: answers.text: no answer; every rajpurkar/squad row has one (SQuAD v2.0, with unanswerable questions, is rajpurkar/squad_v2)",
			func(p string) { writeParquet(t, p, []squadRow{squadFixture()[0], squadV2Fixture()[3]}, 10) }},
		{"duplicate id", hf.SQuAD, `row 2: id: duplicate id "5733be284776f41900661182" (first at`,
			func(p string) { writeParquet(t, p, []squadRow{squadFixture()[0], squadFixture()[0]}, 10) }},
		{"no context column", hf.SQuAD, "missing column(s) id, context, answers.text; a rajpurkar/squad parquet file has id, title, context, question, answers.text",
			func(p string) { writeParquet(t, p, []nqRow{{Question: str("q")}}, 10) }},
		{"null question", hf.NQOpen, "row 1: question: empty or missing question",
			func(p string) { writeParquet(t, p, []nqRow{{Answer: []*string{str("a")}}}, 10) }},
		{"nul", hf.NQOpen, "row 1: question: holds a NUL",
			func(p string) {
				writeParquet(t, p, []nqRow{{Question: str("a\x00b"), Answer: []*string{str("a")}}}, 10)
			}},
	} {
		t.Run(c.name, func(t *testing.T) {
			dir := t.TempDir()
			c.write(filepath.Join(dir, "validation-00000-of-00001.parquet"))
			_, _, err := hf.Import(bg(), r, hf.Options{Dataset: c.dataset, Dir: dir, Name: "bad"})
			if err == nil || !strings.Contains(err.Error(), c.want) {
				t.Errorf("err = %v, want %q", err, c.want)
			}
		})
	}
	// A repeated NQ-open question is a second entry, -2.
	dir := t.TempDir()
	rows := append(nqFixture(), nqFixture()[0])
	writeParquet(t, filepath.Join(dir, "nq_open", "validation-00000-of-00001.parquet"), rows, 10)
	inf, _, err := hf.Import(bg(), r, hf.Options{Dataset: hf.NQOpen, Dir: dir, Limit: 4})
	if err != nil {
		t.Fatal(err)
	}
	es, _, _ := r.Entries(bg(), inf.Name, 0, 0)
	if len(es) != 4 || es[3].ID != es[0].ID+"-2" {
		t.Errorf("entries %+v", es)
	}
}
