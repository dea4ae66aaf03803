package bench

import (
	"github.com/lasagna-go/lasagna"
	"github.com/lasagna-go/lasagna/internal/corpusgen"
)

// Generate makes a deterministic corpus of n passages of 40–119 words drawn
// from a Zipfian vocabulary (exponent 1.1) of 100,000 words whose most
// frequent ranks are English function words, and nq queries of 2–6 words,
// each taken from a random passage, as a question about it would be. The
// same arguments give the same corpus and queries on any machine.
func Generate(n, nq int) ([]lasagna.Document, []string) {
	return corpusgen.Zipf(n, nq)
}
