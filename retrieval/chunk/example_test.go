package chunk_test

import (
	"fmt"
	"strings"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/chunk"
)

func Example() {
	// A 450-word document gives chunks of 200, 200 and 50 words.
	text := strings.Repeat("word ", 450)
	for _, c := range (chunk.Chunker{}).Chunk(lasagna.Document{ID: "guide.md", Text: text}) {
		doc, index, _ := chunk.DocID(c.ID)
		fmt.Println(c.ID, len(strings.Fields(c.Text)), doc, index)
	}
	// Output:
	// guide.md#0 200 guide.md 0
	// guide.md#1 200 guide.md 1
	// guide.md#2 50 guide.md 2
}
