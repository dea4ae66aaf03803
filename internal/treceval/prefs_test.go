package treceval

import (
	"strconv"
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/internal/trecparse"
)

// TestRankPool: the pool keeps what earlier queries wrote while its block
// is big enough, and a query that needs more gets a fresh block of the
// old size plus its own, as te_chk_and_malloc does, with nothing defined
// in it.
func TestRankPool(t *testing.T) {
	var p rankPool
	p.begin(4)
	if len(p.ranks) != 4 {
		t.Fatalf("block of %d, want 4", len(p.ranks))
	}
	if _, ok := p.at(0); ok {
		t.Error("a fresh block has a defined rank")
	}
	p.store([]int{7, 8, 9})
	p.begin(2) // fits: the block and its ranks stay
	p.store([]int{1})
	for i, want := range []int{1, 8, 9} {
		if r, ok := p.at(i); !ok || r != want {
			t.Errorf("at(%d) = %d, %v; want %d", i, r, ok, want)
		}
	}
	if _, ok := p.at(3); ok {
		t.Error("rank 3 was never written")
	}
	if _, ok := p.at(4); ok {
		t.Error("rank 4 is past the block")
	}
	p.begin(5) // a fresh block of 4+5
	if len(p.ranks) != 9 {
		t.Fatalf("block of %d, want 9", len(p.ranks))
	}
	if _, ok := p.at(1); ok {
		t.Error("a fresh block keeps an earlier rank")
	}
}

// TestFormPrefsTooMany: a query judging more documents than the counts
// array may hold is refused with its id, not left to exhaust memory.
func TestFormPrefsTooMany(t *testing.T) {
	prefs := make([]trecparse.Pref, maxPrefsJudged+1)
	for i := range prefs {
		prefs[i] = trecparse.Pref{JG: "u", JSG: "0", Doc: "d" + strconv.Itoa(i), Level: float64(i % 2)}
	}
	_, err := formPrefs("q9", prefs, nil, &rankPool{})
	if err == nil || !strings.Contains(err.Error(), `query "q9" judges 32769 documents`) {
		t.Errorf("error %v", err)
	}
}
