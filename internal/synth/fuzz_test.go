package synth

import (
	"math"
	"testing"
)

func FuzzParseMix(f *testing.F) {
	f.Add("factoid=0.6,multihop=0.3,unanswerable=0.1")
	f.Add("factoid=1")
	f.Add("unanswerable=0.25,factoid=0.75")
	f.Fuzz(func(t *testing.T, s string) {
		m, err := ParseMix(s)
		if err != nil {
			return
		}
		if err := m.Validate(); err != nil {
			t.Fatalf("ParseMix(%q) accepted an invalid mix: %v", s, err)
		}
		back, err := ParseMix(m.String())
		if err != nil || back != m {
			t.Fatalf("%q: String %q does not parse back (%v, %v)", s, m.String(), back, err)
		}
		for _, n := range []int{1, 2, 3, 7, 10, 199, 1000} {
			c := m.Counts(n)
			if c.Total() != n || c.Factoid < 0 || c.Multihop < 0 || c.Unanswerable < 0 {
				t.Fatalf("%s .Counts(%d) = %+v", m, n, c)
			}
			// Largest remainder: each count is within 1 of its quota.
			for i, q := range m.shares() {
				got := [3]int{c.Factoid, c.Multihop, c.Unanswerable}[i]
				if math.Abs(float64(got)-float64(n)*q) >= 1+1e-6 {
					t.Fatalf("%s .Counts(%d) = %+v: %s is %d, quota %v", m, n, c, Types[i], got, float64(n)*q)
				}
			}
		}
	})
}

func FuzzDecodeObject(f *testing.F) {
	f.Add(`{"question": "q", "answer": "a"}`)
	f.Add("```json\n{\"question\": \"q\"}\n```")
	f.Add(`{"supported": true} extra`)
	f.Fuzz(func(t *testing.T, s string) {
		var v struct {
			Question *string `json:"question"`
			Answer   any     `json:"answer"`
		}
		_ = decodeObject(s, &v) // must not panic
	})
}
