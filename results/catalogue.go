package results

import (
	"fmt"
	"strings"

	lasagna "github.com/lasagna-go/lasagna"
)

// catalogueMarkdown renders the integrity catalogue as a Markdown table
// (code, level, raised when, fix): every row of lasagna.Catalogue(). The
// documentation is generated from it, so docs and code cannot disagree.
func catalogueMarkdown() string {
	var b strings.Builder
	b.WriteString("| code | level | raised when | fix |\n| --- | --- | --- | --- |\n")
	for _, r := range lasagna.Catalogue() {
		fmt.Fprintf(&b, "| `%s` | %s | %s | %s |\n", r.Code, r.Level, mdCell(r.Meaning), mdCell(r.Fix))
	}
	return b.String()
}

func mdCell(s string) string { return strings.ReplaceAll(s, "|", `\|`) }
