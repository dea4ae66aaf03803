// Package chunk is the fixed 200-word chunker: it cuts a document's text into
// consecutive, non-overlapping windows of 200 words, the last window keeping
// whatever is left.
//
// A word is a run of characters between Unicode white space (strings.Fields).
// A chunk's Text is its words joined by single spaces, so runs of white space
// and line breaks inside a window become one space. A document whose text has
// no word (empty or only white space) yields no chunk.
//
// Chunk ids have the form "<docID>#<index>", index being the chunk's 0-based
// position in its document ("guide.md#0", "guide.md#1", …). DocID maps such an
// id back to the source document's id; DocHits maps a ranked list of chunk hits
// to a ranked list of document hits. Document ids may themselves contain '#':
// the index is always what follows the last '#'.
package chunk
