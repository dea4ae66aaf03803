package datasets

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"unsafe"

	"github.com/lasagna-go/lasagna"
)

// poolDoc is a passage of a pooled corpus while it is built.
type poolDoc struct {
	name string // from expected_docs; "" when unnamed
	text string
	pos  lasagna.Pos // first row that gave it
}

// PassageID returns the document id of an unnamed pooled passage: "p"
// followed by the first 12 hex digits of the sha256 of its text. It depends
// only on the text, so a passage keeps its id when other rows change.
func PassageID(text string) string {
	// Hash the string's bytes in place: sha256 only reads them, and a
	// []byte(text) copy would double the corpus's allocations.
	sum := sha256.Sum256(unsafe.Slice(unsafe.StringData(text), len(text)))
	return "p" + hex.EncodeToString(sum[:6])
}

// BuildBenchmark turns rows into a benchmark (without identity: Name and
// Revision are left empty) following docs/data.md's pooled-gold rules:
//
//   - every distinct passage text of every row's contexts is one corpus
//     document, in order of first appearance; a passage shared by several
//     rows is one document relevant (grade 1) to each of them;
//   - a passage named in expected_docs gets that name as its id; unnamed
//     passages get PassageID(text); one name with two different texts, or
//     one text under two names, is a Problem;
//   - a row with expected_docs and no contexts cites passages that other
//     rows give the text of (its Query.Contexts are filled from them);
//   - an unanswerable row's passages join the corpus but are relevant to
//     nothing (the query has no judgements);
//   - rows without contexts have no judgements; when no row has contexts the
//     corpus is empty and Provenance is ProvenanceNone, else
//     ProvenancePooledGold.
func BuildBenchmark(rows []Row) (*lasagna.Benchmark, error) {
	var c collector
	b := buildPool(rows, &c)
	if err := c.err(); err != nil {
		return nil, err
	}
	return b, nil
}

func buildPool(rows []Row, c *collector) *lasagna.Benchmark {
	n, named := 0, 0
	for _, r := range rows {
		n += len(r.Contexts)
		named += len(r.ExpectedDocs)
	}
	docs := make([]poolDoc, 0, n)
	byText := make(map[string]int, n)
	byName := make(map[string]int, named)
	rowDocs := make([][]int, len(rows))
	type ref struct {
		row  int
		name string
	}
	var refs []ref
	for ri, r := range rows {
		if len(r.Contexts) == 0 {
			for _, name := range r.ExpectedDocs {
				refs = append(refs, ref{ri, name})
			}
			continue
		}
		if len(r.ExpectedDocs) > 0 && len(r.ExpectedDocs) != len(r.Contexts) {
			c.add(r.Pos, "expected_docs", "expected_docs has %d names for %d contexts; give one name per passage, in the same order", len(r.ExpectedDocs), len(r.Contexts))
			continue
		}
		for i, text := range r.Contexts {
			name := ""
			if len(r.ExpectedDocs) > 0 {
				name = r.ExpectedDocs[i]
			}
			ti, textSeen := byText[text]
			switch {
			case name == "" && textSeen:
				rowDocs[ri] = append(rowDocs[ri], ti)
			case name == "":
				byText[text] = len(docs)
				rowDocs[ri] = append(rowDocs[ri], len(docs))
				docs = append(docs, poolDoc{text: text, pos: r.Pos})
			default:
				ni, nameSeen := byName[name]
				switch {
				case nameSeen && docs[ni].text != text:
					c.add(r.Pos, "expected_docs", "expected_docs[%d] %q names a passage whose text differs from the one given for %q at %s; one name, one text", i, name, name, docs[ni].pos)
					continue
				case nameSeen:
					rowDocs[ri] = append(rowDocs[ri], ni)
				case textSeen && docs[ti].name != "":
					c.add(r.Pos, "expected_docs", "contexts[%d] has the same text as passage %q (%s) but is named %q; a passage has one name", i, docs[ti].name, docs[ti].pos, name)
					continue
				case textSeen: // an unnamed passage gets its name
					docs[ti].name = name
					byName[name] = ti
					rowDocs[ri] = append(rowDocs[ri], ti)
				default:
					byText[text] = len(docs)
					byName[name] = len(docs)
					rowDocs[ri] = append(rowDocs[ri], len(docs))
					docs = append(docs, poolDoc{name: name, text: text, pos: r.Pos})
				}
			}
		}
	}
	for _, rf := range refs {
		di, ok := byName[rf.name]
		if !ok {
			c.add(rows[rf.row].Pos, "expected_docs", "expected_docs names %q, but no row gives its text; add the passage to this row's contexts (with expected_docs in the same order)", rf.name)
			continue
		}
		rowDocs[rf.row] = append(rowDocs[rf.row], di)
	}

	b := &lasagna.Benchmark{Qrels: lasagna.Qrels{}}
	if len(docs) > 0 {
		b.Provenance = lasagna.ProvenancePooledGold
		b.Corpus = make([]lasagna.Document, len(docs))
		ids := make(map[string]int, len(docs))
		for i, d := range docs {
			id := d.name
			if id == "" {
				id = PassageID(d.text)
			}
			if j, dup := ids[id]; dup {
				c.add(d.pos, "expected_docs", "passage id %q is used by two different passages (%s and %s); rename the expected_docs entry", id, docs[j].pos, d.pos)
			}
			ids[id] = i
			b.Corpus[i] = lasagna.Document{ID: id, Text: d.text}
		}
	}
	b.Queries = make([]lasagna.Query, len(rows))
	for ri, r := range rows {
		q := r.query()
		if len(r.Contexts) == 0 && len(rowDocs[ri]) > 0 {
			for _, di := range rowDocs[ri] {
				q.Contexts = append(q.Contexts, docs[di].text)
			}
		}
		if !q.Unanswerable && b.Corpus != nil {
			for _, di := range rowDocs[ri] {
				b.Qrels.Add(r.ID, b.Corpus[di].ID, 1)
			}
		}
		b.Queries[ri] = q
	}
	return b
}

// describeIDs formats up to n ids for a message: "a, b, c and 4 more".
func describeIDs(ids []string, n int) string {
	q := make([]string, 0, n)
	for i, id := range ids {
		if i == n {
			break
		}
		q = append(q, fmt.Sprintf("%q", id))
	}
	s := strings.Join(q, ", ")
	if len(ids) > n {
		s += fmt.Sprintf(" and %d more", len(ids)-n)
	}
	return s
}

// query returns the row as a benchmark query (its contexts kept for
// generation; relevance is decided by the caller).
func (r *Row) query() lasagna.Query {
	return lasagna.Query{
		ID:           r.ID,
		Text:         r.Question,
		Answers:      r.Answers,
		Unanswerable: r.Unanswerable(),
		Contexts:     r.Contexts,
		Metadata:     r.Metadata,
		Pos:          r.Pos,
	}
}
