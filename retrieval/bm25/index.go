package bm25

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"runtime/debug"
	"slices"
	"strings"
	"sync"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/numfmt"
	"github.com/lasagna-go/lasagna/internal/topk"
)

// The default BM25 parameters (Anserini's; see the package documentation).
const (
	DefaultK1 = 0.9
	DefaultB  = 0.4
)

// Options configures an index. The zero Options is BM25 with the default k1
// and b, stopwords dropped and no stemming; DefaultOptions adds stemming,
// which is what the `speed` profile runs.
type Options struct {
	// K1 is BM25's term-frequency saturation, ≥ 0; 0 means DefaultK1 (0.9).
	K1 float64
	// B is BM25's length normalisation, in [0, 1]; 0 means DefaultB (0.4).
	// No length normalisation at all is a tiny positive B such as 1e-9.
	B float64
	// Stemming replaces each term by its Snowball English stem.
	Stemming bool
	// KeepStopwords indexes and searches the English stopwords too.
	KeepStopwords bool
	// Analyzer chooses how text becomes terms: AnalyzerDefault ("") or
	// AnalyzerLucene (see the package documentation).
	Analyzer Analyzer
	// Norms chooses how document lengths enter the score: NormsExact ("")
	// or NormsLucene, Lucene's one-byte lossy lengths.
	Norms Norms
	// Ties chooses how equal scores are ordered and what Search reports
	// as scores: "" (or "trec_eval") orders ties by descending document
	// id, the order trec_eval gives them, with the scores as computed;
	// "anserini" does what Anserini's run files hold: ties by ascending
	// document id (byte-wise, Lucene's sort by score then id), then each
	// score rounded to 4 decimals and lowered by 1e-6 per document tied
	// with those above it (Anserini's ScoreTiesAdjusterReranker, in
	// float32), so that the reported scores decrease in rank order and
	// trec_eval ranks a run file of them as Search did.
	Ties string
}

// The tie rules of Options.Ties.
const (
	tiesTrecEval = ""
	tiesAnserini = "anserini"
)

// Analyzer names a text analysis.
type Analyzer string

// The analyzers.
const (
	// AnalyzerDefault cuts text at every character that is not a letter,
	// digit or mark, and stems with Snowball English (Porter2).
	AnalyzerDefault Analyzer = ""
	// AnalyzerLucene is Lucene's EnglishAnalyzer, as Anserini and Pyserini
	// index: UAX#29 word boundaries (StandardTokenizer), English
	// possessives removed, lower-casing, and the original Porter stemmer
	// (PorterStemFilter).
	AnalyzerLucene Analyzer = "lucene"
)

// Norms names a treatment of document lengths.
type Norms string

// The length treatments.
const (
	// NormsExact uses each document's exact length.
	NormsExact Norms = ""
	// NormsLucene scores as Lucene's BM25Similarity: each length is
	// stored in one byte (SmallFloat.intToByte4, exact up to 39, then
	// rounded down to 4 significant bits), N and avgdl count only the
	// documents with at least one term, and the (k1+1) factor is dropped.
	NormsLucene Norms = "lucene"
)

// ParseAnalyzer returns the analyzer named s: "" or "default" for
// AnalyzerDefault, "lucene" for AnalyzerLucene.
func ParseAnalyzer(s string) (Analyzer, error) {
	switch s {
	case "", "default":
		return AnalyzerDefault, nil
	case "lucene":
		return AnalyzerLucene, nil
	}
	return "", fmt.Errorf("analyzer %q is not one of default, lucene", s)
}

// ParseNorms returns the length treatment named s: "" or "exact" for
// NormsExact, "lucene" for NormsLucene.
func ParseNorms(s string) (Norms, error) {
	switch s {
	case "", "exact":
		return NormsExact, nil
	case "lucene":
		return NormsLucene, nil
	}
	return "", fmt.Errorf("norms %q is not one of exact, lucene", s)
}

// DefaultOptions returns k1 0.9, b 0.4, English stopwords dropped and
// Snowball English stemming on.
func DefaultOptions() Options {
	return Options{K1: DefaultK1, B: DefaultB, Stemming: true}
}

// resolved returns o with defaults filled in, or an error naming the field.
func (o Options) resolved() (Options, error) {
	if o.K1 == 0 {
		o.K1 = DefaultK1
	}
	if o.B == 0 {
		o.B = DefaultB
	}
	if math.IsNaN(o.K1) || math.IsInf(o.K1, 0) || o.K1 < 0 {
		return o, fmt.Errorf("bm25: K1 = %v; k1 must be a finite number ≥ 0 (0 selects the default %v)", o.K1, DefaultK1)
	}
	if math.IsNaN(o.B) || o.B < 0 || o.B > 1 {
		return o, fmt.Errorf("bm25: B = %v; b must be in [0, 1] (0 selects the default %v)", o.B, DefaultB)
	}
	var err error
	if o.Analyzer, err = ParseAnalyzer(string(o.Analyzer)); err != nil {
		return o, fmt.Errorf("bm25: Analyzer: %w; use AnalyzerDefault or AnalyzerLucene", err)
	}
	if o.Norms, err = ParseNorms(string(o.Norms)); err != nil {
		return o, fmt.Errorf("bm25: Norms: %w; use NormsExact or NormsLucene", err)
	}
	switch o.Ties {
	case tiesTrecEval, "trec_eval":
		o.Ties = tiesTrecEval
	case tiesAnserini:
	default:
		return o, fmt.Errorf("bm25: Ties = %q; use \"\" (or \"trec_eval\") or \"anserini\"", o.Ties)
	}
	return o, nil
}

// Index is an immutable BM25 index over a corpus. Build makes one; the zero
// Index is an empty index that matches nothing. It is safe for concurrent use.
type Index struct {
	opts    Options
	ids     []string // doc number → document id
	idRank  []uint32 // doc number → rank of its id in byte-wise order (ties)
	terms   map[string]uint32
	offsets []int // term t's postings are docs[offsets[t]:offsets[t+1]]
	docs    []uint32
	impacts []float32 // BM25 contribution of each posting, qtf = 1
	avgdl   float64
	total   int64     // number of indexed terms (sum of the document lengths)
	pool    sync.Pool // *scratch
}

var _ lasagna.Retriever = (*Index)(nil)

// scratch is one search's working space: an accumulator per document (0 =
// untouched, since every contribution is > 0), the touched documents and the
// heap.
type scratch struct {
	acc     []float32
	touched []uint32
	heap    []item
	terms   []qterm
	tok     tokenizer
}

// item is a scored document in the top-k heap: its score's bits and the
// rank of its id in one key (scores are > 0, so their bits order as the
// scores do, and the rank breaks ties), value its number. One integer
// comparison ranks two items.
type item = topk.Entry[uint64, uint8, uint32]

type qterm struct {
	term string
	qtf  int
}

// Build indexes docs, each as its Title + " " + Text, with opts. It fails on
// invalid options, a document with an empty id (naming its position) or an id
// given twice (naming it and both positions). A document whose text holds no
// term is indexed (it counts in N and avgdl) but never matches.
func Build(docs []lasagna.Document, opts Options) (*Index, error) {
	return buildSharded(docs, opts, 0, false)
}

// BuildReleasing is Build for a caller that needs no document texts
// afterwards: it sets each document's Title and Text to "" once analysed,
// so that their memory can be reclaimed while the index is built. Ids are
// kept. The index is the one Build returns. On an error, texts may already
// be gone. It runs garbage collections (before the analysis, between its
// rounds and at the end), so that the texts' and the analysis' memory is
// reused rather than added to: call it where a collection's pause is
// acceptable.
func BuildReleasing(docs []lasagna.Document, opts Options) (*Index, error) {
	return buildSharded(docs, opts, 0, true)
}

// buildSharded is Build with the number of analysis shards (0 chooses one
// from the corpus size and GOMAXPROCS); release clears each document's
// texts once analysed.
func buildSharded(docs []lasagna.Document, opts Options, workers int, release bool) (*Index, error) {
	opts, err := opts.resolved()
	if err != nil {
		return nil, err
	}
	if len(docs) >= math.MaxUint32 {
		return nil, fmt.Errorf("bm25: %d documents; an index holds at most %d", len(docs), math.MaxUint32-1)
	}
	ix := &Index{opts: opts, ids: make([]string, len(docs)), terms: make(map[string]uint32)}
	seen := make(map[string]int, len(docs))
	for i, d := range docs {
		if d.ID == "" {
			return nil, fmt.Errorf("bm25: document %d (0-based) has an empty id; give every document a unique id", i)
		}
		if j, dup := seen[d.ID]; dup {
			return nil, fmt.Errorf("bm25: document id %q appears twice (documents %d and %d, 0-based); ids must be unique", d.ID, j, i)
		}
		seen[d.ID] = i
		ix.ids[i] = d.ID
	}
	seen = nil

	// Pass 1: analyse the documents into (term, tf) pairs, doc-major, in
	// contiguous shards run in parallel, each with its own dictionary.
	if workers <= 0 {
		workers = min(runtime.GOMAXPROCS(0), 8, max(1, len(docs)/minShard))
	}
	workers = min(workers, max(1, len(docs)))
	// Releasing, the analysis starts from a collected heap and runs in
	// rounds of workers shards, and the texts each round analysed are
	// collected and their pages returned before the next, so that the
	// process never holds all the texts and all the analysis at once; the
	// last collection comes before the postings are allocated.
	rounds := 1
	if release {
		rounds = max(1, min(releaseRounds, len(docs)/(workers*minShard)))
	}
	nsh := workers * rounds
	shards := make([]*shard, nsh)
	dls := make([]uint32, len(docs))
	if release {
		// The caller's garbage (a loader's, the id check's map above) goes
		// before the analysis adds to the heap.
		runtime.GC()
	}
	for r := range rounds {
		var wg sync.WaitGroup
		for w := r * workers; w < (r+1)*workers; w++ {
			lo, hi := w*len(docs)/nsh, (w+1)*len(docs)/nsh
			wg.Go(func() { shards[w] = analyse(docs, lo, hi, opts, dls, release) })
		}
		wg.Wait()
		if release {
			debug.FreeOSMemory()
		}
	}

	// Merge the shard dictionaries: global term ids in order of first
	// appearance (shard by shard), so the index does not depend on timing.
	var total uint64
	npost := 0
	for _, sh := range shards {
		remap := make([]uint32, len(sh.terms))
		for lid, term := range sh.terms {
			gid, ok := ix.terms[term]
			if !ok {
				gid = uint32(len(ix.terms))
				ix.terms[term] = gid
			}
			remap[lid] = gid
		}
		for _, blk := range sh.pairs.terms {
			for p, t := range blk {
				blk[p] = remap[t]
			}
		}
		sh.terms, sh.dict = nil, nil
		total += sh.total
		npost += sh.pairs.n
	}

	// Pass 2: counting sort into term-major postings with impacts.
	nt := len(ix.terms)
	ix.offsets = make([]int, nt+1)
	for _, sh := range shards {
		for _, blk := range sh.pairs.terms {
			for _, t := range blk {
				ix.offsets[t+1]++
			}
		}
	}
	for t := range nt {
		ix.offsets[t+1] += ix.offsets[t]
	}
	ix.total = int64(total)
	n := float64(len(docs))
	if opts.Norms == NormsLucene {
		// Lucene's docCount: the documents that have the field.
		n = 0
		for _, dl := range dls {
			if dl > 0 {
				n++
			}
		}
	}
	if n > 0 {
		ix.avgdl = float64(total) / n
	}
	idf := make([]float64, nt)
	for t := range nt {
		df := float64(ix.offsets[t+1] - ix.offsets[t])
		idf[t] = math.Log(1 + (n-df+0.5)/(df+0.5))
	}
	ix.docs = make([]uint32, npost)
	ix.impacts = make([]float32, npost)
	next := slices.Clone(ix.offsets[:nt])
	k1, b := opts.K1, opts.B
	var cache *[256]float32
	if opts.Norms == NormsLucene {
		cache = luceneNormCache(k1, b, ix.avgdl)
	}
	for _, sh := range shards {
		pr := &sh.pairs
		blk, p := 0, 0 // the next pair is pr.terms[blk][p], number pi
		pi := 0
		for i, cnt := range sh.docPairs {
			doc := sh.lo + i
			norm := k1 * (1 - b + b*float64(dls[doc])/ix.avgdl)
			var inv float32
			if cache != nil {
				inv = cache[intToByte4(dls[doc])]
			}
			for range cnt {
				if p == len(pr.terms[blk]) {
					pr.terms[blk], pr.tfs[blk] = nil, nil // garbage from here on
					blk, p = blk+1, 0
				}
				t := pr.terms[blk][p]
				tf := float64(pr.tfs[blk][p])
				if tf == tfBig {
					tf = float64(pr.big[pi])
				}
				p++
				pi++
				q := next[t]
				next[t]++
				ix.docs[q] = uint32(doc)
				if cache != nil {
					ix.impacts[q] = luceneScore(float32(idf[t]), float32(tf), inv)
				} else {
					ix.impacts[q] = float32(idf[t] * tf * (k1 + 1) / (tf + norm))
				}
			}
		}
		sh.docPairs, sh.pairs = nil, pairs{}
	}

	// Tie order: rank of each id in byte-wise order (reversed for
	// Anserini's ties, so that the smaller id wins a tie).
	order := make([]uint32, len(docs))
	for i := range order {
		order[i] = uint32(i)
	}
	slices.SortFunc(order, func(a, b uint32) int { return strings.Compare(ix.ids[a], ix.ids[b]) })
	ix.idRank = make([]uint32, len(docs))
	for r, doc := range order {
		if opts.Ties == tiesAnserini {
			r = len(order) - 1 - r
		}
		ix.idRank[doc] = uint32(r)
	}
	if release {
		// The analysis is garbage now: collect it, so that the searches
		// that follow reuse its memory, and the next collection is paced
		// from the index alone.
		runtime.GC()
	}
	return ix, nil
}

// minShard is the fewest documents a parallel analysis shard gets.
const minShard = 2000

// releaseRounds is the most rounds of analysis BuildReleasing runs (each
// ends with a garbage collection).
const releaseRounds = 2

// shard is the analysis of documents [lo, hi): for each document, its
// distinct terms (shard-local ids) with their frequencies.
type shard struct {
	lo, hi   int
	terms    []string          // local id → term
	dict     map[string]uint32 // term → local id
	docPairs []uint32          // document lo+i's number of pairs (distinct terms)
	pairs    pairs             // the documents' pairs, in document order
	total    uint64            // number of indexed terms
}

// pairs holds (term, tf) pairs in order, in blocks that are filled and
// never grown: term ids in 4 bytes, frequencies in 1 (tfBig stands for a
// frequency of 255 or more, kept in big). So the pairs take 5 bytes each,
// with no spare capacity beyond the last block's and no grown copies left
// as garbage. Blocks double from 256 pairs up to pairBlock.
type pairs struct {
	terms [][]uint32
	tfs   [][]uint8
	big   map[int]uint32 // pair number → frequency, for the frequencies ≥ tfBig
	n     int            // number of pairs
}

const (
	pairBlock = 1 << 16 // the most pairs in a block
	tfBig     = 255     // the one-byte frequency that stands for ≥ 255
)

// addDoc appends the pairs (terms[i], tfs[i]), a block's room at a time.
func (p *pairs) addDoc(terms, tfs []uint32) {
	for len(terms) > 0 {
		last := len(p.terms) - 1
		if last < 0 || len(p.terms[last]) == cap(p.terms[last]) {
			size := min(pairBlock, max(256, p.n))
			p.terms = append(p.terms, make([]uint32, 0, size))
			p.tfs = append(p.tfs, make([]uint8, 0, size))
			last++
		}
		n := min(len(terms), cap(p.terms[last])-len(p.terms[last]))
		p.terms[last] = append(p.terms[last], terms[:n]...)
		tb := p.tfs[last]
		for j, tf := range tfs[:n] {
			if tf >= tfBig {
				if p.big == nil {
					p.big = make(map[int]uint32)
				}
				p.big[p.n+j] = tf
				tf = tfBig
			}
			tb = append(tb, uint8(tf))
		}
		p.tfs[last] = tb
		p.n += n
		terms, tfs = terms[n:], tfs[n:]
	}
}

// analyse analyses docs[lo:hi], writing each document's length to dls;
// release clears each document's texts once analysed.
func analyse(docs []lasagna.Document, lo, hi int, opts Options, dls []uint32, release bool) *shard {
	const stop = math.MaxUint32
	sh := &shard{
		lo: lo, hi: hi,
		dict:     make(map[string]uint32),
		docPairs: make([]uint32, hi-lo),
	}
	var (
		cache   = make(map[string]uint32) // lower-cased token → local id, or stop
		lastDoc []uint32                  // local id → last document seen + 1
		slot    []uint32                  // local id → its index in docTerms for that document
		tok     = tokenizer{lucene: opts.Analyzer == AnalyzerLucene}
		d       int
		// the document's distinct terms and their frequencies
		docTerms, docTFs []uint32
	)
	add := func(tok []byte) {
		t, ok := cache[string(tok)]
		if !ok {
			s := string(tok)
			if term, keep := opts.term(s); !keep {
				t = stop
			} else if id, known := sh.dict[term]; known {
				t = id
			} else {
				t = uint32(len(sh.terms))
				sh.dict[term] = t
				sh.terms = append(sh.terms, term)
				lastDoc = append(lastDoc, 0)
				slot = append(slot, 0)
			}
			cache[s] = t
		}
		if t == stop {
			return
		}
		dls[d]++
		if lastDoc[t] != uint32(d+1) {
			lastDoc[t] = uint32(d + 1)
			slot[t] = uint32(len(docTerms))
			docTerms = append(docTerms, t)
			docTFs = append(docTFs, 1)
		} else {
			docTFs[slot[t]]++
		}
	}
	for i := lo; i < hi; i++ {
		d = i
		tok.scan(docs[i].Title, add) // Title + " " + Text: a token
		tok.scan(docs[i].Text, add)  // never spans the two
		sh.pairs.addDoc(docTerms, docTFs)
		sh.docPairs[i-lo] = uint32(len(docTerms))
		docTerms, docTFs = docTerms[:0], docTFs[:0]
		sh.total += uint64(dls[i])
		if release {
			docs[i].Title, docs[i].Text = "", ""
		}
	}
	return sh
}

// Options returns the options the index was built with, defaults filled in.
func (ix *Index) Options() Options { return ix.opts }

// Len returns the number of documents in the index.
func (ix *Index) Len() int { return len(ix.ids) }

// Terms returns the number of distinct terms in the index.
func (ix *Index) Terms() int { return len(ix.terms) }

// Postings returns the number of (term, document) pairs in the index.
func (ix *Index) Postings() int { return len(ix.docs) }

// AvgDocLen returns avgdl, the mean number of indexed terms per document
// (per document with at least one term, with NormsLucene).
func (ix *Index) AvgDocLen() float64 { return ix.avgdl }

// TotalTerms returns the number of indexed terms (term occurrences): the sum
// of the document lengths.
func (ix *Index) TotalTerms() int64 { return ix.total }

// Stats returns the corpus statistics of the index.
func (ix *Index) Stats() Stats {
	return Stats{Documents: int64(len(ix.ids)), UniqueTerms: int64(len(ix.terms)), TotalTerms: ix.total}
}

// Stats are the corpus statistics of an index, as Lucene reports them to
// compare indexes: documents, distinct terms and term occurrences.
type Stats struct {
	Documents   int64
	UniqueTerms int64
	TotalTerms  int64
}

// DocFreq returns df(term), the number of documents holding term, where term
// is an index term (as Tokens returns it: lower-cased, stemmed if the index
// stems).
func (ix *Index) DocFreq(term string) int {
	t, ok := ix.terms[term]
	if !ok {
		return 0
	}
	return ix.offsets[t+1] - ix.offsets[t]
}

// Retrieve returns Search(q.Text, k); it fails only when ctx is done.
func (ix *Index) Retrieve(ctx context.Context, q lasagna.Query, k int) ([]lasagna.Hit, error) {
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	return ix.Search(q.Text, k), nil
}

// Search returns the k documents with the highest BM25 score for query, best
// first, ties by descending id (trec_eval's order; Options.Ties "anserini":
// by ascending id, with Anserini's adjusted scores). It returns no hit (nil) when k ≤ 0, when the
// query has no term (empty, only stopwords or punctuation) or when no
// document holds a query term, and fewer than k hits when fewer documents
// match.
func (ix *Index) Search(query string, k int) []lasagna.Hit {
	if k <= 0 || len(ix.ids) == 0 {
		return nil
	}
	s, _ := ix.pool.Get().(*scratch)
	if s == nil {
		s = &scratch{acc: make([]float32, len(ix.ids))}
	}
	defer ix.pool.Put(s)

	// Query terms, each once with its count, in byte-wise order so that the
	// float32 sums do not depend on the corpus order.
	s.terms = s.terms[:0]
	s.tok.lucene = ix.opts.Analyzer == AnalyzerLucene
	s.tok.scan(query, func(tok []byte) {
		term, ok := ix.opts.term(string(tok))
		if !ok {
			return
		}
		if _, known := ix.terms[term]; !known {
			return
		}
		for i := range s.terms {
			if s.terms[i].term == term {
				s.terms[i].qtf++
				return
			}
		}
		s.terms = append(s.terms, qterm{term, 1})
	})
	if len(s.terms) == 0 {
		return nil
	}
	slices.SortFunc(s.terms, func(a, b qterm) int { return strings.Compare(a.term, b.term) })

	acc, touched := s.acc, s.touched[:0]
	for _, qt := range s.terms {
		t := ix.terms[qt.term]
		lo, hi := ix.offsets[t], ix.offsets[t+1]
		docs, imps := ix.docs[lo:hi], ix.impacts[lo:hi]
		imps = imps[:len(docs)]
		if qt.qtf == 1 {
			for i, d := range docs {
				if acc[d] == 0 {
					touched = append(touched, d)
				}
				acc[d] += imps[i]
			}
		} else {
			w := float32(qt.qtf)
			for i, d := range docs {
				if acc[d] == 0 {
					touched = append(touched, d)
				}
				acc[d] += w * imps[i]
			}
		}
	}

	// Bounded min-heap of the k best, ties broken by the rank of the id.
	rank := ix.idRank
	h := topk.New(k, s.heap)
	for _, d := range touched {
		key := uint64(math.Float32bits(acc[d]))<<32 | uint64(rank[d])
		acc[d] = 0
		if !h.Full() || key > h.Worst().Score {
			h.Offer(key, 0, d)
		}
	}
	best := h.Sorted()
	hits := make([]lasagna.Hit, len(best))
	anserini := ix.opts.Ties == tiesAnserini
	var prev float32
	dup := 0
	for i, it := range best {
		score := math.Float32frombits(uint32(it.Score >> 32))
		if anserini {
			score, dup = anseriniScore(score, prev, i == 0, dup)
			prev = score
		}
		hits[i] = lasagna.Hit{ID: ix.ids[it.Value], Score: numfmt.Float32(score)}
	}
	s.touched, s.heap = touched, best
	return hits
}

// anseriniScore is Anserini's ScoreTiesAdjusterReranker on one score of a
// ranked list, in float32 as Java computes it: the score rounded to 4
// decimals (Math.round(s·1e4f)/1e4f), then, unless it is the first or
// more than 1e-4 below prev (the adjusted score above it), a tie: lowered
// by 1e-6 times the number of ties so far (dup, returned updated).
func anseriniScore(s, prev float32, first bool, dup int) (float32, int) {
	x := float32(s * 1e4)
	// Java's Math.round(float): floor(x + 1/2), exact (float32 + 1/2 is
	// exact in float64); int32 saturation does not arise for BM25 scores.
	r := float32(float32(math.Floor(float64(x)+0.5)) / 1e4)
	if first || float32(prev-r) > 1e-4 {
		return r, 0
	}
	dup++
	d := float32(float32(dup) * 1e-6)
	return float32(r - d), dup
}
