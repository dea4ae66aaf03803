package numfmt

import (
	"math"
	"math/rand/v2"
	"strconv"
	"testing"
)

// TestFloat32 holds Float32 to its definition, the strconv expression, on
// chosen values and on random ones: random bit patterns over the whole
// float32 range, and random values in the ranges of BM25 and similarity
// scores.
func TestFloat32(t *testing.T) {
	check := func(f float32) {
		t.Helper()
		got, want := Float32(f), float32Slow(f)
		if math.Float64bits(got) != math.Float64bits(want) && !(math.IsNaN(got) && math.IsNaN(want)) {
			t.Fatalf("Float32(%v) (bits %#08x) = %v, want %v", f, math.Float32bits(f), got, want)
		}
		if !math.IsNaN(got) && float32(got) != f {
			t.Fatalf("float32(Float32(%v)) = %v", f, float32(got))
		}
	}
	for _, f := range []float32{
		0, float32(math.Copysign(0, -1)), 1, -1, 2, 0.5, 2.5, 0.1, 0.3, 1e-3, 1e-8, 1e-9, 1e9, 20, 120,
		12.964025, -0.7071068, 16777216, 16777215, 8388607.5,
		math.MaxFloat32, -math.MaxFloat32, math.SmallestNonzeroFloat32, 1.1754944e-38,
		float32(math.Inf(1)), float32(math.Inf(-1)), float32(math.NaN()),
	} {
		check(f)
		check(math.Nextafter32(f, 0))
		check(math.Nextafter32(f, float32(math.Inf(1))))
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 300_000 {
		check(math.Float32frombits(r.Uint32()))
		check(float32(r.Float64() * 40))
		check(float32(r.Float64()*2 - 1))
		check(float32(r.IntN(100_000)) / 1000) // short decimals
	}
	// Every float32 of a binade where the fast path runs.
	for b := math.Float32bits(1.5); b < math.Float32bits(1.5)+1<<16; b++ {
		check(math.Float32frombits(b))
	}
}

// TestFloat32Text checks what the recorded value is for: its shortest
// float64 text is float32's.
func TestFloat32Text(t *testing.T) {
	for f, want := range map[float32]string{12.964025497436523: "12.9640255", 0.1: "0.1", 1.0 / 3: "0.33333334", -2.5: "-2.5"} {
		if got := strconv.FormatFloat(Float32(f), 'g', -1, 64); got != want {
			t.Errorf("Float32(%v) is written %s, want %s", f, got, want)
		}
	}
	if !(Float32(1.0000001) > Float32(1)) || !(Float32(-1) < Float32(math.Nextafter32(-1, 0))) {
		t.Error("Float32 does not keep order")
	}
}

func BenchmarkFloat32(b *testing.B) {
	vals := make([]float32, 1024)
	r := rand.New(rand.NewPCG(1, 2))
	for i := range vals {
		vals[i] = float32(r.Float64() * 20)
	}
	var sink float64
	i := 0
	for b.Loop() {
		sink += Float32(vals[i&1023])
		i++
	}
	_ = sink
}
