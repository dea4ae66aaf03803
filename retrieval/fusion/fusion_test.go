package fusion

import (
	"context"
	"errors"
	"math"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna"
)

func hits(ids ...string) []lasagna.Hit {
	var out []lasagna.Hit
	for i, id := range ids {
		out = append(out, lasagna.Hit{ID: id, Score: float64(100 - i)})
	}
	return out
}

func checkHits(t *testing.T, what string, got, want []lasagna.Hit) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-12 {
			t.Errorf("%s: rank %d = %v, want %v", what, i+1, got[i], want[i])
		}
	}
}

func TestFuseByHand(t *testing.T) {
	// k = 60. List 1: a b c; list 2: c a d.
	//   a: 1/61 + 1/62 = 0.016393443 + 0.016129032 = 0.032522475
	//   c: 1/63 + 1/61 = 0.015873016 + 0.016393443 = 0.032266459
	//   b: 1/62                                      = 0.016129032
	//   d: 1/63                                      = 0.015873016
	got := Fuse(0, hits("a", "b", "c"), hits("c", "a", "d"))
	checkHits(t, "k 60", got, []lasagna.Hit{
		{ID: "a", Score: 1.0/61 + 1.0/62}, {ID: "c", Score: 1.0/63 + 1.0/61},
		{ID: "b", Score: 1.0 / 62}, {ID: "d", Score: 1.0 / 63},
	})
	// k = 1: a 1/2 + 1/3 = 0.8333, c 1/4 + 1/2 = 0.75, b 1/3, d 1/4.
	checkHits(t, "k 1", Fuse(1, hits("a", "b", "c"), hits("c", "a", "d")), []lasagna.Hit{
		{ID: "a", Score: 1.0/2 + 1.0/3}, {ID: "c", Score: 1.0/4 + 1.0/2},
		{ID: "b", Score: 1.0 / 3}, {ID: "d", Score: 1.0 / 4},
	})
}

func TestFuseTiesAndDuplicates(t *testing.T) {
	// x and y each have rank 1 in one list: tie at 1/61, y first (id descending, as trec_eval),
	// whatever the list order.
	for _, lists := range [][][]lasagna.Hit{{hits("y"), hits("x")}, {hits("x"), hits("y")}} {
		checkHits(t, "tie", Fuse(60, lists...), []lasagna.Hit{{ID: "y", Score: 1.0 / 61}, {ID: "x", Score: 1.0 / 61}})
	}
	// A duplicate within one list counts once, at its best rank.
	checkHits(t, "duplicate", Fuse(60, hits("a", "b", "a")), []lasagna.Hit{{ID: "a", Score: 1.0 / 61}, {ID: "b", Score: 1.0 / 62}})
	if got := Fuse(60); got != nil {
		t.Errorf("Fuse of nothing = %v", got)
	}
	if got := Fuse(60, nil, hits()); got != nil {
		t.Errorf("Fuse of empty lists = %v", got)
	}
}

// fixed is a retriever returning a fixed list, recording the depth asked.
type fixed struct {
	list  []lasagna.Hit
	asked int
	err   error
}

func (f *fixed) Retrieve(_ context.Context, _ lasagna.Query, k int) ([]lasagna.Hit, error) {
	f.asked = k
	if f.err != nil {
		return nil, f.err
	}
	return f.list[:min(k, len(f.list))], nil
}

func TestRRFRetriever(t *testing.T) {
	r1 := &fixed{list: hits("a", "b", "c", "e")}
	r2 := &fixed{list: hits("c", "a", "d", "f")}
	got, err := RRF(0, r1, r2).Retrieve(context.Background(), lasagna.Query{Text: "q"}, 2)
	if err != nil {
		t.Fatal(err)
	}
	// Depth = k = 2: lists a b / c a → a 1/61+1/62, c 1/61, b 1/62.
	checkHits(t, "rrf", got, []lasagna.Hit{{ID: "a", Score: 1.0/61 + 1.0/62}, {ID: "c", Score: 1.0 / 61}})
	if r1.asked != 2 || r2.asked != 2 {
		t.Errorf("inputs asked for %d and %d hits, want 2", r1.asked, r2.asked)
	}
	deep := &Retriever{K: 60, Depth: 4, Inputs: []lasagna.Retriever{r1, r2}}
	got, _ = deep.Retrieve(context.Background(), lasagna.Query{}, 3)
	// Depth 4: a 1/61+1/62, c 1/63+1/61, b 1/62 → cut to 3.
	checkHits(t, "depth", got, []lasagna.Hit{{ID: "a", Score: 1.0/61 + 1.0/62}, {ID: "c", Score: 1.0/63 + 1.0/61}, {ID: "b", Score: 1.0 / 62}})
	if r1.asked != 4 {
		t.Errorf("Depth 4: input asked for %d", r1.asked)
	}
	if got, err := RRF(60).Retrieve(context.Background(), lasagna.Query{}, 5); got != nil || err != nil {
		t.Errorf("no inputs: %v, %v", got, err)
	}
}

func TestRRFError(t *testing.T) {
	boom := errors.New("embedding endpoint down")
	_, err := RRF(60, &fixed{list: hits("a")}, &fixed{err: boom}).Retrieve(context.Background(), lasagna.Query{}, 5)
	if !errors.Is(err, boom) || !strings.Contains(err.Error(), "retriever 2 of 2") {
		t.Errorf("err = %v, want the input's error naming retriever 2 of 2", err)
	}
}
