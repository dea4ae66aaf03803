package treceval

import (
	"bufio"
	"bytes"
	"fmt"
	"math"
	"math/rand/v2"
	"strconv"
	"strings"
	"testing"
)

// TestTrecLineMatchesPrintf checks the output line formatter against the
// printf formats trec_eval uses, on values that round up and down, ties,
// negatives, large values, NaN and infinities (spelt as glibc's printf
// spells trec_eval's: "-nan", "inf", "-inf"), and names of every length.
func TestTrecLineMatchesPrintf(t *testing.T) {
	vals := []float64{0, 1, -1, 0.5, 0.03125, 0.00005, 0.00015, 0.99995, 0.123449999, 2.5e-5, -0.00004, 1234.56785, -1000, 1e20,
		math.NaN(), math.Inf(1), math.Inf(-1), math.Copysign(0, -1)}
	rng := rand.New(rand.NewPCG(13, 14))
	for range 2000 {
		vals = append(vals, rng.Float64(), rng.NormFloat64()*100, float64(rng.IntN(100000))/100000)
	}
	var buf bytes.Buffer
	w := bufio.NewWriter(&buf)
	var o trecLine
	for i, v := range vals {
		name := strings.Repeat("m", i%30)
		buf.Reset()
		o.name(name, "", 0)
		o.float(w, "q1", v)
		o.name(name, "_", i+1)
		o.int(w, "all", i-1000)
		o.name("iprec_at_recall", "_", 0)
		o.b = strconv.AppendFloat(o.b, v, 'f', 2, 64)
		o.str(w, "7", "'1-0.'")
		w.Flush()
		suffix := fmt.Sprintf("_%d", i+1)
		value := fmt.Sprintf("%6.4f", v)
		switch {
		case math.IsNaN(v):
			value = "  -nan"
		case math.IsInf(v, 1):
			value = "   inf"
		case math.IsInf(v, -1):
			value = "  -inf"
		}
		want := fmt.Sprintf("%-22s\t%s\t%s\n%-22s\t%s\t%d\n%-22s\t%s\t%s\n", name, "q1", value, name+suffix, "all", i-1000, fmt.Sprintf("iprec_at_recall_%3.2f", v), "7", "'1-0.'")
		if buf.String() != want {
			t.Fatalf("value %v, name %q:\n%q\nwant\n%q", v, name, buf.String(), want)
		}
	}
}
