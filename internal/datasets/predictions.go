package datasets

import (
	"io"
	"io/fs"
	"strconv"

	"github.com/lasagna-go/lasagna"
)

// Prediction is one line of a predictions file: what a pipeline run
// elsewhere produced for one query.
//
// Answered is true when the line has an "answer" field (even ""), so a
// retrieval-only line is told apart from an empty answer. Abstained is the
// optional "abstained": true. Hits is the ranked list in file order (rank is
// authoritative); when "retrieved" lists plain ids, or objects without
// scores, the scores are n, n-1, …, 1 so that score order equals list order.
// Passages are the optional texts the generator saw ("passages").
type Prediction struct {
	ID        string
	Answer    string
	Answered  bool
	Abstained bool
	Hits      []lasagna.Hit
	Passages  []string
	Pos       lasagna.Pos
}

// Output returns the prediction as a pipeline output.
func (p Prediction) Output() lasagna.Output {
	return lasagna.Output{Hits: p.Hits, Answer: p.Answer, Answered: p.Answered, Abstained: p.Abstained, Passages: p.Passages}
}

var (
	predictionFields = []string{"id", "answer", "retrieved", "abstained", "passages"}
	hitFields        = []string{"id", "score"}
)

// ReadPredictions reads a predictions JSONL file: one object per line,
// {"id": ..., "answer": "...", "retrieved": ["doc", ...]} or "retrieved":
// [{"id": "doc", "score": 1.5}, ...], with optional "abstained" (boolean)
// and "passages" (list of strings). id is a string or a number and must be
// unique; any other field is a Problem naming it with a suggestion; the
// items of one "retrieved" list are all ids or all objects, and objects
// give a score on every item or on none.
func ReadPredictions(fsys fs.FS, path string) ([]Prediction, error) {
	f, err := openText(fsys, path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var c collector
	ps := parsePredictions(f, path, &c)
	if err := c.err(); err != nil {
		return nil, err
	}
	return ps, nil
}

func parsePredictions(r io.Reader, path string, c *collector) []Prediction {
	return uniqueLines(r, path, c, parsePrediction, func(p Prediction) string { return p.ID },
		"duplicate id %q (first at line %d); one line per query")
}

func parsePrediction(l *jlex, line []byte, pos lasagna.Pos, c *collector) (Prediction, bool) {
	p := Prediction{Pos: pos}
	ok := true
	bad := func(field, format string, args ...any) {
		ok = false
		c.add(pos, field, format, args...)
	}
	seen, err := l.fieldsLine(line, predictionFields, bad, func(key string) error {
		switch key {
		case "id":
			id, err := l.requiredID(key, bad)
			if err != nil {
				return err
			}
			p.ID = id
		case "answer":
			switch k := l.kind(); k {
			case '"':
				s, err := l.str()
				if err != nil {
					return err
				}
				p.Answer, p.Answered = s, true
			case 'n':
				_, err := l.raw()
				return err
			default:
				if _, err := l.raw(); err != nil {
					return err
				}
				bad(key, "field \"answer\" must be a string, got %s", kindName(k))
			}
		case "abstained":
			k := l.kind()
			raw, err := l.raw()
			if err != nil {
				return err
			}
			switch string(raw) {
			case "true":
				p.Abstained = true
			case "false", "null":
			default:
				bad(key, "field \"abstained\" must be true or false, got %s", kindName(k))
			}
		case "passages":
			list, err := strOrList(l, key, bad)
			if err != nil {
				return err
			}
			p.Passages = list
		case "retrieved":
			return parseRetrieved(l, &p, bad)
		}
		return nil
	})
	if err != nil {
		lineProblem(c, pos, err)
		return p, false
	}
	if !seen["id"] {
		bad("id", "missing field \"id\" (the query id this prediction answers)")
	}
	if !seen["answer"] && !seen["retrieved"] && !p.Abstained {
		bad("", "the line has neither \"answer\" nor \"retrieved\" (nor \"abstained\": true)")
	}
	return p, ok
}

func parseRetrieved(l *jlex, p *Prediction, bad func(field, format string, args ...any)) error {
	const key = "retrieved"
	switch k := l.kind(); k {
	case 'n':
		_, err := l.raw()
		return err
	case '[':
	default:
		if _, err := l.raw(); err != nil {
			return err
		}
		bad(key, "field \"retrieved\" must be a list of document ids or of {\"id\", \"score\"} objects, got %s", kindName(k))
		return nil
	}
	l.i++
	var kinds [2]int // plain ids, objects
	scored := 0
	p.Hits = []lasagna.Hit{}
	for n := 0; ; n++ {
		if n == 0 && l.kind() == ']' {
			l.i++
			break
		}
		switch k := l.kind(); {
		case k == '"' || k == '-' || (k >= '0' && k <= '9'):
			id, _, err := l.scalarText()
			if err != nil {
				return err
			}
			if id == "" {
				bad(key, "retrieved[%d] is an empty id", n)
			}
			kinds[0]++
			p.Hits = append(p.Hits, lasagna.Hit{ID: id})
		case k == '{':
			kinds[1]++
			var h lasagna.Hit
			hasID, hasScore := false, false
			err := l.object(func(f string) error {
				switch f {
				case "id":
					id, kk, err := l.scalarText()
					if err != nil {
						return err
					}
					if id == "" {
						bad(key, "retrieved[%d].id must be a non-empty string or number, got %s", n, kindName(kk))
					}
					h.ID, hasID = id, true
				case "score":
					kk := l.kind()
					raw, err := l.raw()
					if err != nil {
						return err
					}
					s, perr := strconv.ParseFloat(string(raw), 64)
					if kk == '"' || kk == '{' || kk == '[' || kk == 't' || kk == 'f' || kk == 'n' || perr != nil {
						bad(key, "retrieved[%d].score must be a number, got %s", n, kindName(kk))
					}
					h.Score, hasScore = s, true
				default:
					if _, err := l.raw(); err != nil {
						return err
					}
					bad(key, "retrieved[%d]: %s", n, unknownMsg("field", f, hitFields, ""))
				}
				return nil
			})
			if err != nil {
				return err
			}
			if !hasID {
				bad(key, "retrieved[%d] has no \"id\"", n)
			}
			if hasScore {
				scored++
			}
			p.Hits = append(p.Hits, h)
		default:
			if _, err := l.raw(); err != nil {
				return err
			}
			bad(key, "retrieved[%d] must be a document id or an {\"id\", \"score\"} object, got %s", n, kindName(k))
		}
		switch l.kind() {
		case ',':
			l.i++
			continue
		case ']':
			l.i++
		default:
			return l.fail("want ',' or ']' in the retrieved list")
		}
		break
	}
	if kinds[0] > 0 && kinds[1] > 0 {
		bad(key, "\"retrieved\" mixes plain ids and objects; use one form")
	}
	if scored > 0 && scored < kinds[1] {
		bad(key, "\"retrieved\" gives a score on %d of %d items; give it on all or none", scored, kinds[1])
	}
	if scored == 0 {
		n := len(p.Hits)
		for i := range p.Hits {
			p.Hits[i].Score = float64(n - i)
		}
	}
	return nil
}
