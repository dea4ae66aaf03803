package synth

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"unicode"

	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/retrieval/chunk"
)

// QuestionType is a kind of synthetic question.
type QuestionType string

// The question types, in the order plans list them.
const (
	// Factoid is answered by a short fact in one passage.
	Factoid QuestionType = "factoid"
	// Multihop needs a fact from each of two passages of two different
	// documents: a passage and the passage of another document sharing the
	// most words with it.
	Multihop QuestionType = "multihop"
	// Unanswerable is on the subject of a passage but not answered by it.
	Unanswerable QuestionType = "unanswerable"
)

// Types lists the question types in plan order. Treat it as read-only.
var Types = []QuestionType{Factoid, Multihop, Unanswerable}

// Mix is the share of each question type; the shares are non-negative and
// sum to 1 (within 1e-9).
type Mix struct {
	Factoid, Multihop, Unanswerable float64
}

// DefaultMix returns the mix used when Options.Mix is the zero Mix:
// factoid=0.6,multihop=0.3,unanswerable=0.1.
func DefaultMix() Mix { return Mix{Factoid: 0.6, Multihop: 0.3, Unanswerable: 0.1} }

// ParseMix parses a mix written as "factoid=0.6,multihop=0.3,unanswerable=0.1".
// Types left out get 0; each type may appear once; the shares must be
// non-negative numbers summing to 1 (within 1e-9).
func ParseMix(s string) (Mix, error) {
	var m Mix
	seen := map[string]bool{}
	if strings.TrimSpace(s) == "" {
		return Mix{}, errors.New("empty mix; want e.g. factoid=0.6,multihop=0.3,unanswerable=0.1")
	}
	for part := range strings.SplitSeq(s, ",") {
		name, val, ok := strings.Cut(strings.TrimSpace(part), "=")
		name = strings.TrimSpace(name)
		if !ok {
			return Mix{}, fmt.Errorf("mix entry %q is not type=share; want e.g. factoid=0.6", strings.TrimSpace(part))
		}
		f, err := strconv.ParseFloat(strings.TrimSpace(val), 64)
		if err != nil || math.IsNaN(f) || math.IsInf(f, 0) {
			return Mix{}, fmt.Errorf("mix entry %q: %q is not a number", part, strings.TrimSpace(val))
		}
		if seen[name] {
			return Mix{}, fmt.Errorf("mix gives %q twice", name)
		}
		seen[name] = true
		switch QuestionType(name) {
		case Factoid:
			m.Factoid = f
		case Multihop:
			m.Multihop = f
		case Unanswerable:
			m.Unanswerable = f
		default:
			return Mix{}, fmt.Errorf("unknown question type %q in mix; known: factoid, multihop, unanswerable", name)
		}
	}
	return m, m.Validate()
}

// Validate reports whether m's shares are non-negative and sum to 1 within
// 1e-9.
func (m Mix) Validate() error {
	for i, f := range m.shares() {
		if f < 0 || math.IsNaN(f) || math.IsInf(f, 0) {
			return fmt.Errorf("mix share of %s is %v; shares must be between 0 and 1", Types[i], f)
		}
	}
	if sum := m.Factoid + m.Multihop + m.Unanswerable; math.Abs(sum-1) > 1e-9 {
		return fmt.Errorf("mix shares sum to %v, not 1 (%s)", sum, m)
	}
	return nil
}

// String formats m as ParseMix reads it.
func (m Mix) String() string {
	f := func(x float64) string { return strconv.FormatFloat(x, 'g', -1, 64) }
	return "factoid=" + f(m.Factoid) + ",multihop=" + f(m.Multihop) + ",unanswerable=" + f(m.Unanswerable)
}

func (m Mix) shares() [3]float64 { return [3]float64{m.Factoid, m.Multihop, m.Unanswerable} }

// Counts is the number of questions of each type.
type Counts struct {
	Factoid, Multihop, Unanswerable int
}

// Total is the number of questions.
func (c Counts) Total() int { return c.Factoid + c.Multihop + c.Unanswerable }

func (c Counts) of(t QuestionType) int {
	switch t {
	case Factoid:
		return c.Factoid
	case Multihop:
		return c.Multihop
	default:
		return c.Unanswerable
	}
}

// Counts splits n questions by m with the largest remainder method: each
// type gets the floor of n·share, and the questions left go one each to the
// types with the largest fractional parts (ties in Types order). m must be
// valid.
func (m Mix) Counts(n int) Counts {
	shares := m.shares()
	var cnt [3]int
	var frac [3]float64
	left := n
	for i, s := range shares {
		x := float64(n) * s
		cnt[i] = int(math.Floor(x + 1e-9))
		frac[i] = x - float64(cnt[i])
		left -= cnt[i]
	}
	order := []int{0, 1, 2}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(frac[b], frac[a]) })
	for i := 0; left > 0; i = (i + 1) % 3 {
		if shares[order[i]] > 0 {
			cnt[order[i]]++
			left--
		}
	}
	for left < 0 { // only through rounding at the 1e-9 edge
		for i := 2; i >= 0 && left < 0; i-- {
			if cnt[order[i]] > 0 {
				cnt[order[i]]--
				left++
			}
		}
	}
	return Counts{cnt[0], cnt[1], cnt[2]}
}

// Options configures Plan and Synthesize. N is required; the zero Mix means
// DefaultMix().
type Options struct {
	// N is the number of questions to plan (rows written may be fewer:
	// rows that fail verification are dropped).
	N int
	// Mix is the share of each question type; the zero Mix means
	// DefaultMix().
	Mix Mix
	// Seed drives the choice of passages (math/rand/v2 PCG) and is
	// recorded in each row.
	Seed int64
	// Model is the LLM asked; "" means the client's default model.
	Model string
	// Concurrency is the number of questions generated at once; 0 means
	// 4. It never changes the output, only the speed.
	Concurrency int
}

// Passage is one 200-word chunk of a document (see package retrieval/chunk).
type Passage struct {
	ID    string // chunk id, "<docID>#<index>"
	DocID string
	Text  string
}

// Prompt is a rendered prompt: its versioned id, the SHA-256 of its
// template, and the system and user messages sent.
type Prompt struct {
	ID     string // e.g. "factoid-v1"
	SHA256 string // hex SHA-256 of the template (system, a blank line, user)
	System string
	User   string
}

// Question is one planned question.
type Question struct {
	// Type is the question type.
	Type QuestionType
	// Sources are the passages the question is written from: one, or two
	// (of two documents) for Multihop. They become the row's contexts.
	Sources []Passage
	// Neighbours, for Unanswerable, are the (up to) three passages sharing
	// the most words with the source; the verification call checks that
	// none of them, nor the source, answers the question.
	Neighbours []Passage
	// Prompt is the generation prompt.
	Prompt Prompt
}

// Plan is what Synthesize will do: the passages chosen and the prompts sent.
// The same documents, Options.N, Mix and Seed give the same Plan, prompts
// included, byte for byte.
type Plan struct {
	Seed      int64
	Model     string
	Mix       Mix
	Documents int // documents with at least one passage
	Passages  int
	Counts    Counts
	Questions []Question // factoid, then multihop, then unanswerable
}

// Calls is the number of LLM calls the plan makes: a generation and a
// verification per question.
func (p Plan) Calls() int { return 2 * len(p.Questions) }

// The completion caps (max_tokens) of the two calls made per question.
const (
	GenerationMaxTokens   = 400
	VerificationMaxTokens = 200
)

// Estimate is an upper-bound token estimate of a plan.
type Estimate struct {
	// PromptTokens is the prompt characters / 4 (rounded up) of every
	// call, with the question and answer of each verification call counted
	// at GenerationMaxTokens.
	PromptTokens int
	// CompletionTokens is the sum of the completion caps.
	CompletionTokens int
}

// Total is PromptTokens + CompletionTokens.
func (e Estimate) Total() int { return e.PromptTokens + e.CompletionTokens }

// Estimate returns the plan's token estimate: prompt characters / 4 plus the
// completion caps, the question and answer a verification prompt will carry
// counted at the generation cap. Real prompts tokenize to about a quarter of
// their characters in English; the completion caps are upper bounds.
func (p Plan) Estimate() Estimate {
	var e Estimate
	for _, q := range p.Questions {
		v := verificationPrompt(q, "", "")
		e.PromptTokens += tokens(q.Prompt.System) + tokens(q.Prompt.User)
		e.PromptTokens += tokens(v.System) + tokens(v.User) + GenerationMaxTokens
		e.CompletionTokens += GenerationMaxTokens + VerificationMaxTokens
	}
	return e
}

func tokens(s string) int { return (len(s) + 3) / 4 }

// pcgStream is the second PCG word; the first is the seed.
const pcgStream = 0x6c6173616761 // "lasaga"

// MakePlan chooses the passages and renders the prompts for opts; it calls
// no LLM. Documents are cut into passages with the fixed 200-word chunker
// in the order given (give them in a stable order, such as extract.Dir's
// sorted paths). Each type's count comes from Mix.Counts(N); for each type
// in Types order a permutation of the eligible passages is drawn from a PCG
// seeded with Seed, and the first count passages of it are used, so every
// question of a type has its own passage. A multihop question pairs its
// passage with the passage of another document sharing the most distinct
// words with it (words: lowercase runs of letters and digits; ties go to
// the earlier passage in document order). It is an error when N < 1, the
// mix is invalid, document ids repeat, there are no passages, a type needs
// more passages than there are, or multihop questions are asked of fewer
// than two documents.
func MakePlan(docs []lasagna.Document, opts Options) (Plan, error) {
	mix := opts.Mix
	if mix == (Mix{}) {
		mix = DefaultMix()
	}
	if opts.N < 1 {
		return Plan{}, fmt.Errorf("synth: n is %d; ask for at least one question", opts.N)
	}
	if err := mix.Validate(); err != nil {
		return Plan{}, fmt.Errorf("synth: %w", err)
	}
	seen := map[string]bool{}
	var passages []Passage
	docsWith := 0
	for _, d := range docs {
		if seen[d.ID] {
			return Plan{}, fmt.Errorf("synth: document id %q is given twice", d.ID)
		}
		seen[d.ID] = true
		chunks := chunk.Chunker{}.Chunk(d)
		if len(chunks) > 0 {
			docsWith++
		}
		for _, c := range chunks {
			passages = append(passages, Passage{ID: c.ID, DocID: c.DocID, Text: c.Text})
		}
	}
	if len(passages) == 0 {
		return Plan{}, errors.New("synth: the documents hold no text to write questions from")
	}
	counts := mix.Counts(opts.N)
	if counts.Multihop > 0 && docsWith < 2 {
		return Plan{}, fmt.Errorf("synth: multihop questions need passages from two documents, and only %d document has text; set multihop=0 in the mix or add documents", docsWith)
	}
	for _, t := range Types {
		if c := counts.of(t); c > len(passages) {
			return Plan{}, fmt.Errorf("synth: %d %s questions need %d passages, and the documents hold %d (200 words each); lower n or add documents", c, t, c, len(passages))
		}
	}
	plan := Plan{Seed: opts.Seed, Model: opts.Model, Mix: mix, Documents: docsWith, Passages: len(passages), Counts: counts}
	words := make([][]int, len(passages))
	vocab := map[string]int{}
	for i, p := range passages {
		words[i] = wordSet(p.Text, vocab)
	}
	rng := rand.New(rand.NewPCG(uint64(opts.Seed), pcgStream))
	for _, t := range Types {
		perm := rng.Perm(len(passages))
		for _, i := range perm[:counts.of(t)] {
			q := Question{Type: t, Sources: []Passage{passages[i]}}
			switch t {
			case Multihop:
				j := closest(i, words, func(j int) bool { return passages[j].DocID != passages[i].DocID }, 1)
				q.Sources = append(q.Sources, passages[j[0]])
			case Unanswerable:
				for _, j := range closest(i, words, func(j int) bool { return j != i }, 3) {
					q.Neighbours = append(q.Neighbours, passages[j])
				}
			}
			q.Prompt = generationPrompt(q)
			plan.Questions = append(plan.Questions, q)
		}
	}
	return plan, nil
}

// wordSet returns the sorted distinct word ids of text.
func wordSet(text string, vocab map[string]int) []int {
	var ids []int
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	}) {
		id, ok := vocab[w]
		if !ok {
			id = len(vocab)
			vocab[w] = id
		}
		ids = append(ids, id)
	}
	slices.Sort(ids)
	return slices.Compact(ids)
}

func shared(a, b []int) int {
	n := 0
	for i, j := 0, 0; i < len(a) && j < len(b); {
		switch {
		case a[i] < b[j]:
			i++
		case a[i] > b[j]:
			j++
		default:
			n++
			i++
			j++
		}
	}
	return n
}

// closest returns up to k passage indices j (keep(j)) sharing the most
// words with passage i, most first, ties by index.
func closest(i int, words [][]int, keep func(int) bool, k int) []int {
	type cand struct{ j, n int }
	var cs []cand
	for j := range words {
		if keep(j) {
			cs = append(cs, cand{j, shared(words[i], words[j])})
		}
	}
	slices.SortStableFunc(cs, func(a, b cand) int { return cmp.Compare(b.n, a.n) })
	out := make([]int, 0, k)
	for _, c := range cs[:min(k, len(cs))] {
		out = append(out, c.j)
	}
	return out
}

func sha(s string) string {
	h := sha256.Sum256([]byte(s))
	return hex.EncodeToString(h[:])
}
