package crmath

import (
	"math"
	"testing"
)

var sink float64

func BenchmarkLog(b *testing.B) {
	x := 0.21875
	for b.Loop() {
		sink = Log(x)
	}
}

func BenchmarkExp(b *testing.B) {
	x := -1.519825753744
	for b.Loop() {
		sink = Exp(x)
	}
}

func BenchmarkMathLog(b *testing.B) {
	x := 0.21875
	for b.Loop() {
		sink = math.Log(x)
	}
}

func BenchmarkMathExp(b *testing.B) {
	x := -1.519825753744
	for b.Loop() {
		sink = math.Exp(x)
	}
}
