package metrics

import (
	"reflect"
	"strconv"
	"testing"
)

// TestJudgedFilterKeepsEveryJudgedID checks that the prefilter in front of
// the qrels lookups never hides a judged document, including ids that
// collide in idBits (same length and last eight bytes) and short ids, and
// that EvaluateQuery with it gives the measures computed without it.
func TestJudgedFilterKeepsEveryJudgedID(t *testing.T) {
	judged := map[string]int{"": 1, "a": 2, "b": -1}
	for i := range 300 {
		judged["prefix-"+strconv.Itoa(i)+"-doc-00000042"] = i % 3 // colliding suffixes
		judged["d"+strconv.Itoa(i)] = (i + 1) % 4
	}
	var ranked []Scored
	for id := range judged {
		ranked = append(ranked, Scored{id, 1})
	}
	for i := range 5 * len(judged) {
		ranked = append(ranked, Scored{"unjudged-" + strconv.Itoa(i), 0})
	}
	SortTREC(ranked)

	var e Evaluator
	f := e.judgedFilter(judged, len(ranked))
	if f == nil {
		t.Fatal("judgedFilter returned nil for 5× more retrieved than judged documents")
	}
	mask := uint64(len(f)*64 - 1)
	for id := range judged {
		if b := idBits(id) & mask; f[b>>6]&(1<<(b&63)) == 0 {
			t.Fatalf("judged id %q is not in the filter", id)
		}
	}

	opts := DefaultTrecOptions()
	opts.RelString = 50
	got := EvaluateQuery(&e, ranked, scoredID, judged, &opts)
	// Too few retrieved documents for the filter: the plain lookups.
	var plain Evaluator
	if plain.judgedFilter(judged, len(judged)) != nil {
		t.Fatal("judgedFilter built a filter for as many retrieved as judged documents")
	}
	want := plain.evaluatePlain(ranked, judged, &opts)
	if !reflect.DeepEqual(got, want) {
		t.Errorf("with the filter:\n%+v\nwithout:\n%+v", got, want)
	}
	if got.NumRet != len(ranked) || got.NumRelRet == 0 {
		t.Errorf("NumRet %d NumRelRet %d", got.NumRet, got.NumRelRet)
	}
}

// evaluatePlain is EvaluateQuery without the filter.
func (e *Evaluator) evaluatePlain(ranked []Scored, judged map[string]int, opts *TrecOptions) TrecMeasures {
	e.rels = e.rels[:0]
	for _, h := range ranked {
		g, ok := judged[h.ID]
		switch {
		case !ok:
			g = relNotJudged
		case g < 0:
			g = relUnjudged
		}
		e.rels = append(e.rels, g)
	}
	return e.evaluate(judged, opts)
}
