package llm_test

import (
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna/fixtures"
	"github.com/lasagna-go/lasagna/llm"
)

func TestSharedTrackerSplitsStages(t *testing.T) {
	f := fixtures.NewFakeOpenAI(fixtures.FakeOpenAIOptions{})
	defer f.Close()
	var tr llm.Tracker // the zero value works
	cfg := fast(f)
	cfg.Tracker = &tr
	a, b := newClient(t, cfg), newClient(t, cfg)
	var wg sync.WaitGroup
	for i := range 10 {
		wg.Go(func() {
			c, stage := a, llm.StageGenerator
			if i%2 == 1 {
				c, stage = b, llm.StageJudge
			}
			r := ask("one two three")
			r.Stage = stage
			if _, err := c.Chat(t.Context(), r); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Go(func() {
		if _, _, err := a.Embed(t.Context(), []string{"x y"}, ""); err != nil {
			t.Error(err)
		}
	})
	wg.Wait()
	snap := tr.Snapshot()
	if len(snap) != 3 || snap[0].Stage != llm.StageEmbedder || snap[1].Stage != llm.StageGenerator || snap[2].Stage != llm.StageJudge {
		t.Fatalf("snapshot %+v", snap)
	}
	// Each chat: prompt "answer briefly" + "one two three" = 5, answer "echo one two three" = 4.
	for _, su := range snap[1:] {
		if su.Calls != 5 || su.Usage != (llm.Usage{PromptTokens: 25, CompletionTokens: 20, TotalTokens: 45}) {
			t.Errorf("%s: %+v", su.Stage, su)
		}
	}
	if snap[0].Usage.PromptTokens != 2 || a.Usage() != &tr {
		t.Errorf("embedder %+v", snap[0])
	}
	if got := tr.Stage(llm.StageSynthesis); got.Calls != 0 || got.Stage != llm.StageSynthesis {
		t.Errorf("unused stage %+v", got)
	}
}
