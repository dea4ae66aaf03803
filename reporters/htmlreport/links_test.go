package htmlreport

import (
	"strings"
	"testing"
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
