package results

import (
	"bytes"
	"encoding/json"
	"slices"
	"strconv"

	"github.com/lasagna-go/lasagna/internal/bundletext"
)

// unmarshalText is Unmarshal of a text already split into t: the skeleton
// is decoded by encoding/json, and each row by decodeRow when it is in the
// writer's layout (most of a depth-1000 bundle), else by encoding/json
// alone. Whenever the result could differ from Unmarshal's (a member name
// encoding/json would match by case folding, any error), it is Unmarshal's.
func unmarshalText(raw []byte, t *bundletext.Text) (*Bundle, error) {
	if b, ok := unmarshalSplit(t); ok {
		return b, nil
	}
	return Unmarshal(raw)
}

func unmarshalSplit(t *bundletext.Text) (*Bundle, bool) {
	// encoding/json matches member names without regard to case; Split
	// cuts only "results" and "per_sample_scores" exactly. Any other
	// spelling of them (or an escape in them) goes the slow way.
	// It folds non-ASCII letters too (U+017F is an s): a skeleton with a
	// byte above 0x7f goes the slow way as well.
	for _, c := range t.Skeleton {
		if c >= 0x80 {
			return nil, false
		}
	}
	lower := bytes.ToLower(t.Skeleton)
	if bytes.Count(lower, []byte(`"results"`)) != 1 || bytes.Count(t.Skeleton, []byte(`"results"`)) != 1 ||
		bytes.Count(lower, []byte(`"per_sample_scores"`)) != len(t.Arrays) ||
		bytes.Count(t.Skeleton, []byte(`"per_sample_scores"`)) != len(t.Arrays) ||
		bytes.Contains(t.Skeleton, []byte(`\u`)) {
		return nil, false
	}
	var b Bundle
	if err := json.Unmarshal(t.Skeleton, &b); err != nil {
		return nil, false
	}
	for _, a := range t.Arrays {
		if a.N == 0 {
			continue
		}
		res := t.Rows[a.First].Result
		if res >= len(b.Results) || len(b.Results[res].PerSampleScores) != 0 {
			return nil, false
		}
		rows := make([]Sample, a.N)
		var sc rowScratch
		for i, r := range t.Rows[a.First : a.First+a.N] {
			if r.Result != res || !decodeRow(&rows[i], r.Text, &sc) {
				rows[i] = Sample{}
				if err := json.Unmarshal(r.Text, &rows[i]); err != nil {
					return nil, false
				}
			}
		}
		b.Results[res].PerSampleScores = rows
	}
	return &b, true
}

// rowScratch holds the lists of the row being read, so that each row's
// lists are allocated once, at their length.
type rowScratch struct {
	ids  []string
	hits []Retrieved
}

// rowReader reads one row in the writer's layout.
type rowReader struct {
	b []byte
	i int
}

func (r *rowReader) space() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// byte_ reads c after optional whitespace.
func (r *rowReader) byte_(c byte) bool {
	r.space()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return true
	}
	return false
}

// peek returns the next byte after whitespace, or 0.
func (r *rowReader) peek() byte {
	r.space()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

// str reads a string of printable ASCII without escapes (its bytes are its
// value).
func (r *rowReader) str() ([]byte, bool) {
	r.space()
	if r.i >= len(r.b) || r.b[r.i] != '"' {
		return nil, false
	}
	start := r.i + 1
	for j := start; j < len(r.b); j++ {
		switch c := r.b[j]; {
		case c == '"':
			r.i = j + 1
			return r.b[start:j], true
		case c < 0x20 || c >= 0x80 || c == '\\':
			return nil, false
		}
	}
	return nil, false
}

// num reads a JSON number's text.
func (r *rowReader) num() ([]byte, bool) {
	r.space()
	start := r.i
	digits := func() int {
		from := r.i
		for r.i < len(r.b) && '0' <= r.b[r.i] && r.b[r.i] <= '9' {
			r.i++
		}
		return r.i - from
	}
	if r.i < len(r.b) && r.b[r.i] == '-' {
		r.i++
	}
	if r.i < len(r.b) && r.b[r.i] == '0' {
		r.i++
	} else if digits() == 0 {
		return nil, false
	}
	if r.i < len(r.b) && r.b[r.i] == '.' {
		r.i++
		if digits() == 0 {
			return nil, false
		}
	}
	if r.i < len(r.b) && (r.b[r.i] == 'e' || r.b[r.i] == 'E') {
		r.i++
		if r.i < len(r.b) && (r.b[r.i] == '+' || r.b[r.i] == '-') {
			r.i++
		}
		if digits() == 0 {
			return nil, false
		}
	}
	return r.b[start:r.i], true
}

// float reads a number as encoding/json reads one into a float64.
func (r *rowReader) float() (float64, bool) {
	s, ok := r.num()
	if !ok {
		return 0, false
	}
	f, err := strconv.ParseFloat(string(s), 64)
	return f, err == nil
}

// decodeRow decodes the row text into s when the row is in the writer's
// layout: members of Sample by their exact names, each at most once, with
// strings of printable ASCII without escapes, numbers and booleans (no
// null, no other member). It reports false for anything else, leaving s to be
// decoded by encoding/json; what it decodes is what encoding/json gives
// (TestDecodeRowIsEncodingJSON).
func decodeRow(s *Sample, text []byte, sc *rowScratch) bool {
	*s = Sample{}
	r := rowReader{b: text}
	if !r.byte_('{') {
		return false
	}
	var seen [11]bool
	once := func(k int) bool {
		if seen[k] {
			return false
		}
		seen[k] = true
		return true
	}
	// strMember reads a string member into *dst.
	strMember := func(k int, dst *string) bool {
		v, ok := r.str()
		if !ok || !once(k) {
			return false
		}
		*dst = string(v)
		return true
	}
	if r.peek() == '}' {
		r.i++
		return r.end()
	}
	for {
		name, ok := r.str()
		if !ok || !r.byte_(':') {
			return false
		}
		switch string(name) {
		case "query_id":
			if !strMember(0, &s.QueryID) {
				return false
			}
		case "query_digest":
			if !strMember(4, &s.QueryDigest) {
				return false
			}
		case "error":
			if !strMember(5, &s.Error) {
				return false
			}
		case "judge_error":
			if !strMember(6, &s.JudgeError) {
				return false
			}
		case "answer":
			var a string
			if !strMember(7, &a) {
				return false
			}
			s.Answer = &a
		case "abstained", "missing":
			k, dst := 8, &s.Abstained
			if string(name) == "missing" {
				k, dst = 9, &s.Missing
			}
			if !once(k) {
				return false
			}
			r.space()
			switch {
			case bytes.HasPrefix(r.b[r.i:], []byte("true")):
				*dst, r.i = true, r.i+4
			case bytes.HasPrefix(r.b[r.i:], []byte("false")):
				*dst, r.i = false, r.i+5
			default:
				return false
			}
		case "latency_ms":
			f, ok := r.float()
			if !ok || !once(10) {
				return false
			}
			s.LatencyMS = &f
		case "scores":
			if !once(1) || !r.byte_('{') {
				return false
			}
			s.Scores = map[string]float64{}
			if r.peek() == '}' {
				r.i++
				break
			}
			for {
				k, ok := r.str()
				if !ok || !r.byte_(':') {
					return false
				}
				f, ok := r.float()
				if !ok {
					return false
				}
				s.Scores[string(k)] = f
				if r.byte_(',') {
					continue
				}
				if !r.byte_('}') {
					return false
				}
				break
			}
		case "_retrieved_ids":
			if !once(2) || !r.byte_('[') {
				return false
			}
			s.RetrievedIDs = []string{}
			if r.peek() == ']' {
				r.i++
				break
			}
			ids := sc.ids[:0]
			for {
				v, ok := r.str()
				if !ok {
					return false
				}
				ids = append(ids, string(v))
				if r.byte_(',') {
					continue
				}
				if !r.byte_(']') {
					return false
				}
				break
			}
			sc.ids = ids
			s.RetrievedIDs = slices.Clone(ids)
		case "_retrieved":
			if !once(3) || !r.byte_('[') {
				return false
			}
			s.Retrieved = []Retrieved{}
			if r.peek() == ']' {
				r.i++
				break
			}
			hits := sc.hits[:0]
			for {
				var h Retrieved
				var same string
				if len(hits) < len(s.RetrievedIDs) {
					same = s.RetrievedIDs[len(hits)]
				}
				if !r.hit(&h, same) {
					return false
				}
				hits = append(hits, h)
				if r.byte_(',') {
					continue
				}
				if !r.byte_(']') {
					return false
				}
				break
			}
			sc.hits = hits
			s.Retrieved = slices.Clone(hits)
		default:
			return false
		}
		if r.byte_(',') {
			continue
		}
		if !r.byte_('}') {
			return false
		}
		return r.end()
	}
}

// hit reads {"id":"…","score":N,"rank":R} in that order, R plain digits;
// an id equal to same is same.
func (r *rowReader) hit(h *Retrieved, same string) bool {
	for k, name := range [3]string{"id", "score", "rank"} {
		if k == 0 && !r.byte_('{') || k > 0 && !r.byte_(',') {
			return false
		}
		n, ok := r.str()
		if !ok || string(n) != name || !r.byte_(':') {
			return false
		}
		switch k {
		case 0:
			v, ok := r.str()
			if !ok {
				return false
			}
			// The hits' ids are most often the row's _retrieved_ids, in
			// order: the string is shared instead of allocated again.
			if string(v) == same {
				h.ID = same
			} else {
				h.ID = string(v)
			}
		case 1:
			f, ok := r.float()
			if !ok {
				return false
			}
			h.Score = f
		case 2:
			s, ok := r.num()
			if !ok {
				return false
			}
			n, err := strconv.ParseInt(string(s), 10, 0)
			if err != nil {
				return false
			}
			h.Rank = int(n)
		}
	}
	return r.byte_('}')
}

// end reports whether only whitespace is left.
func (r *rowReader) end() bool {
	r.space()
	return r.i == len(r.b)
}
