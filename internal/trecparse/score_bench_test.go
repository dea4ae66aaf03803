package trecparse

import (
	"fmt"
	"testing"
)

func BenchmarkScoreParsers(b *testing.B) {
	var d []byte
	var offs [][2]int
	for i := range 4096 {
		s := fmt.Sprintf("%d.%04d", (i*7919)%31, (i*104729)%10000)
		offs = append(offs, [2]int{len(d), len(d) + len(s)})
		d = append(d, s...)
		d = append(d, " bench-run\n"...)
	}
	b.Run("At", func(b *testing.B) {
		sum := 0.0
		for b.Loop() {
			for _, o := range offs {
				v, _ := parseScoreAt(d, o[0], o[1])
				sum += v
			}
		}
		_ = sum
	})
	b.Run("Loop", func(b *testing.B) {
		sum := 0.0
		for b.Loop() {
			for _, o := range offs {
				v, _ := parseScore(d[o[0]:o[1]])
				sum += v
			}
		}
		_ = sum
	})
}
