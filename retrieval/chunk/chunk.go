package chunk

import (
	"fmt"
	"strconv"
	"strings"

	"github.com/lasagna-go/lasagna"
)

// Size is the number of words in every chunk but a document's last.
const Size = 200

// Chunker is the fixed-window chunker. The zero value cuts windows of Size
// (200) words, the built-in chunker; Words sets another window size. A
// Chunker is a value with no state and is safe for concurrent use.
type Chunker struct {
	// Words is the window size in words; 0 (or less) means Size.
	Words int
}

var _ lasagna.Chunker = Chunker{}

// Chunk cuts doc.Text into consecutive, non-overlapping windows of c's size in
// words. The last chunk holds the remaining words and may be shorter; a text
// with no word yields no chunk (nil). doc.Title is not part of any chunk (see
// Documents). Chunk i has ID ID(doc.ID, i), DocID doc.ID and Index i.
func (c Chunker) Chunk(doc lasagna.Document) []lasagna.Chunk {
	size := c.Words
	if size <= 0 {
		size = Size
	}
	words := strings.Fields(doc.Text)
	if len(words) == 0 {
		return nil
	}
	chunks := make([]lasagna.Chunk, 0, (len(words)+size-1)/size)
	for i, start := 0, 0; start < len(words); i, start = i+1, start+size {
		end := min(start+size, len(words))
		chunks = append(chunks, lasagna.Chunk{
			ID:    ID(doc.ID, i),
			DocID: doc.ID,
			Index: i,
			Text:  strings.Join(words[start:end], " "),
		})
	}
	return chunks
}

// Documents chunks every document of docs with c and returns the chunks as
// documents, in order, ready to index: each has the chunk's ID and Text and
// the source document's Title (Extra is not copied). A document with no word
// contributes nothing.
func (c Chunker) Documents(docs []lasagna.Document) []lasagna.Document {
	var out []lasagna.Document
	for _, d := range docs {
		for _, ch := range c.Chunk(d) {
			out = append(out, lasagna.Document{ID: ch.ID, Title: d.Title, Text: ch.Text})
		}
	}
	return out
}

// ID returns the id of chunk index of document docID: "<docID>#<index>".
func ID(docID string, index int) string {
	return docID + "#" + strconv.Itoa(index)
}

// DocID maps a chunk id made by ID back to its document id and chunk index.
// It fails when chunkID has no '#' or what follows the last '#' is not a
// non-negative decimal integer written without sign or leading zeros.
func DocID(chunkID string) (docID string, index int, err error) {
	i := strings.LastIndexByte(chunkID, '#')
	if i < 0 {
		return "", 0, fmt.Errorf("chunk id %q has no '#<index>' suffix; chunk ids are \"<docID>#<index>\"", chunkID)
	}
	s := chunkID[i+1:]
	n, convErr := strconv.Atoi(s)
	if convErr != nil || n < 0 || strconv.Itoa(n) != s {
		return "", 0, fmt.Errorf("chunk id %q: %q after the last '#' is not a chunk index (a decimal number such as 0 or 12)", chunkID, s)
	}
	return chunkID[:i], n, nil
}

// DocHits maps a ranked list of chunk hits to a ranked list of document hits:
// each document appears once, at the rank and with the score of its
// best-ranked chunk, so the result has no duplicate id. It fails on the first
// hit whose id DocID cannot parse, naming its rank.
func DocHits(hits []lasagna.Hit) ([]lasagna.Hit, error) {
	out := make([]lasagna.Hit, 0, len(hits))
	seen := make(map[string]bool, len(hits))
	for r, h := range hits {
		doc, _, err := DocID(h.ID)
		if err != nil {
			return nil, fmt.Errorf("hit at rank %d: %w", r+1, err)
		}
		if seen[doc] {
			continue
		}
		seen[doc] = true
		out = append(out, lasagna.Hit{ID: doc, Score: h.Score})
	}
	return out, nil
}
