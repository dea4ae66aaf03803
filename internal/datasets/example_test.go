package datasets_test

import (
	"fmt"
	"os"
	"testing/fstest"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/datasets"
)

func ExampleLoad() {
	fsys := fstest.MapFS{"data/coins.jsonl": {Data: []byte(
		`{"id": "q1", "question": "Who introduced the solidus?", "answer": "Constantine the Great", "contexts": ["The solidus was a gold coin introduced by Constantine the Great in roughly 312 AD."]}
{"id": "q2", "question": "What did the solidus cost to mint?", "contexts": ["The solidus was a gold coin introduced by Constantine the Great in roughly 312 AD."], "metadata": {"unanswerable": true}}
`)}}
	b, err := datasets.Load(fsys, "data/coins.jsonl", datasets.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(b.Name)
	fmt.Println(len(b.Queries), "queries,", len(b.Corpus), "document,", b.Provenance)
	fmt.Println("q1 relevant:", b.Qrels.Relevant("q1"), "q2 relevant:", b.Qrels.Relevant("q2"))
	for _, c := range datasets.Capabilities(b) {
		fmt.Println(c.Track, c.Supported)
	}
	// Output:
	// local/coins@a182b515df24
	// 2 queries, 1 document, pooled_gold
	// q1 relevant: [p1f459024f5f3] q2 relevant: []
	// retrieval true
	// generation true
	// closed_book true
}

func ExampleLoad_problems() {
	fsys := fstest.MapFS{"my_data.jsonl": {Data: []byte(`{"question": "Who introduced the solidus?", "anwser": "Constantine"}
{"id": 7, "question": "What did it cost?", "answer": "unknown", "metadata": {"unanswerable": true}}
`)}}
	_, err := datasets.Load(fsys, "my_data.jsonl", datasets.Options{})
	fmt.Println(err)
	// Output:
	// my_data.jsonl:1: unknown field "anwser" (did you mean "answer"?); put fields of your own under "metadata"
	// my_data.jsonl:2: row is marked metadata.unanswerable but has an answer "unknown"; remove the answer or the mark
}

func ExampleRequireTracks() {
	b, err := datasets.Load(os.DirFS("testdata"), "beir", datasets.Options{})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(datasets.RequireTracks(b, lasagna.TrackRetrieval))
	fmt.Println(datasets.RequireTracks(b, lasagna.TrackGeneration))
	// Output:
	// <nil>
	// benchmark local/beir@bef7158a37c6 cannot run the generation track: a BEIR folder has no reference answers (fix: use a JSONL or CSV file with "answer" (and "contexts") on each row)
}

func ExampleSelect() {
	b, _ := datasets.Load(os.DirFS("../../examples/data"), "faq.jsonl", datasets.Options{})
	sub, info, err := datasets.Select(b, datasets.Selection{
		Filters:  map[string]any{"topic": "coinage"},
		NSamples: 5,
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Println(info.Total, "queries,", info.Filtered, "about coinage,", len(sub.Queries), "sampled with seed", info.Seed)
	fmt.Println(info.IDs)
	// Output:
	// 47 queries, 24 about coinage, 5 sampled with seed 42
	// [coin-01 coin-05 coin-09 coin-13 coin-20]
}
