package jsonschema

import (
	"strings"
	"testing"
)

// TestDraftsCompiledOnFirstUse checks this copy's one change (README.md):
// the drafts' meta-schemas are not compiled at init, they are on the first
// NewCompiler, and a compiler checks schemas against them as upstream does.
func TestDraftsCompiledOnFirstUse(t *testing.T) {
	// The tests of this package call NewCompiler only here, so at this
	// point only init has run.
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch != nil {
			t.Fatalf("%s: meta-schema compiled at init, want on first use", d)
		}
	}
	c := NewCompiler()
	for _, d := range []*Draft{Draft4, Draft6, Draft7, Draft2019, Draft2020} {
		if d.sch == nil {
			t.Errorf("%s: meta-schema not compiled by NewCompiler", d)
		}
		for name, sch := range d.allVocabs {
			if sch == nil {
				t.Errorf("%s: vocabulary %s not compiled by NewCompiler", d, name)
			}
		}
	}
	// A schema the 2020-12 meta-schema rejects is refused, and a valid
	// one validates instances.
	if err := c.AddResource("bad.json", map[string]any{"type": 5.0}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.Compile("bad.json"); err == nil || !strings.Contains(err.Error(), "bad.json") {
		t.Errorf("Compile of {\"type\": 5} = %v, want a meta-schema error naming bad.json", err)
	}
	if err := c.AddResource("good.json", map[string]any{"type": "string"}); err != nil {
		t.Fatal(err)
	}
	sch, err := c.Compile("good.json")
	if err != nil {
		t.Fatal(err)
	}
	if err := sch.Validate("text"); err != nil {
		t.Errorf("Validate(\"text\") = %v, want nil", err)
	}
	if err := sch.Validate(1.0); err == nil {
		t.Error("Validate(1.0) = nil, want a type error")
	}
}
