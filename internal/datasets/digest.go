package datasets

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"hash"
	"io"
	"slices"
	"strconv"

	"github.com/lasagna-go/lasagna"
)

// CorpusDigest returns the identity of b's corpus alone, apart from its
// queries and judgements: the sha256 hex of the ids, titles and texts of
// its documents, in corpus order, each field length-prefixed (Extra is
// left out: it is kept, never searched). Two revisions of a benchmark that
// differ only in their queries or judgements have the same CorpusDigest,
// which is how a baseline recorded before a benchmark grew is told that
// the corpus did not change (see the bundle's corpus_digest). It is ""
// when b has no corpus (ProvenanceNone).
func CorpusDigest(b *lasagna.Benchmark) string {
	if b.Provenance == lasagna.ProvenanceNone {
		return ""
	}
	h := sha256.New()
	writeField(h, strconv.Itoa(len(b.Corpus)))
	for i := range b.Corpus {
		d := &b.Corpus[i]
		writeField(h, d.ID)
		writeField(h, d.Title)
		writeField(h, d.Text)
	}
	return hex.EncodeToString(h.Sum(nil))
}

// QueryDigest returns the identity of query q of benchmark b's content: the
// sha256 hex of its id, text, reference answers, unanswerable flag,
// reference contexts and graded judgements (b.Qrels[q.ID], by document id),
// each field length-prefixed. Its metadata and file position are left
// out: they do not enter a score. A query whose QueryDigest is the same in
// two revisions of a benchmark is scored on the same terms in both, so a
// baseline gates it (see the bundle's query_digest).
func QueryDigest(b *lasagna.Benchmark, q *lasagna.Query) string {
	h := sha256.New()
	writeField(h, q.ID)
	writeField(h, q.Text)
	writeList(h, q.Answers)
	writeField(h, strconv.FormatBool(q.Unanswerable))
	writeList(h, q.Contexts)
	judged := b.Qrels[q.ID]
	ids := make([]string, 0, len(judged))
	for id := range judged {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	writeField(h, strconv.Itoa(len(ids)))
	for _, id := range ids {
		writeField(h, id)
		writeField(h, strconv.Itoa(judged[id]))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// writeField writes s to h after its length, so that no two sequences of
// fields hash alike.
func writeField(h hash.Hash, s string) {
	var n [binary.MaxVarintLen64]byte
	h.Write(n[:binary.PutUvarint(n[:], uint64(len(s)))])
	io.WriteString(h, s)
}

func writeList(h hash.Hash, xs []string) {
	writeField(h, strconv.Itoa(len(xs)))
	for _, x := range xs {
		writeField(h, x)
	}
}
