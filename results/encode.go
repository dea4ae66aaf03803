package results

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strconv"

	"github.com/go-json-experiment/json/jsontext"

	"github.com/lasagna-go/lasagna/internal/numfmt"
)

// The bundle is encoded one row at a time, so that neither the written
// text nor its canonical form is ever held whole: for a run keeping a
// thousand hits per query they are tens of megabytes each. The small rest
// of the bundle (the "skeleton": everything but per_sample_scores) is
// marshalled by encoding/json; every row is marshalled on its own, its
// ranked lists by hand, and spliced in, both into the written text and into
// the RFC 8785 canonical form that is hashed into run_id. Tests hold both to
// the whole-bundle encoding/json and jsontext.Value.Canonicalize results.

// encoder writes a bundle's text to text (when not nil) and the canonical
// form of the bundle without run_id to canon (when not nil).
type encoder struct {
	text  *formatter
	canon io.Writer
	// runIDAt is the offset in the text of the first character of
	// run_id's value (after the quote).
	runIDAt int64

	row, canonRow, ids, hits, cIDs, cHits []byte
}

// encodeBundle encodes b (see encoder). The text is Write's layout:
// indented by two spaces, except each row's _retrieved_ids and _retrieved,
// which take one line each.
func encodeBundle(b *Bundle, text io.Writer, canon io.Writer) (runIDAt int64, err error) {
	e := &encoder{canon: canon}
	if text != nil {
		e.text = newFormatter(text)
	}
	if err := e.bundle(b); err != nil {
		return 0, err
	}
	if e.text != nil {
		if err := e.text.finish(); err != nil {
			return 0, err
		}
	}
	return e.runIDAt, nil
}

// span is a byte range of the compact skeleton.
type span struct{ start, end int64 }

// skeletonSpans walks the compact JSON object data and returns the span of
// the run_id member with its preceding comma, the offset of run_id's value,
// and the end of each element of the results array (after its closing
// brace).
func skeletonSpans(data []byte) (runID span, runIDValue int64, ends []int64, err error) {
	d := jsontext.NewDecoder(bytes.NewReader(data))
	if _, err := d.ReadToken(); err != nil {
		return span{}, 0, nil, err
	}
	runID.start = -1
	for d.PeekKind() != '}' {
		before := d.InputOffset()
		name, err := d.ReadToken()
		if err != nil {
			return span{}, 0, nil, err
		}
		switch name.String() {
		case "run_id":
			// The offset before a member may be at its comma or after it.
			if data[before] != ',' && before > 0 && data[before-1] == ',' {
				before--
			}
			colon := bytes.IndexByte(data[before:], ':')
			if data[before] != ',' || colon < 0 {
				return span{}, 0, nil, errors.New("run_id is the first member")
			}
			runIDValue = before + int64(colon) + 1
			if err := d.SkipValue(); err != nil {
				return span{}, 0, nil, err
			}
			runID = span{before, d.InputOffset()}
		case "results":
			if d.PeekKind() == 'n' {
				if err := d.SkipValue(); err != nil {
					return span{}, 0, nil, err
				}
				continue
			}
			if _, err := d.ReadToken(); err != nil {
				return span{}, 0, nil, err
			}
			for d.PeekKind() != ']' {
				if err := d.SkipValue(); err != nil {
					return span{}, 0, nil, err
				}
				ends = append(ends, d.InputOffset())
			}
			if _, err := d.ReadToken(); err != nil {
				return span{}, 0, nil, err
			}
		default:
			if err := d.SkipValue(); err != nil {
				return span{}, 0, nil, err
			}
		}
	}
	return runID, runIDValue, ends, nil
}

func (e *encoder) bundle(b *Bundle) error {
	skel := *b
	if b.Results != nil {
		skel.Results = make([]Result, len(b.Results))
	}
	for i, r := range b.Results {
		r.PerSampleScores = nil
		skel.Results[i] = r
	}
	sk, err := marshal(&skel)
	if err != nil {
		return err
	}
	runID, runIDValue, ends, err := skeletonSpans(sk)
	if err != nil || runID.start < 0 || len(ends) != len(b.Results) {
		return fmt.Errorf("bundle: cannot split the encoded bundle (%v)", err) // cannot happen
	}
	// The text is the skeleton with each result's rows spliced in before
	// the result's closing brace. The canonical form is the skeleton
	// without run_id, canonicalized, with each result's canonical rows
	// spliced in the same way: per_sample_scores sorts after every other
	// member of a result. Both are written in one walk over the rows.
	var csk []byte
	var cends []int64
	if e.canon != nil {
		noID := append(append([]byte{}, sk[:runID.start]...), sk[runID.end:]...)
		if csk, err = Canonical(noID); err != nil {
			return err
		}
		if _, _, cends, err = skeletonSpans(csk); err != nil || len(cends) != len(b.Results) {
			return fmt.Errorf("bundle: cannot split the canonical bundle (%v)", err) // cannot happen
		}
	}
	var prev, cprev int64
	if e.text != nil {
		if err := e.text.write(sk[:runIDValue]); err != nil {
			return err
		}
		e.runIDAt = e.text.offset() + 1 // after the quote
		prev = runIDValue
	}
	for i, r := range b.Results {
		if r.PerSampleScores == nil {
			continue
		}
		if e.text != nil {
			if err := e.text.write(sk[prev : ends[i]-1]); err != nil {
				return err
			}
			prev = ends[i] - 1
		}
		if e.canon != nil {
			if _, err := e.canon.Write(csk[cprev : cends[i]-1]); err != nil {
				return err
			}
			cprev = cends[i] - 1
		}
		if err := e.rows(r.PerSampleScores); err != nil {
			return err
		}
	}
	if e.text != nil {
		if err := e.text.write(sk[prev:]); err != nil {
			return err
		}
	}
	if e.canon != nil {
		if _, err := e.canon.Write(csk[cprev:]); err != nil {
			return err
		}
	}
	return nil
}

// both writes p to the text and to the canonical form, where wanted.
func (e *encoder) both(p string) error {
	if e.text != nil {
		if err := e.text.write([]byte(p)); err != nil {
			return err
		}
	}
	if e.canon != nil {
		if _, err := io.WriteString(e.canon, p); err != nil {
			return err
		}
	}
	return nil
}

// rows writes `,"per_sample_scores":[…]`.
func (e *encoder) rows(rows []Sample) error {
	if err := e.both(`,"per_sample_scores":[`); err != nil {
		return err
	}
	for i := range rows {
		if i > 0 {
			if err := e.both(","); err != nil {
				return err
			}
		}
		if err := e.sample(&rows[i]); err != nil {
			return fmt.Errorf("row %s: %w", rows[i].QueryID, err)
		}
	}
	return e.both("]")
}

// sampleHead and sampleTail are the members of a Sample before and after
// its ranked lists, in Sample's order and with its tags.
type sampleHead struct {
	QueryID string             `json:"query_id"`
	Scores  map[string]float64 `json:"scores,omitzero"`
}

type sampleTail struct {
	Answer      *string  `json:"answer,omitzero"`
	Abstained   bool     `json:"abstained,omitzero"`
	Error       string   `json:"error,omitzero"`
	JudgeError  string   `json:"judge_error,omitzero"`
	Missing     bool     `json:"missing,omitzero"`
	LatencyMS   *float64 `json:"latency_ms,omitzero"`
	QueryDigest string   `json:"query_digest,omitzero"`
}

// sample writes one row.
func (e *encoder) sample(s *Sample) error {
	head, err := marshal(sampleHead{s.QueryID, s.Scores})
	if err != nil {
		return err
	}
	tail, err := marshal(sampleTail{s.Answer, s.Abstained, s.Error, s.JudgeError, s.Missing, s.LatencyMS, s.QueryDigest})
	if err != nil {
		return err
	}
	if s.RetrievedIDs != nil {
		if e.ids, e.cIDs, err = appendIDs(e.ids[:0], e.cIDs[:0], s.RetrievedIDs); err != nil {
			return err
		}
	}
	if s.Retrieved != nil {
		if e.hits, e.cHits, err = appendHits(e.hits[:0], e.cHits[:0], s.Retrieved); err != nil {
			return err
		}
	}
	if e.text != nil {
		// {head members, "_retrieved_ids": […], "_retrieved": […], tail members}
		if err := e.text.write(head[:len(head)-1]); err != nil {
			return err
		}
		if s.RetrievedIDs != nil {
			if err := e.text.member(`"_retrieved_ids"`, e.ids); err != nil {
				return err
			}
		}
		if s.Retrieved != nil {
			if err := e.text.member(`"_retrieved"`, e.hits); err != nil {
				return err
			}
		}
		t := tail
		if len(t) > 2 {
			t = append([]byte{','}, t[1:]...)
		} else {
			t = t[1:]
		}
		if err := e.text.write(t); err != nil {
			return err
		}
	}
	if e.canon == nil {
		return nil
	}
	// Canonical: "_retrieved" and "_retrieved_ids" sort before every other
	// member (all lower-case letters), so they open the object.
	rest := append(append(e.row[:0], head[:len(head)-1]...), ',')
	if len(tail) > 2 {
		rest = append(rest, tail[1:]...)
	} else {
		rest = append(rest[:len(rest)-1], '}')
	}
	e.row = rest
	v := jsontext.Value(rest)
	if err := v.Canonicalize(); err != nil {
		return fmt.Errorf("canonical json: %w", err)
	}
	out := append(e.canonRow[:0], '{')
	if s.Retrieved != nil {
		out = append(append(append(out, `"_retrieved":`...), e.cHits...), ',')
	}
	if s.RetrievedIDs != nil {
		out = append(append(append(out, `"_retrieved_ids":`...), e.cIDs...), ',')
	}
	out = append(out, v[1:]...)
	e.canonRow = out
	_, err = e.canon.Write(out)
	return err
}

// appendIDs appends the JSON array of ids to text as encoding/json writes
// it and to canon in RFC 8785's form (see appendString).
func appendIDs(text, canon []byte, ids []string) ([]byte, []byte, error) {
	text = append(text, '[')
	canon = append(canon, '[')
	for i, id := range ids {
		if i > 0 {
			text = append(text, ',')
			canon = append(canon, ',')
		}
		var err error
		if text, canon, err = appendString(text, canon, id); err != nil {
			return nil, nil, err
		}
	}
	return append(text, ']'), append(canon, ']'), nil
}

// appendHits appends the JSON array of hits to text, members in
// Retrieved's order (id, score, rank), and to canon in RFC 8785's form,
// members sorted (id, rank, score).
func appendHits(text, canon []byte, hits []Retrieved) ([]byte, []byte, error) {
	text = append(text, '[')
	canon = append(canon, '[')
	var num [32]byte
	for i, h := range hits {
		if i > 0 {
			text = append(text, ',')
			canon = append(canon, ',')
		}
		var err error
		text = append(text, `{"id":`...)
		canon = append(canon, `{"id":`...)
		if text, canon, err = appendString(text, canon, h.ID); err != nil {
			return nil, nil, err
		}
		n, err := appendNumber(num[:0], h.Score)
		if err != nil {
			return nil, nil, err
		}
		text = append(text, `,"score":`...)
		text = append(text, n...)
		text = append(text, `,"rank":`...)
		text = strconv.AppendInt(text, int64(h.Rank), 10)
		text = append(text, '}')
		canon = append(canon, `,"rank":`...)
		canon = strconv.AppendInt(canon, int64(h.Rank), 10)
		canon = append(canon, `,"score":`...)
		if h.Score == 0 {
			canon = append(canon, '0') // -0 is 0
		} else {
			canon = append(canon, n...)
		}
		canon = append(canon, '}')
	}
	return append(text, ']'), append(canon, ']'), nil
}

// appendString appends s as a JSON string to text as encoding/json writes
// it and to canon in RFC 8785's form. A plain string (plainString) is the
// same in both and is copied between quotes; the others go through
// encoding/json and jsontext, as the whole bundle would.
func appendString(text, canon []byte, s string) ([]byte, []byte, error) {
	if plainString(s) {
		text = append(append(append(text, '"'), s...), '"')
		canon = append(append(append(canon, '"'), s...), '"')
		return text, canon, nil
	}
	data, err := marshal(s)
	if err != nil {
		return nil, nil, err
	}
	text = append(text, data...)
	v := jsontext.Value(data)
	if err := v.Canonicalize(); err != nil {
		return nil, nil, fmt.Errorf("canonical json: %w", err)
	}
	return text, append(canon, v...), nil
}

// plainString reports whether s is printable ASCII without a quote or a
// backslash: its JSON string is s between quotes, in every form.
func plainString(s string) bool {
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c > 0x7e || c == '"' || c == '\\' {
			return false
		}
	}
	return true
}

// appendNumber appends f as encoding/json writes a float64
// (numfmt.AppendJSON); NaN and infinities are errors.
func appendNumber(dst []byte, f float64) ([]byte, error) {
	dst, ok := numfmt.AppendJSON(dst, f)
	if !ok {
		return nil, &json.UnsupportedValueError{Str: strconv.FormatFloat(f, 'g', -1, 64)}
	}
	return dst, nil
}

// formatter indents compact JSON text as encoding/json's Indent does (two
// spaces, empty arrays and objects kept as [] and {}), writing to w; member
// writes one member whose value stays compact on the member's line.
// Input is given in pieces that split the text between tokens.
type formatter struct {
	w          io.Writer
	buf        []byte
	n          int64 // bytes produced so far
	depth      int
	needIndent bool
	err        error
}

func newFormatter(w io.Writer) *formatter {
	return &formatter{w: w, buf: make([]byte, 0, 1<<16)}
}

func (f *formatter) newline() {
	f.buf = append(f.buf, '\n')
	for range f.depth {
		f.buf = append(f.buf, ' ', ' ')
	}
}

func (f *formatter) flushIfFull() error {
	if len(f.buf) < 1<<16 {
		return nil
	}
	return f.flush()
}

func (f *formatter) flush() error {
	if f.err != nil {
		return f.err
	}
	f.n += int64(len(f.buf))
	_, f.err = f.w.Write(f.buf)
	f.buf = f.buf[:0]
	return f.err
}

// offset is the number of bytes produced so far.
func (f *formatter) offset() int64 { return f.n + int64(len(f.buf)) }

func (f *formatter) write(p []byte) error {
	for i := 0; i < len(p); i++ {
		c := p[i]
		if f.needIndent && c != ']' && c != '}' {
			f.needIndent = false
			f.depth++
			f.newline()
		}
		switch c {
		case '"':
			// Copy the string through its closing quote.
			j := i + 1
			for j < len(p)-1 {
				if p[j] == '\\' {
					j += 2
					continue
				}
				if p[j] == '"' {
					break
				}
				j++
			}
			j = min(j, len(p)-1)
			f.buf = append(f.buf, p[i:j+1]...)
			i = j
		case '{', '[':
			f.needIndent = true
			f.buf = append(f.buf, c)
		case ',':
			f.buf = append(f.buf, c)
			f.newline()
		case ':':
			f.buf = append(f.buf, ':', ' ')
		case '}', ']':
			if f.needIndent {
				f.needIndent = false
			} else {
				f.depth--
				f.newline()
			}
			f.buf = append(f.buf, c)
		default:
			f.buf = append(f.buf, c)
		}
		if err := f.flushIfFull(); err != nil {
			return err
		}
	}
	return nil
}

// member writes `,` name `: ` value inside an object that already has a
// member, value as given.
func (f *formatter) member(name string, value []byte) error {
	f.buf = append(f.buf, ',')
	f.newline()
	f.buf = append(f.buf, name...)
	f.buf = append(f.buf, ':', ' ')
	if len(f.buf)+len(value) > 1<<16 {
		if err := f.flush(); err != nil {
			return err
		}
		f.n += int64(len(value))
		_, f.err = f.w.Write(value)
		return f.err
	}
	f.buf = append(f.buf, value...)
	return f.flushIfFull()
}

// finish writes the trailing newline and flushes.
func (f *formatter) finish() error {
	f.buf = append(f.buf, '\n')
	return f.flush()
}
