package lasagna_test

import (
	"io/fs"
	"os"
	"path"
	"path/filepath"
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

// guideFiles are the user documentation: the README, CONTRIBUTING.md,
// BENCHMARKS.md and every Markdown file under docs/.
func guideFiles(t *testing.T) []string {
	t.Helper()
	files := []string{"README.md", "CONTRIBUTING.md", "BENCHMARKS.md", "CHANGELOG.md"}
	docs, err := filepath.Glob("docs/*.md")
	if err != nil || len(docs) == 0 {
		t.Fatalf("no docs/*.md: %v", err)
	}
	return append(files, docs...)
}

// mdText is a Markdown file's text outside fenced code blocks, and its
// fenced blocks with their info strings.
type mdText struct {
	prose  []string // lines outside fences
	blocks []mdBlock
}

type mdBlock struct {
	info string
	line int // of the opening fence
	body string
}

func readMarkdown(t *testing.T, name string) mdText {
	t.Helper()
	data, err := os.ReadFile(name)
	if err != nil {
		t.Fatal(err)
	}
	var md mdText
	var cur *mdBlock
	var body []string
	for i, line := range strings.Split(string(data), "\n") {
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &mdBlock{info: strings.TrimPrefix(line, "```"), line: i + 1}
			body = body[:0]
		case cur != nil && strings.HasPrefix(line, "```"):
			cur.body = strings.Join(body, "\n")
			md.blocks = append(md.blocks, *cur)
			cur = nil
		case cur != nil:
			body = append(body, line)
		default:
			md.prose = append(md.prose, line)
		}
	}
	return md
}

func anchorsOf(md mdText) map[string]bool {
	anchors := map[string]bool{}
	for _, line := range md.prose {
		if strings.HasPrefix(line, "#") {
			anchors[githubSlug(strings.TrimSpace(strings.TrimLeft(line, "#")))] = true
		}
	}
	return anchors
}

var mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)

// TestDocsLinks: every relative link of the documentation resolves: the
// file exists, and an anchor names a heading of the file it points into.
func TestDocsLinks(t *testing.T) {
	files := guideFiles(t)
	anchors := map[string]map[string]bool{}
	for _, f := range files {
		anchors[f] = anchorsOf(readMarkdown(t, f))
	}
	for _, f := range files {
		md := readMarkdown(t, f)
		for n, line := range md.prose {
			for _, m := range mdLink.FindAllStringSubmatch(line, -1) {
				target := m[1]
				if strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
					continue
				}
				file, anchor, _ := strings.Cut(target, "#")
				if file == "" {
					file = f
				} else {
					file = path.Clean(path.Join(path.Dir(f), file))
					if _, err := os.Stat(file); err != nil {
						t.Errorf("%s: prose line %d links to %s, which does not exist", f, n+1, target)
						continue
					}
				}
				if anchor == "" {
					continue
				}
				a, ok := anchors[file]
				if !ok {
					a = anchorsOf(readMarkdown(t, file))
					anchors[file] = a
				}
				if !a[anchor] {
					t.Errorf("%s: prose line %d links to %s, but %s has no heading #%s", f, n+1, target, file, anchor)
				}
			}
		}
	}
}

// TestDocsGoSnippets: every Go block of the README and docs/ is a piece of
// a Go file of the repository (examples/, mostly examples/docs, or a
// package's tests), line by line with leading white space ignored (a
// fragment sits inside a function there), which the build compiles, so no
// snippet can drift from compiling code.
func TestDocsGoSnippets(t *testing.T) {
	var sources []string
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && (d.Name() == "node_modules" || d.Name() == ".git") {
			return filepath.SkipDir
		}
		if !d.IsDir() && strings.HasSuffix(p, ".go") {
			data, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			sources = append(sources, string(data))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range append([]string{"README.md"}, must(filepath.Glob("docs/*.md"))...) {
		for _, b := range readMarkdown(t, f).blocks {
			if b.info != "go" {
				continue
			}
			want := dedent(b.body)
			found := false
			for _, s := range sources {
				if strings.Contains(dedent(s), want) {
					found = true
					break
				}
			}
			if !found {
				t.Errorf("%s:%d: this Go block is in no .go file of the repository; copy it from one (examples/ or a test) so that it compiles", f, b.line)
			}
		}
	}
}

// dedent drops each line's leading white space.
func dedent(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimLeft(l, " \t")
	}
	return strings.Join(lines, "\n")
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
