package metrics_test

import (
	"fmt"

	"github.com/lasagna-go/lasagna/internal/metrics"
)

func ExampleNormalizeAnswer() {
	fmt.Printf("%q\n", metrics.NormalizeAnswer("The  Eiffel-Tower!"))
	fmt.Printf("%q\n", metrics.NormalizeAnswer("a\u00e9 \u201ccaf\u00e9\u201d"))
	fmt.Printf("%q\n", metrics.NormalizeAnswer("x\x1fy\u00a0z"))
	// Output:
	// "eiffeltower"
	// "aé “café”"
	// "x y z"
}

func ExampleScoreAnswer() {
	refs := []string{"Eiffel Tower", "the Eiffel Tower in Paris"}
	fmt.Printf("%+v\n", metrics.ScoreAnswer("the tower in Paris", refs, metrics.AnswerOptions{}))
	// An unanswerable question: abstaining or answering nothing scores 1.
	fmt.Printf("%+v\n", metrics.ScoreAnswer("", nil, metrics.AnswerOptions{Abstained: true, Unanswerable: true}))
	fmt.Printf("%+v\n", metrics.ScoreAnswer("Paris", nil, metrics.AnswerOptions{Unanswerable: true}))
	// Output:
	// {ExactMatch:0 TokenF1:0.8571428571428571}
	// {ExactMatch:1 TokenF1:1}
	// {ExactMatch:0 TokenF1:0}
}

func ExampleScoreVecta() {
	gold := metrics.VectaRefs{ChunkIDs: []string{"chunk_42", "chunk_87"}, PageNums: []int{3, 4}, SourcePaths: []string{"drug_guide.pdf"}}
	got := metrics.VectaRefs{ChunkIDs: []string{"chunk_42", "chunk_7"}, PageNums: []int{3}, SourcePaths: []string{"drug_guide.pdf"}}
	s := metrics.ScoreVecta(got, gold)
	fmt.Printf("chunk %+v\npage %+v\ndocument %+v\n", s.Chunk, s.Page, s.Document)
	m := metrics.MeanVecta([]metrics.VectaScore{metrics.ScoreVecta(got, metrics.VectaRefs{ChunkIDs: []string{"chunk_7"}})})
	fmt.Printf("page level available: %v\n", m.Page.Available)
	// Output:
	// chunk {Precision:0.5 Recall:0.5 F1:0.5 OK:true}
	// page {Precision:1 Recall:0.5 F1:0.6666666666666666 OK:true}
	// document {Precision:1 Recall:1 F1:1 OK:true}
	// page level available: false
}

func ExampleComparePaired() {
	a := []float64{1, 0.5, 1, 1, 0.8, 1}
	b := []float64{0, 0.5, 0.5, 1, 0.4, 0.6}
	p, err := metrics.ComparePaired(a, b, metrics.PairedOptions{Seed: 1})
	if err != nil {
		fmt.Println(err)
		return
	}
	fmt.Printf("n=%d diff=%.3f CI=[%.3f, %.3f] d_z=%.2f p=%.4f (exact %v) p_t=%.4f small=%v\n",
		p.N, p.MeanDiff, p.Lo, p.Hi, p.Dz, p.P, p.ExactP, p.PT, p.SmallSample)
	fmt.Println(metrics.Holm([]float64{0.01, 0.04, 0.03}))
	// Output:
	// n=6 diff=0.383 CI=[0.133, 0.650] d_z=1.03 p=0.1250 (exact true) p_t=0.0525 small=true
	// [0.03 0.06 0.06]
}

func ExampleSummarize() {
	s := metrics.Summarize([]float64{1, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 0}, metrics.BootstrapOptions{Seed: 1})
	fmt.Printf("n=%d mean=%.3f 95%% CI=[%.3f, %.3f]\n", s.N, s.Mean, s.Lo, s.Hi)
	// Output:
	// n=12 mean=0.667 95% CI=[0.417, 0.917]
}
