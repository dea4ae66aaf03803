package htmlreport

import (
	"strings"
	"testing"

	"github.com/lasagna-go/lasagna/results"
)

// TestReportLinks: Options.Links show above the title as links, their
// text escaped and a javascript: URL neutralised by html/template.
func TestReportLinks(t *testing.T) {
	b, _ := faqRun(t, "")
	page := render(t, []Input{{Bundle: b}}, Options{Links: []Link{{Text: "← bundles", URL: "/"}, {Text: "<b>x</b>", URL: "javascript:alert(1)"}}})
	for _, want := range []string{`<nav><a href="/">← bundles</a> · <a href="#ZgotmplZ">&lt;b&gt;x&lt;/b&gt;</a></nav>`} {
		if !strings.Contains(page, want) {
			t.Errorf("the page lacks %s", want)
		}
	}
	if page := render(t, []Input{{Bundle: b}}, Options{}); strings.Contains(page, "<nav>") {
		t.Error("a report without links has a nav")
	}
}

// TestReportRefusedBaseline: when the baseline's arms cannot be compared
// (their comparability keys differ), the page says why, and not that no
// baseline was given.
func TestReportRefusedBaseline(t *testing.T) {
	b, _ := faqRun(t, "")
	base, _ := faqRun(t, "")
	for i := range base.Configs {
		base.Configs[i].HeldFixed.NSamples++ // another sample: not comparable
	}
	if err := results.Finalize(base); err != nil {
		t.Fatal(err)
	}
	page := render(t, []Input{{Bundle: b}}, Options{Baseline: base})
	if !strings.Contains(page, `<p class="err">not compared: `) || strings.Contains(page, "no baseline was given") {
		t.Errorf("a refused baseline:\n%s", page[strings.Index(page, `<h2 id="comparisons">`):strings.Index(page, `<h2 id="per-query">`)])
	}
}
