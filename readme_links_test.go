package lasagna_test

import (
	"os"
	"regexp"
	"strings"
	"testing"
	"unicode"
)

// githubSlug is the anchor GitHub gives a Markdown heading: lower case,
// letters, digits, '-' and '_' kept, spaces turned into '-', everything
// else dropped.
func githubSlug(heading string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(heading) {
		switch {
		case unicode.IsLetter(r), unicode.IsDigit(r), r == '-', r == '_':
			b.WriteRune(r)
		case r == ' ':
			b.WriteByte('-')
		}
	}
	return b.String()
}

// TestREADMEAnchors: every in-page link of the README names a heading.
func TestREADMEAnchors(t *testing.T) {
	data, err := os.ReadFile("README.md")
	if err != nil {
		t.Fatal(err)
	}
	anchors := map[string]bool{}
	inFence := false
	for _, line := range strings.Split(string(data), "\n") {
		if strings.HasPrefix(line, "```") {
			inFence = !inFence
			continue
		}
		if !inFence && strings.HasPrefix(line, "#") {
			anchors[githubSlug(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
		}
	}
	for _, m := range regexp.MustCompile(`\]\(#([^)]+)\)`).FindAllStringSubmatch(string(data), -1) {
		if !anchors[m[1]] {
			t.Errorf("README links to #%s, which no heading has", m[1])
		}
	}
}
