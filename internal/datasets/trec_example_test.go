package datasets_test

import (
	"fmt"
	"os"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

// A run written with WriteRun reads back in trec_eval's rank order: score
// descending, equal scores by document id descending.
func ExampleReadRun() {
	fsys := fstest.MapFS{"bm25.run": {Data: []byte(
		"q1 Q0 d1 1 2.5 bm25\n" +
			"q1 Q0 d10 2 7.0 bm25\n" +
			"q1 Q0 d9 3 7.0 bm25\n")}}
	run, err := datasets.ReadRun(fsys, "bm25.run")
	if err != nil {
		fmt.Println(err)
		return
	}
	for i, h := range run.Hits["q1"] {
		fmt.Println(i+1, h.ID, h.Score)
	}
	fmt.Println("runid", run.Tag)
	// Output:
	// 1 d9 7
	// 2 d10 7
	// 3 d1 2.5
	// runid bm25
}

func ExampleWriteRun() {
	hits := map[string][]lasagna.Hit{"q1": {{ID: "d3", Score: 0.9}, {ID: "d7", Score: 0.25}}}
	if err := datasets.WriteRun(os.Stdout, "my-run", hits); err != nil {
		fmt.Println(err)
	}
	// Output:
	// q1 Q0 d3 1 0.9 my-run
	// q1 Q0 d7 2 0.25 my-run
}

func ExampleReadQrels() {
	fsys := fstest.MapFS{"qrels": {Data: []byte("q1 0 d1 2\nq1 0 d2 0\n")}}
	qrels, err := datasets.ReadQrels(fsys, "qrels")
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(qrels["q1"]["d1"], qrels.Relevant("q1"))
	bad := fstest.MapFS{"qrels": {Data: []byte("q1 0 d1\n")}}
	_, err = datasets.ReadQrels(bad, "qrels")
	fmt.Println(err)
	// Output:
	// 2 [d1]
	// qrels:1: want 4 whitespace-separated fields (qid iter docno rel), got 3; fix the line (ids cannot contain spaces)
}
