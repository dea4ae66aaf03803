package lasagna_test

import (
	"testing"

	lasagna "github.com/lasagna-go/lasagna"
)

// TestListsAreCopies checks that the package's lists cannot be changed by a
// caller: each call returns a new slice.
func TestListsAreCopies(t *testing.T) {
	c := lasagna.Catalogue()
	c[0].Level = "edited"
	if lasagna.Catalogue()[0].Level == "edited" {
		t.Error("editing the result of Catalogue changed the catalogue")
	}
	if info, ok := c[0].Code.Info(); !ok || info.Level == "edited" {
		t.Errorf("Code.Info after editing a copy = %+v, %v", info, ok)
	}
	tr := lasagna.Tracks()
	tr[0] = "edited"
	if lasagna.Tracks()[0] != lasagna.TrackRetrieval {
		t.Error("editing the result of Tracks changed the tracks")
	}
	st := lasagna.Stages()
	st[0] = "edited"
	if got := lasagna.Stages(); got[0] != lasagna.StageDocumentProcessor || len(got) != 8 {
		t.Errorf("Stages() = %v after editing a copy", got)
	}
}
