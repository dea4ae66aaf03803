package datasets_test

import (
	"fmt"
	"os"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/datasets"
)

// data is a JSONL file, a CSV file and a BEIR folder, as os.DirFS would
// show them.
var data = fstest.MapFS{
	"faq.jsonl": {Data: []byte(`{"id": "q1", "question": "When do the gates open?", "answer": "at seven", "contexts": ["The gates open at seven."], "metadata": {"topic": "hours"}}
{"id": "q2", "question": "What does a plot cost?", "answer": "45 euros", "contexts": ["A plot costs 45 euros a season."], "metadata": {"topic": "fees"}}
{"id": "q3", "question": "Can I keep bees?", "metadata": {"unanswerable": true, "topic": "rules"}}
`)},
	"faq.csv": {Data: []byte("id,question,answer,contexts\nq1,When do the gates open?,at seven,The gates open at seven.\n")},
	"garden/corpus.jsonl": {Data: []byte(`{"_id": "d1", "title": "Hours", "text": "The gates open at seven."}
{"_id": "d2", "title": "Fees", "text": "A plot costs 45 euros a season."}
`)},
	"garden/queries.jsonl":  {Data: []byte(`{"_id": "q1", "text": "When do the gates open?"}` + "\n")},
	"garden/qrels/test.tsv": {Data: []byte("query-id\tcorpus-id\tscore\nq1\td1\t1\n")},
}

func ExampleLoad() {
	for _, p := range []string{"faq.jsonl", "faq.csv", "garden"} {
		b, err := datasets.Load(data, p, datasets.Options{})
		if err != nil {
			fmt.Println(err)
			return
		}
		fmt.Printf("%s: %s, %d queries, %d documents\n", p, b.Name, len(b.Queries), len(b.Corpus))
	}
	// Output:
	// faq.jsonl: local/faq@6123719ced5a, 3 queries, 2 documents
	// faq.csv: local/faq@4ab4a1efe81e, 1 queries, 1 documents
	// garden: local/garden@3e4976088d9d, 1 queries, 2 documents
}

func ExampleLoad_filters() {
	b, err := datasets.Load(data, "faq.jsonl", datasets.Options{Filters: map[string]any{"topic": []string{"hours", "fees"}}, NSamples: 1, Seed: 7})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Name, b.Queries[0].ID)
	// Output:
	// local/faq@6123719ced5a q2
}

func ExampleCheck() {
	r, err := datasets.Check(data, "faq.jsonl", datasets.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Name, r.Queries, "queries")
	for _, c := range r.Tracks {
		fmt.Println(c.Track, c.Supported)
	}
	// Output:
	// local/faq@6123719ced5a 3 queries
	// retrieval true
	// generation true
	// closed_book true
}

// A BEIR folder with a typo in corpus.jsonl and a judgement naming a
// missing document: one Check reports both.
func ExampleCheck_problems() {
	broken := fstest.MapFS{
		"garden/corpus.jsonl":   {Data: []byte(`{"_id": "d1", "text": "The gates open at seven."` + "\n")},
		"garden/queries.jsonl":  {Data: []byte(`{"_id": "q1", "text": "When do the gates open?"}` + "\n")},
		"garden/qrels/test.tsv": {Data: []byte("q1\td1\t1\nq1\td7\t1\n")},
	}
	r, err := datasets.Check(broken, "garden", datasets.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	for _, p := range r.Problems {
		fmt.Printf("%s:%d [%s] %s\n", p.File, p.Line, p.Field, p.Message)
		if p.Fix != "" {
			fmt.Println("  fix:", p.Fix)
		}
	}
	// Output:
	// garden/corpus.jsonl:1 [] invalid JSON at column 49: unexpected end of line inside an object
	// garden/qrels/test.tsv:2 [corpus-id] 1 judgement(s) name documents missing from corpus.jsonl (first: "d7")
	//   fix: fix the ids or add the documents
}

func ExampleStream() {
	r, err := datasets.Stream(data, "faq.jsonl", datasets.Options{}, func(q lasagna.Query, relevant []string) error {
		fmt.Println(q.ID, relevant)
		return nil
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(r.Name)
	// Output:
	// q1 [paf456a0de46c]
	// q2 [pb07507f40e81]
	// q3 []
	// local/faq@6123719ced5a
}

func ExampleWriteJSONL() {
	rows := []datasets.Row{
		{ID: "q1", Question: "When do the gates open?", Answers: []string{"at seven"}, Contexts: []string{"The gates open at seven."}},
		{ID: "q2", Question: "Can I keep bees?", Metadata: map[string]any{"unanswerable": true}},
	}
	if err := datasets.WriteJSONL(os.Stdout, rows); err != nil {
		fmt.Println(err)
	}
	// Output:
	// {"id":"q1","question":"When do the gates open?","answer":"at seven","contexts":["The gates open at seven."]}
	// {"id":"q2","question":"Can I keep bees?","metadata":{"unanswerable":true}}
}
