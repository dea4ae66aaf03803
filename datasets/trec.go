package datasets

import (
	"bufio"
	"bytes"
	"cmp"
	"encoding/binary"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"math"
	"math/bits"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"unsafe"

	"github.com/lasagna-go/lasagna"
)

// TREC files are whitespace-separated text, one record a line:
//
//	qrels: qid iter docno rel                (exactly 4 fields)
//	run:   qid Q0 docno rank score run_id    (6 fields; more are ignored)
//
// as trec_eval reads them. Fields are separated by spaces, tabs, "\r", "\v"
// or "\f"; blank lines and lines whose first non-blank byte is '#' are
// skipped (a '#' inside a field, as in MS MARCO v2.1 docnos, is data).

// RunTag is the run id written when WriteRun is given an empty tag.
const RunTag = "lasagna"

// Run is a TREC run file: for each query id, the retrieved documents in
// trec_eval's rank order — score descending, equal scores by document id
// descending, compared byte-wise. The rank column and the order of lines in
// the file play no part (trec_eval ignores them too). Tag is the run id of
// the file's last line, the one trec_eval prints as runid. Lines counts the
// records read.
type Run struct {
	Tag   string
	Hits  map[string][]lasagna.Hit
	Lines int
}

// QueryIDs returns the run's query ids sorted byte-wise.
func (r *Run) QueryIDs() []string {
	ids := make([]string, 0, len(r.Hits))
	for id := range r.Hits {
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return ids
}

// ReadQrels reads a TREC qrels file (qid iter docno rel) from fsys. The iter
// field is ignored; rel must be an integer (a negative grade marks a pooled
// but unjudged document, as in trec_eval). A line with other than four
// fields, a grade that is not an integer, or the same (qid, docno) pair twice
// is an error naming file:line; up to [MaxProblems] problems are reported as
// [Problems].
func ReadQrels(fsys fs.FS, name string) (lasagna.Qrels, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return ParseQrels(name, data)
}

// ParseQrels parses the bytes of a qrels file as [ReadQrels] does; name is
// used in error positions. The returned ids share data's memory: data must
// not be modified afterwards.
func ParseQrels(name string, data []byte) (lasagna.Qrels, error) {
	qrels := lasagna.Qrels{}
	all := data
	var c collector
	var f [5][]byte
	line := 0
	for len(data) > 0 && !c.full {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		n := fields(l, f[:])
		if n == 0 || f[0][0] == '#' {
			continue
		}
		pos := lasagna.Pos{File: name, Line: line}
		if n != 4 {
			got := strconv.Itoa(n)
			if n > 4 {
				got = "more than 4"
			}
			c.add(pos, "", "want 4 whitespace-separated fields (qid iter docno rel), got %s; fix the line (ids cannot contain spaces)", got)
			continue
		}
		grade, err := strconv.Atoi(string(f[3]))
		if err != nil || grade != int(int32(grade)) {
			c.add(pos, "rel", "field 4 (rel) %q is not an integer grade; write the relevance grade as 0, 1, 2, …", f[3])
			continue
		}
		qid, doc := aliasString(f[0]), aliasString(f[2])
		judged := qrels[qid]
		if judged == nil {
			judged = map[string]int{}
			qrels[qid] = judged
		}
		if _, dup := judged[doc]; dup {
			first, _ := findDuplicateLines(all, qid, doc, 2)
			c.add(pos, "docno", "document %q is judged twice for query %q (first at line %d); keep one judgement (trec_eval rejects duplicates)", doc, qid, first)
			continue
		}
		judged[doc] = grade
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	if len(qrels) == 0 {
		return nil, Problems{{Pos: lasagna.Pos{File: name}, Msg: "no judgements: the qrels file has no qid iter docno rel line"}}
	}
	return qrels, nil
}

// ReadRun reads a TREC run file (qid Q0 docno rank score run_id …) from fsys.
// Only qid, docno, score and run_id are used; fields after run_id are
// ignored. A line with fewer than six fields, a score that is not a finite
// or infinite decimal number (NaN is refused), or a document retrieved
// twice for one query is an error naming file:line (trec_eval also rejects
// duplicates). Up to [MaxProblems] problems are reported as [Problems].
//
// Large files are parsed on all CPUs. The returned strings share one
// read-only copy of the file's bytes, which stays in memory as long as any
// of them does.
func ReadRun(fsys fs.FS, name string) (*Run, error) {
	data, err := fs.ReadFile(fsys, name)
	if err != nil {
		return nil, err
	}
	return ParseRun(name, data)
}

// runChunk is one worker's share of a run file.
type runChunk struct {
	hits  []lasagna.Hit
	segs  []runSeg
	tag   string
	lines int
	probs []chunkProblem
}

// runSeg is a stretch of consecutive lines of one query within a chunk.
type runSeg struct {
	qid        string
	start, end int
}

type chunkProblem struct {
	off   int // byte offset of the line in the file
	field string
	msg   string
}

// parallelMin is the file size from which a run is parsed in parallel.
const parallelMin = 1 << 20

// ParseRun parses the bytes of a run file as [ReadRun] does; name is used in
// error positions. The returned ids share data's memory: data must not be
// modified afterwards.
func ParseRun(name string, data []byte) (*Run, error) {
	nChunks := 1
	if len(data) >= parallelMin {
		nChunks = runtime.GOMAXPROCS(0)
	}
	bounds := chunkBounds(data, nChunks)
	chunks := make([]runChunk, len(bounds)-1)
	var wg sync.WaitGroup
	for i := range chunks {
		wg.Go(func() {
			parseRunChunk(data, bounds[i], bounds[i+1], &chunks[i])
		})
	}
	wg.Wait()

	var probs []chunkProblem
	for i := range chunks {
		probs = append(probs, chunks[i].probs...)
	}
	if len(probs) > 0 {
		return nil, problemsAt(name, data, probs)
	}

	// Group the segments by query.
	run := &Run{Hits: map[string][]lasagna.Hit{}}
	type ref struct{ chunk, seg int }
	segsOf := map[string][]ref{}
	order := []string{}
	for ci := range chunks {
		c := &chunks[ci]
		run.Lines += c.lines
		if c.tag != "" {
			run.Tag = c.tag
		}
		for si, s := range c.segs {
			if _, ok := segsOf[s.qid]; !ok {
				order = append(order, s.qid)
			}
			segsOf[s.qid] = append(segsOf[s.qid], ref{ci, si})
		}
	}
	if run.Lines == 0 {
		return nil, Problems{{Pos: lasagna.Pos{File: name}, Msg: "no results: the run file has no qid Q0 docno rank score run_id line"}}
	}
	lists := make([][]lasagna.Hit, len(order))
	for i, qid := range order {
		refs := segsOf[qid]
		if len(refs) == 1 {
			s := chunks[refs[0].chunk].segs[refs[0].seg]
			lists[i] = chunks[refs[0].chunk].hits[s.start:s.end:s.end]
			continue
		}
		n := 0
		for _, r := range refs {
			s := chunks[r.chunk].segs[r.seg]
			n += s.end - s.start
		}
		l := make([]lasagna.Hit, 0, n)
		for _, r := range refs {
			s := chunks[r.chunk].segs[r.seg]
			l = append(l, chunks[r.chunk].hits[s.start:s.end]...)
		}
		lists[i] = l
	}

	// Rank each query and reject duplicate documents, in parallel.
	var next atomic.Int64
	dupQuery := make([]string, len(order)) // duplicated docno per query, if any
	workers := min(runtime.GOMAXPROCS(0), len(order))
	for range workers {
		wg.Go(func() {
			var seen idSet
			for {
				i := int(next.Add(1) - 1)
				if i >= len(order) {
					return
				}
				l := lists[i]
				sortRanked(l)
				if d, ok := seen.duplicate(l); ok {
					dupQuery[i] = d
				}
			}
		})
	}
	wg.Wait()
	var c collector
	for i, qid := range order {
		if dupQuery[i] == "" {
			continue
		}
		first, second := findDuplicateLines(data, qid, dupQuery[i], 2)
		if !c.add(lasagna.Pos{File: name, Line: second}, "docno", "document %q is retrieved twice for query %q (first at line %d); a run lists each document once per query (trec_eval rejects duplicates)", dupQuery[i], qid, first) {
			break
		}
	}
	if err := c.err(); err != nil {
		return nil, err
	}
	for i, qid := range order {
		run.Hits[qid] = lists[i]
	}
	return run, nil
}

// compareTREC is trec_eval's ranking: score descending, then docno
// descending byte-wise (metrics.CompareTREC; datasets may not import
// metrics).
func compareTREC(a, b lasagna.Hit) int {
	if a.Score > b.Score {
		return -1
	}
	if a.Score < b.Score {
		return 1
	}
	return strings.Compare(b.ID, a.ID)
}

// sortRanked sorts l into trec_eval's order. Runs are usually written
// nearly in that order (only equal scores out of docno order), so it starts
// with an insertion sort and switches to pdqsort when that does too much.
func sortRanked(l []lasagna.Hit) {
	moves := 0
	for i := 1; i < len(l); i++ {
		if compareTREC(l[i-1], l[i]) <= 0 {
			continue
		}
		x := l[i]
		j := i
		for j > 0 && compareTREC(l[j-1], x) > 0 {
			l[j] = l[j-1]
			j--
			moves++
		}
		l[j] = x
		if moves > 2*len(l) {
			slices.SortFunc(l, compareTREC)
			return
		}
	}
}

// idSet finds duplicate ids in a list: an open-addressing hash table of
// list positions, reused from list to list.
type idSet struct {
	seed  maphash.Seed
	slots []int32 // position+1 in the list; 0 is empty
}

// duplicate reports an id that occurs twice in l.
func (s *idSet) duplicate(l []lasagna.Hit) (string, bool) {
	size := 16
	for size < 2*len(l) {
		size *= 2
	}
	if cap(s.slots) < size {
		s.slots = make([]int32, size)
		s.seed = maphash.MakeSeed()
	} else {
		s.slots = s.slots[:size]
		clear(s.slots)
	}
	mask := uint64(size - 1)
	for i, h := range l {
		k := maphash.String(s.seed, h.ID) & mask
		for {
			p := s.slots[k]
			if p == 0 {
				s.slots[k] = int32(i + 1)
				break
			}
			if l[p-1].ID == h.ID {
				return h.ID, true
			}
			k = (k + 1) & mask
		}
	}
	return "", false
}

// findDuplicateLines returns the line numbers of the first two lines of a
// TREC file whose fields 1 and docField (0-based) are qid and doc. It
// rescans the file; it runs only to report an error.
func findDuplicateLines(data []byte, qid, doc string, docField int) (first, second int) {
	var f [7][]byte
	line := 0
	for len(data) > 0 {
		line++
		var l []byte
		if i := bytes.IndexByte(data, '\n'); i >= 0 {
			l, data = data[:i], data[i+1:]
		} else {
			l, data = data, nil
		}
		if n := fields(l, f[:]); n > docField && string(f[0]) == qid && string(f[docField]) == doc {
			if first == 0 {
				first = line
			} else {
				return first, line
			}
		}
	}
	return first, second
}

// chunkBounds splits data into at most n pieces that end at line ends.
func chunkBounds(data []byte, n int) []int {
	b := []int{0}
	for i := 1; i < n; i++ {
		at := len(data) * i / n
		if at <= b[len(b)-1] {
			continue
		}
		j := bytes.IndexByte(data[at:], '\n')
		if j < 0 {
			break
		}
		b = append(b, at+j+1)
	}
	if b[len(b)-1] != len(data) {
		b = append(b, len(data))
	}
	return b
}

// byteClass classifies bytes for the run tokenizer: 0 field byte, 1 blank
// (C isspace other than newline), 2 newline.
var byteClass = func() (t [256]uint8) {
	for _, c := range []byte{' ', '\t', '\r', '\v', '\f'} {
		t[c] = 1
	}
	t['\n'] = 2
	return t
}()

// parseRunChunk parses the lines of data[start:end] into c. It is the hot
// path of `lasagna metrics trec`: one pass over the bytes, no allocation
// per line (ids alias data).
func parseRunChunk(data []byte, start, end int, c *runChunk) {
	c.hits = make([]lasagna.Hit, 0, (end-start)/40+16)
	var f [6][]byte
	var qid, tag []byte
	seg := -1
	d := data[:end]
	for off := start; off < len(d) && len(c.probs) < MaxProblems; {
		lineOff := off
		l := d[off:]
		if j := bytes.IndexByte(l, '\n'); j >= 0 {
			l = l[:j]
			off += j + 1
		} else {
			off = len(d)
		}
		i := 0
		for i < len(l) && byteClass[l[i]] == 1 {
			i++
		}
		if i == len(l) || l[i] == '#' {
			continue // blank line or comment
		}
		n := 0
		for n < len(f) {
			j := fieldEnd(l, i)
			f[n] = l[i:j]
			n++
			for j < len(l) && byteClass[l[j]] == 1 {
				j++
			}
			i = j
			if i == len(l) {
				break
			}
		}
		if n < 6 {
			c.probs = append(c.probs, chunkProblem{lineOff, "", fmt.Sprintf("want 6 whitespace-separated fields (qid Q0 docno rank score run_id), got %d; fix the line (ids cannot contain spaces)", n)})
			continue
		}
		score, ok := parseScore(f[4])
		if !ok {
			c.probs = append(c.probs, chunkProblem{lineOff, "score", fmt.Sprintf("field 5 (score) %q is not a number; write the retrieval score as a decimal number such as 12.5", f[4])})
			continue
		}
		if seg < 0 || !bytes.Equal(qid, f[0]) {
			if seg >= 0 {
				c.segs[seg].end = len(c.hits)
			}
			qid = f[0]
			c.segs = append(c.segs, runSeg{qid: aliasString(qid), start: len(c.hits)})
			seg = len(c.segs) - 1
		}
		c.hits = append(c.hits, lasagna.Hit{ID: aliasString(f[2]), Score: score})
		c.lines++
		tag = f[5]
	}
	if seg >= 0 {
		c.segs[seg].end = len(c.hits)
	}
	c.tag = aliasString(tag)
}

// fieldEnd returns the index of the first blank byte of l at or after i,
// or len(l); l holds no newline. It tests eight bytes at a time for a byte
// below 0x21 (every blank is one; a lowest flagged byte is exact), then
// checks that byte against the blank class.
func fieldEnd(l []byte, i int) int {
	for i+8 <= len(l) {
		x := binary.LittleEndian.Uint64(l[i:])
		m := (x - 0x2121212121212121) &^ x & 0x8080808080808080
		if m == 0 {
			i += 8
			continue
		}
		j := i + bits.TrailingZeros64(m)>>3
		if byteClass[l[j]] != 0 {
			return j
		}
		i = j + 1
	}
	for i < len(l) && byteClass[l[i]] == 0 {
		i++
	}
	return i
}

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

// parseScore parses a score as strconv.ParseFloat does (same value, bit for
// bit), refusing NaN. Plain decimals with at most 15 significant digits take
// a fast exact path (an exact integer divided by an exact power of ten is
// correctly rounded); everything else goes to strconv.
func parseScore(b []byte) (float64, bool) {
	i, neg := 0, false
	if len(b) > 0 && (b[0] == '-' || b[0] == '+') {
		neg = b[0] == '-'
		i = 1
	}
	var mant uint64
	digits, frac, seenDot, seenDigit := 0, 0, false, false
	for ; i < len(b); i++ {
		ch := b[i]
		switch {
		case ch >= '0' && ch <= '9':
			seenDigit = true
			if mant == 0 && ch == '0' {
				if seenDot {
					frac++
				}
				continue
			}
			mant = mant*10 + uint64(ch-'0')
			digits++
			if seenDot {
				frac++
			}
		case ch == '.' && !seenDot:
			seenDot = true
		default:
			return slowScore(b)
		}
	}
	if !seenDigit || digits > 15 || frac >= len(pow10) {
		return slowScore(b)
	}
	v := float64(mant) / pow10[frac]
	if neg {
		v = -v
	}
	return v, true
}

func slowScore(b []byte) (float64, bool) {
	v, err := strconv.ParseFloat(string(b), 64)
	if err != nil || math.IsNaN(v) {
		return 0, false
	}
	return v, true
}

// problemsAt turns chunk problems (byte offsets) into Problems with line
// numbers, in file order.
func problemsAt(name string, data []byte, probs []chunkProblem) error {
	slices.SortFunc(probs, func(a, b chunkProblem) int { return cmp.Compare(a.off, b.off) })
	var c collector
	line, at := 1, 0
	for _, p := range probs {
		line += bytes.Count(data[at:p.off], []byte{'\n'})
		at = p.off
		if !c.add(lasagna.Pos{File: name, Line: line}, p.field, "%s", p.msg) {
			break
		}
	}
	return c.err()
}

// fields splits line at TREC whitespace into f and returns the number of
// fields found; when there are more than len(f), it returns len(f)+1 and f
// holds the first len(f). Every returned field is non-empty.
func fields(line []byte, f [][]byte) int {
	n := 0
	i := 0
	for {
		for i < len(line) && isSpace(line[i]) {
			i++
		}
		if i == len(line) {
			return n
		}
		j := i
		for j < len(line) && !isSpace(line[j]) {
			j++
		}
		if n == len(f) {
			return n + 1
		}
		f[n] = line[i:j]
		n++
		i = j
	}
}

// isSpace is C's isspace in the "C" locale, which trec_eval uses.
func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\r' || c == '\n' || c == '\v' || c == '\f'
}

// aliasString returns b as a string without copying. The caller guarantees
// that b is never modified afterwards (the TREC readers own their buffer).
func aliasString(b []byte) string {
	if len(b) == 0 {
		return ""
	}
	return unsafe.String(&b[0], len(b))
}

// WriteRun writes a TREC run: for each query (in byte-wise id order) its
// hits in the given order, one line "qid Q0 docid rank score tag" with rank
// = position (1-based) and the score in the shortest form that reads back
// exactly. All hits are written (the depth is the caller's). An empty tag
// writes [RunTag]. trec_eval ranks by score, not by the rank column, so give
// the hits in score-descending order (ties by id descending) if the file is
// to rank as written.
//
// It returns an error, before writing anything, when a query id, document
// id or the tag is empty or contains whitespace (it would not read back), or
// a score is NaN.
func WriteRun(w io.Writer, tag string, hits map[string][]lasagna.Hit) error {
	if tag == "" {
		tag = RunTag
	}
	if err := checkToken("run tag", tag); err != nil {
		return err
	}
	qids := make([]string, 0, len(hits))
	for q, hs := range hits {
		if err := checkToken("query id", q); err != nil {
			return err
		}
		if q[0] == '#' {
			return fmt.Errorf("query id %q starts with '#', which would read back as a comment line", q)
		}
		for i, h := range hs {
			if err := checkToken(fmt.Sprintf("document id at rank %d of query %q", i+1, q), h.ID); err != nil {
				return err
			}
			if math.IsNaN(h.Score) {
				return fmt.Errorf("score of document %q for query %q is NaN; a run needs comparable scores", h.ID, q)
			}
		}
		qids = append(qids, q)
	}
	slices.Sort(qids)
	bw := bufio.NewWriterSize(w, 64<<10)
	var buf []byte
	for _, q := range qids {
		for i, h := range hits[q] {
			buf = buf[:0]
			buf = append(buf, q...)
			buf = append(buf, " Q0 "...)
			buf = append(buf, h.ID...)
			buf = append(buf, ' ')
			buf = strconv.AppendInt(buf, int64(i+1), 10)
			buf = append(buf, ' ')
			buf = strconv.AppendFloat(buf, h.Score, 'g', -1, 64)
			buf = append(buf, ' ')
			buf = append(buf, tag...)
			buf = append(buf, '\n')
			if _, err := bw.Write(buf); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// checkToken rejects values a whitespace-separated TREC file cannot hold.
func checkToken(what, s string) error {
	if s == "" {
		return fmt.Errorf("%s is empty; TREC files need a non-empty token", what)
	}
	if strings.IndexFunc(s, func(r rune) bool { return r < 0x80 && isSpace(byte(r)) }) >= 0 {
		return fmt.Errorf("%s %q contains whitespace; TREC files separate fields by whitespace", what, s)
	}
	return nil
}
