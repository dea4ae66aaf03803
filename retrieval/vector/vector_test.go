package vector

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna"
)

var ctx = context.Background()

func mustNew(t *testing.T, m Metric, ids []string, vs [][]float32) *Index {
	t.Helper()
	ix, err := New(m)
	if err != nil {
		t.Fatal(err)
	}
	if err := ix.Add(ctx, ids, vs); err != nil {
		t.Fatal(err)
	}
	return ix
}

func check(t *testing.T, what string, got []lasagna.Hit, err error, want []lasagna.Hit) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if len(got) != len(want) {
		t.Fatalf("%s: %v, want %v", what, got, want)
	}
	for i := range want {
		if got[i].ID != want[i].ID || math.Abs(got[i].Score-want[i].Score) > 1e-6 {
			t.Errorf("%s: rank %d = %v, want %v", what, i+1, got[i], want[i])
		}
	}
}

var (
	ids = []string{"d", "c", "b", "a"}
	vs  = [][]float32{{3, 0}, {0, -1}, {1, 1}, {1, 0}}
)

func TestCosine(t *testing.T) {
	ix := mustNew(t, Cosine, ids, vs)
	// Query [2 0] normalised is [1 0]: a and d (same direction) score 1 and
	// tie, ordered by id descending (trec_eval's order); b = [1 1]/√2 scores 1/√2 = 0.7071068; c scores 0.
	got, err := ix.Search(ctx, []float32{2, 0}, 10)
	check(t, "cosine", got, err, []lasagna.Hit{{ID: "d", Score: 1}, {ID: "a", Score: 1}, {ID: "b", Score: 0.70710678}, {ID: "c", Score: 0}})
	got, err = ix.Search(ctx, []float32{0, 5}, 2)
	check(t, "cosine top 2", got, err, []lasagna.Hit{{ID: "b", Score: 0.70710678}, {ID: "d", Score: 0}})
	if (&Index{}).Metric() != Cosine {
		t.Error("zero Index metric is not cosine")
	}
}

func TestDot(t *testing.T) {
	ix := mustNew(t, Dot, ids, vs)
	// Query [1 2]: a 1, b 1+2 = 3, c −2, d 3; b and d tie, d first (id descending).
	got, err := ix.Search(ctx, []float32{1, 2}, 3)
	check(t, "dot", got, err, []lasagna.Hit{{ID: "d", Score: 3}, {ID: "b", Score: 3}, {ID: "a", Score: 1}})
	// Zero vectors are fine for dot.
	if err := ix.Add(ctx, []string{"z"}, [][]float32{{0, 0}}); err != nil {
		t.Errorf("dot: adding a zero vector: %v", err)
	}
}

func TestEmptyAndK(t *testing.T) {
	var zero Index
	if got, err := zero.Search(ctx, []float32{1}, 3); got != nil || err != nil {
		t.Errorf("empty index Search = %v, %v; want nothing", got, err)
	}
	ix := mustNew(t, Cosine, ids, vs)
	if got, err := ix.Search(ctx, []float32{1, 0}, 0); got != nil || err != nil {
		t.Errorf("k = 0: %v, %v; want nothing", got, err)
	}
	if got, _ := ix.Search(ctx, []float32{1, 0}, 100); len(got) != 4 {
		t.Errorf("k > Len: %d hits, want 4", len(got))
	}
	if ix.Len() != 4 || ix.Dim() != 2 {
		t.Errorf("Len %d Dim %d, want 4 2", ix.Len(), ix.Dim())
	}
}

func TestErrors(t *testing.T) {
	if _, err := New("euclid"); err == nil || !strings.Contains(err.Error(), `"euclid"`) {
		t.Errorf("New(euclid) error = %v", err)
	}
	if m, err := ParseMetric(" Dot "); m != Dot || err != nil {
		t.Errorf("ParseMetric(Dot) = %q, %v", m, err)
	}
	if _, err := ParseMetric("l2"); err == nil {
		t.Error("ParseMetric(l2) succeeded")
	}
	for _, c := range []struct{ m, def, want Metric }{{"", Cosine, Cosine}, {"", Dot, Dot}, {" DOT", Cosine, Dot}, {"cosine", Dot, Cosine}} {
		if got, err := MetricOr(c.m, c.def); got != c.want || err != nil {
			t.Errorf("MetricOr(%q, %q) = %q, %v; want %q", c.m, c.def, got, err, c.want)
		}
	}
	if _, err := MetricOr("l2", Cosine); err == nil || !strings.Contains(err.Error(), `unknown metric "l2"`) {
		t.Errorf("MetricOr(l2) error = %v", err)
	}
	if ix, err := New(" Dot"); err != nil || ix.Metric() != Dot {
		t.Errorf("New(Dot) = %v, %v", ix, err)
	}
	for _, c := range []struct {
		v    []float32
		m    Metric
		want string
	}{
		{nil, Dot, `vector "a" is empty;`},
		{[]float32{0, float32(math.Inf(1))}, Dot, `vector "a" has +Inf at position 1; vectors must be finite`},
		{[]float32{0, 0}, Cosine, `vector "a" is all zeros`},
		{[]float32{0, 0}, Dot, ""},
		{[]float32{0, 1}, Cosine, ""},
	} {
		err := CheckVector(`vector "a"`, c.v, c.m)
		if c.want == "" && err != nil || c.want != "" && (err == nil || !strings.HasPrefix(err.Error(), c.want)) {
			t.Errorf("CheckVector(%v, %s) = %v, want %q", c.v, c.m, err, c.want)
		}
	}
	ix := mustNew(t, Cosine, ids, vs)
	for _, c := range []struct {
		ids  []string
		vs   [][]float32
		want string
	}{
		{[]string{"e", "f"}, [][]float32{{1, 2}}, "2 ids but 1 vectors"},
		{[]string{"e", "f"}, [][]float32{{1, 2}, {1, 2, 3}}, `vector "f" has 3 dimensions, want 2`},
		{[]string{"e", "e"}, [][]float32{{1, 2}, {1, 2}}, `id "e" is given twice in the batch`},
		{[]string{"a", "f"}, [][]float32{{1, 2}, {0, 0}}, `vector "f" is all zeros`},
		{[]string{""}, [][]float32{{1, 2}}, "id 0 of the batch (0-based) is empty"},
		{[]string{"e"}, [][]float32{{0, 0}}, `vector "e" is all zeros`},
		{[]string{"e"}, [][]float32{{float32(math.NaN()), 1}}, `vector "e" has NaN at position 0`},
		{[]string{"e"}, [][]float32{{}}, `vector "e" is empty`},
	} {
		err := ix.Add(ctx, c.ids, c.vs)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("Add(%v, %v) error = %v, want one containing %q", c.ids, c.vs, err, c.want)
		}
	}
	if ix.Len() != 4 {
		t.Errorf("after failed adds Len = %d, want 4 (a failed batch stores nothing)", ix.Len())
	}
	if got, _ := ix.Search(ctx, []float32{1, 0}, 1); len(got) != 1 || got[0].Score < 0.999 {
		t.Errorf("a failed batch that named a stored id changed its vector: %v", got)
	}
	if _, err := ix.Search(ctx, []float32{1, 2, 3}, 1); err == nil || !strings.Contains(err.Error(), "the query vector has 3 dimensions, want 2") {
		t.Errorf("query of the wrong dimension: err = %v", err)
	}
	if _, err := ix.Search(ctx, []float32{0, 0}, 1); err == nil {
		t.Error("zero query vector under cosine: no error")
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Search(cctx, []float32{1, 0}, 1); err != context.Canceled {
		t.Errorf("Search on a cancelled context: %v", err)
	}
	if err := ix.Add(cctx, []string{"x"}, [][]float32{{1, 0}}); err != context.Canceled {
		t.Errorf("Add on a cancelled context: %v", err)
	}
}

// randomVectors returns n vectors of dim normal values drawn from r, with
// ids v000, v001, ….
func randomVectors(r *rand.Rand, n, dim int) (ids []string, vs [][]float32) {
	for i := range n {
		v := make([]float32, dim)
		for j := range v {
			v[j] = float32(r.NormFloat64())
		}
		ids = append(ids, fmt.Sprintf("v%03d", i))
		vs = append(vs, v)
	}
	return ids, vs
}

// TestAgainstBruteForce compares with a float64 brute-force ranking.
func TestAgainstBruteForce(t *testing.T) {
	r := rand.New(rand.NewPCG(7, 8))
	for _, m := range []Metric{Cosine, Dot} {
		const n, dim = 300, 13
		ix, _ := New(m)
		ids, vs := randomVectors(r, n, dim)
		if err := ix.Add(ctx, ids[:100], vs[:100]); err != nil {
			t.Fatal(err)
		}
		if err := ix.Add(ctx, ids[100:], vs[100:]); err != nil {
			t.Fatal(err)
		}
		norm := func(v []float32) float64 {
			s := 0.0
			for _, x := range v {
				s += float64(x) * float64(x)
			}
			return math.Sqrt(s)
		}
		for range 20 {
			q := vs[r.IntN(n)]
			type sc struct {
				id string
				s  float64
			}
			var want []sc
			for i, v := range vs {
				s := 0.0
				for j := range v {
					s += float64(v[j]) * float64(q[j])
				}
				if m == Cosine {
					s /= norm(v) * norm(q)
				}
				want = append(want, sc{ids[i], s})
			}
			sort.Slice(want, func(i, j int) bool { return want[i].s > want[j].s })
			got, err := ix.Search(ctx, q, 10)
			if err != nil {
				t.Fatal(err)
			}
			for i := range got {
				if got[i].ID != want[i].id || math.Abs(got[i].Score-want[i].s) > 1e-4*math.Max(1, math.Abs(want[i].s)) {
					t.Errorf("%s rank %d: %v, want %s %v", m, i+1, got[i], want[i].id, want[i].s)
				}
			}
		}
	}
}

// TestScoresAtFloat32Precision checks that a hit's Score is the float32
// dot product the index computed (recomputed here with dot over the stored
// vectors), recorded as the float64 nearest to that float32's shortest
// decimal, so that JSON writes float32's digits.
func TestScoresAtFloat32Precision(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, m := range []Metric{Cosine, Dot} {
		const n, dim = 200, 24
		ix, _ := New(m)
		ids, vs := randomVectors(r, n, dim)
		if err := ix.Add(ctx, ids, vs); err != nil {
			t.Fatal(err)
		}
		for range 20 {
			q := vs[r.IntN(n)]
			qn := slices.Clone(q)
			if m == Cosine {
				normalize(qn)
			}
			got, err := ix.Search(ctx, q, n)
			if err != nil {
				t.Fatal(err)
			}
			for _, h := range got {
				i := ix.pos[h.ID]
				want := dot(qn, ix.data[i*dim:(i+1)*dim])
				if float32(h.Score) != want {
					t.Fatalf("%s %s: float32(Score) = %v, the index computed %v", m, h.ID, float32(h.Score), want)
				}
				dec := strconv.FormatFloat(float64(want), 'g', -1, 32)
				if def, _ := strconv.ParseFloat(dec, 64); h.Score != def {
					t.Fatalf("%s %s: Score = %v, want %v (the float64 nearest to %s)", m, h.ID, h.Score, def, dec)
				}
				if g := strconv.FormatFloat(h.Score, 'g', -1, 64); g != dec {
					t.Fatalf("%s %s: the score's shortest text is %s, want float32's %s", m, h.ID, g, dec)
				}
			}
		}
	}
}

func TestConcurrent(t *testing.T) {
	ix, _ := New(Dot)
	var wg sync.WaitGroup
	for g := range 4 {
		wg.Go(func() {
			for i := range 50 {
				if err := ix.Add(ctx, []string{fmt.Sprintf("%d-%d", g, i)}, [][]float32{{float32(i), 1}}); err != nil {
					t.Error(err)
					return
				}
				if _, err := ix.Search(ctx, []float32{1, 1}, 5); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if ix.Len() != 200 {
		t.Errorf("Len = %d, want 200", ix.Len())
	}
}

func BenchmarkSearch(b *testing.B) {
	r := rand.New(rand.NewPCG(1, 1))
	const n, dim = 10_000, 384
	ix, _ := New(Cosine)
	ids := make([]string, n)
	vs := make([][]float32, n)
	for i := range vs {
		ids[i] = fmt.Sprint(i)
		vs[i] = make([]float32, dim)
		for j := range vs[i] {
			vs[i][j] = float32(r.NormFloat64())
		}
	}
	if err := ix.Add(ctx, ids, vs); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	i := 0
	for b.Loop() {
		if _, err := ix.Search(ctx, vs[i%n], 100); err != nil {
			b.Fatal(err)
		}
		i++
	}
}

// TestAddUpserts checks that adding an id again replaces its vector (the
// Store contract's idempotent upsert) and keeps one entry per id.
func TestAddUpserts(t *testing.T) {
	for _, m := range []Metric{Cosine, Dot} {
		ix := mustNew(t, m, ids, vs)
		// a was [1 0]; now it points along y, with length 4.
		if err := ix.Add(ctx, []string{"a", "e"}, [][]float32{{0, 4}, {2, 2}}); err != nil {
			t.Fatal(err)
		}
		if ix.Len() != 5 {
			t.Errorf("%s: Len = %d after re-adding a and adding e, want 5", m, ix.Len())
		}
		got, err := ix.Search(ctx, []float32{0, 1}, 5)
		want := []lasagna.Hit{{ID: "a", Score: 1}, {ID: "e", Score: 0.70710678}, {ID: "b", Score: 0.70710678}, {ID: "d", Score: 0}, {ID: "c", Score: -1}}
		if m == Dot {
			want = []lasagna.Hit{{ID: "a", Score: 4}, {ID: "e", Score: 2}, {ID: "b", Score: 1}, {ID: "d", Score: 0}, {ID: "c", Score: -1}}
		}
		check(t, string(m)+" after upsert", got, err, want)
		// The same batch again changes nothing.
		if err := ix.Add(ctx, []string{"a", "e"}, [][]float32{{0, 4}, {2, 2}}); err != nil || ix.Len() != 5 {
			t.Errorf("%s: repeating a batch: %v, Len %d", m, err, ix.Len())
		}
		got, err = ix.Search(ctx, []float32{0, 1}, 5)
		check(t, string(m)+" after a repeated batch", got, err, want)
	}
}

// TestIndexIsAStore checks the exact index's vector.Store methods.
func TestIndexIsAStore(t *testing.T) {
	ix, _ := New(Cosine)
	c := Collection{Name: CollectionName("ab", "m"), Fingerprint: "ab", Documents: 4, Embedder: "m", Metric: Cosine}
	st, err := ix.Open(ctx, c)
	if err != nil || st != (State{}) {
		t.Errorf("Open on an empty index = %+v, %v; want the empty state", st, err)
	}
	if err := ix.Add(ctx, ids, vs); err != nil {
		t.Fatal(err)
	}
	if err := ix.Seal(ctx, c, 4); err != nil {
		t.Errorf("Seal: %v", err)
	}
	st, err = ix.Open(ctx, c)
	if err != nil || st != (State{Exists: true, Documents: 4}) {
		t.Errorf("Open on a filled index = %+v, %v; want exists, 4 documents, not sealed", st, err)
	}
	if _, err := ix.Open(ctx, Collection{Name: "x", Metric: Dot}); err == nil || !strings.Contains(err.Error(), "searched by dot") {
		t.Errorf("Open with another metric: %v", err)
	}
	if d := ix.Describe(); d.String() != "exact" || d != (Description{Name: "exact"}) {
		t.Errorf("Describe = %+v (%q); held_fixed vector_backend must stay \"exact\"", d, d.String())
	}
	if err := ix.Close(); err != nil {
		t.Errorf("Close: %v", err)
	}
	cctx, cancel := context.WithCancel(ctx)
	cancel()
	if _, err := ix.Open(cctx, c); err != context.Canceled {
		t.Errorf("Open on a cancelled context: %v", err)
	}
}
