// Package doctest reads the sample outputs of the documentation (README.md
// and docs/*.md) so that tests can compare them with what the programs
// print, as testscript and cram do. CONTRIBUTING.md ("Sample outputs in the
// documentation") describes the conventions:
//
//   - a fenced block holding lines that start with "$ " is a transcript:
//     each "$ " line is a command, followed by its output up to the next
//     "$ " line or the end of the block;
//   - an HTML comment on the line before a fence ties the block to what
//     produces it: "<!-- output: lasagna ARGS -->" (the block is the output
//     of that command), "<!-- output: TestName -->" (the test of that name
//     compares it), "<!-- output: path/to/file -->" (the block is an
//     excerpt of that file, a golden file or an Example's checked output),
//     "<!-- file: NAME -->" (the block is an input file that the
//     transcripts of its section read), "<!-- not output: why -->" (a
//     schematic that only looks like output);
//   - in an expected output, a line that is only "…" stands for any number
//     of lines, and "…" inside a line for any text on that line;
//   - volatile parts are normalised on both sides (Normalise).
//
// The package only parses and compares; tests report the differences.
package doctest

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// Block is one fenced code block of a Markdown file.
type Block struct {
	File    string   // the Markdown file, as given to Parse
	Line    int      // 1-based line of the opening fence
	Info    string   // the fence's info string ("console", "go", …)
	Section string   // the nearest heading above the block
	Marker  Marker   // the HTML comment on the line before the fence
	Lines   []string // the body, without the fence's indentation
}

// Marker is an HTML comment "<!-- KIND: VALUE -->" on the line before a
// fence.
type Marker struct {
	Kind  string // "output", "file", "not output"; "" when there is none
	Value string
}

var markerRE = regexp.MustCompile(`^\s*<!--\s*(output|file|not output):\s*(.*?)\s*-->\s*$`)

// Where is "file:line" of the block's opening fence.
func (b Block) Where() string { return fmt.Sprintf("%s:%d", b.File, b.Line) }

// Text is the body joined with newlines.
func (b Block) Text() string { return strings.Join(b.Lines, "\n") }

// Parse splits a Markdown file's text into its fenced blocks. Fences may be
// indented (a block inside a list item); the fence's indentation is removed
// from the body's lines.
func Parse(file string, data []byte) []Block {
	var blocks []Block
	var cur *Block
	var indent, fence, section string
	prev := ""
	for i, line := range strings.Split(string(data), "\n") {
		trimmed := strings.TrimLeft(line, " ")
		switch {
		case cur == nil && strings.HasPrefix(trimmed, "```"):
			indent = line[:len(line)-len(trimmed)]
			fence = trimmed[:len(trimmed)-len(strings.TrimLeft(trimmed, "`"))]
			cur = &Block{File: file, Line: i + 1, Info: strings.TrimSpace(strings.TrimLeft(trimmed, "`")), Section: section}
			if m := markerRE.FindStringSubmatch(prev); m != nil {
				cur.Marker = Marker{Kind: m[1], Value: m[2]}
			}
		case cur != nil && strings.HasPrefix(trimmed, fence) && strings.TrimSpace(strings.TrimLeft(trimmed, "`")) == "":
			blocks = append(blocks, *cur)
			cur = nil
		case cur != nil:
			cur.Lines = append(cur.Lines, strings.TrimPrefix(line, indent))
		case strings.HasPrefix(line, "#"):
			section = strings.TrimSpace(strings.TrimLeft(line, "#"))
		}
		prev = line
	}
	return blocks
}

// ParseFile reads and parses a Markdown file.
func ParseFile(file string) ([]Block, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, err
	}
	return Parse(filepath.ToSlash(file), data), nil
}

// Command is one "$ " line of a transcript and the output under it.
type Command struct {
	Line   int      // 1-based line in the Markdown file
	Text   string   // the command, without "$ "
	Output []string // the expected output lines
}

// Commands splits a transcript block into its commands; nil when the block
// holds no "$ " line. Lines before the first "$ " line are not part of any
// command.
func (b Block) Commands() []Command {
	var cmds []Command
	for i, l := range b.Lines {
		if strings.HasPrefix(l, "$ ") {
			cmds = append(cmds, Command{Line: b.Line + 1 + i, Text: strings.TrimPrefix(l, "$ ")})
			continue
		}
		if len(cmds) > 0 {
			c := &cmds[len(cmds)-1]
			c.Output = append(c.Output, l)
		}
	}
	for i := range cmds { // a trailing blank line is layout, not output
		for n := len(cmds[i].Output); n > 0 && strings.TrimSpace(cmds[i].Output[n-1]) == ""; n-- {
			cmds[i].Output = cmds[i].Output[:n-1]
		}
	}
	return cmds
}

// IsTranscript reports whether the block holds a "$ " line.
func (b Block) IsTranscript() bool { return len(b.Commands()) > 0 }

// Ellipsis is the elision mark of expected outputs.
const Ellipsis = "…"

// normalisations are the documented rules (CONTRIBUTING.md) that make
// volatile parts of an output equal: applied to the documented and the
// produced text alike.
var normalisations = []struct {
	re   *regexp.Regexp
	with string
}{
	// Terminal colours (Ginkgo's).
	{regexp.MustCompile("\x1b\\[[0-9;]*m"), ""},
	// Bundle files named by their run id, and run ids: the id hashes the
	// bundle, which records the Go and lasagna versions.
	{regexp.MustCompile(`\blasagna-out/[0-9a-f]{12}\.json\b`), "lasagna-out/RUNID.json"},
	{regexp.MustCompile(`\brun_id [0-9a-f]{12}\b`), "run_id RUNID"},
	// Times of day (the registry's creation times).
	{regexp.MustCompile(`\b\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z| UTC)`), "TIME"},
	// go test's durations: "(0.04s)", "0.05s" after a package, "in 0.012 seconds".
	{regexp.MustCompile(`\(\d+\.\d+s\)`), "(N.NNs)"},
	{regexp.MustCompile(`\b\d+\.\d+ seconds\b`), "N seconds"},
	{regexp.MustCompile(`(?m)^((?:ok|FAIL)\s+\S+\s+)\d+\.\d+s$`), "${1}N.NNs"},
	// The port a server listens on (tests take a free one).
	{regexp.MustCompile(`\b(127\.0\.0\.1|0\.0\.0\.0|localhost):\d+\b`), "$1:PORT"},
	// The size of a written report, which changes with its page layout.
	{regexp.MustCompile(`\(\d+ bytes\)`), "(N bytes)"},
}

// Normalise applies the normalisation rules to s and drops trailing white
// space of each line.
func Normalise(s string) string {
	for _, n := range normalisations {
		s = n.re.ReplaceAllString(s, n.with)
	}
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimRight(l, " \t\r")
	}
	return strings.Join(lines, "\n")
}

// Match compares a whole output with the expected lines: both are
// normalised, a line "…" matches any number of lines and "…" within a line
// any text. It returns nil or an error showing both.
func Match(want []string, got string) error {
	g := splitOutput(Normalise(got))
	w := splitOutput(Normalise(strings.Join(want, "\n")))
	if matchLines(w, g, func(a, b string) bool { return lineMatches(a, b) }) {
		return nil
	}
	return fmt.Errorf("output differs from the documentation\n--- documented:\n%s\n--- produced:\n%s%s",
		strings.Join(want, "\n"), strings.TrimRight(got, "\n"), firstDifference(w, g))
}

// Excerpt reports whether the expected lines appear, in order and next to
// each other, in got: as Match, but the block may start and end anywhere
// in the output, and leading white space is ignored (a block quoting go
// test output drops its indentation).
func Excerpt(want []string, got string) error {
	g := splitOutput(Normalise(got))
	w := splitOutput(Normalise(strings.Join(want, "\n")))
	for i := range w {
		w[i] = strings.TrimLeft(w[i], " \t")
	}
	for i := range g {
		g[i] = strings.TrimLeft(g[i], " \t")
	}
	w = append(append([]string{Ellipsis}, w...), Ellipsis)
	if matchLines(w, g, lineMatches) {
		return nil
	}
	return fmt.Errorf("the documented lines are not an excerpt of the output\n--- documented:\n%s\n--- produced:\n%s%s",
		strings.Join(w[1:len(w)-1], "\n"), strings.Join(g, "\n"), firstDifference(w[1:len(w)-1], g))
}

func splitOutput(s string) []string {
	s = strings.TrimRight(s, "\n")
	if s == "" {
		return nil
	}
	return strings.Split(s, "\n")
}

// matchLines matches want against got, a want line "…" standing for any
// number of got lines (memoised, so elisions cost O(len(want)·len(got))).
func matchLines(want, got []string, eq func(w, g string) bool) bool {
	memo := map[[2]int]bool{}
	var m func(i, j int) bool
	m = func(i, j int) bool {
		if i == len(want) {
			return j == len(got)
		}
		key := [2]int{i, j}
		if v, ok := memo[key]; ok {
			return v
		}
		var ok bool
		if want[i] == Ellipsis {
			for k := j; k <= len(got) && !ok; k++ {
				ok = m(i+1, k)
			}
		} else {
			ok = j < len(got) && eq(want[i], got[j]) && m(i+1, j+1)
		}
		memo[key] = ok
		return ok
	}
	return m(0, 0)
}

// lineMatches compares one line, "…" in want matching any text.
func lineMatches(want, got string) bool {
	if !strings.Contains(want, Ellipsis) {
		return want == got
	}
	parts := strings.Split(want, Ellipsis)
	if !strings.HasPrefix(got, parts[0]) {
		return false
	}
	rest := got[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(rest, p)
		if i < 0 {
			return false
		}
		rest = rest[i+len(p):]
	}
	return strings.HasSuffix(rest, last) && len(rest) >= len(last)
}

// firstDifference names the first documented line that no produced line
// equals, to point at a drift quickly.
func firstDifference(want, got []string) string {
	for _, w := range want {
		if w == Ellipsis {
			continue
		}
		found := false
		for _, g := range got {
			if lineMatches(w, g) {
				found = true
				break
			}
		}
		if !found {
			return "\n--- first documented line not produced:\n" + w
		}
	}
	return ""
}

// Files are the documentation files whose sample outputs are checked:
// README.md and docs/*.md, relative to the module root root.
func Files(root string) ([]string, error) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "*.md"))
	if err != nil {
		return nil, err
	}
	files := []string{filepath.Join(root, "README.md")}
	return append(files, docs...), nil
}

// MarkedOutput returns the blocks of the documentation under root marked
// "<!-- output: name -->", with File relative to root.
func MarkedOutput(root, name string) ([]Block, error) {
	files, err := Files(root)
	if err != nil {
		return nil, err
	}
	var out []Block
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		rel, _ := filepath.Rel(root, f)
		for _, b := range Parse(filepath.ToSlash(rel), data) {
			if b.Marker.Kind == "output" && b.Marker.Value == name {
				out = append(out, b)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no block of README.md or docs/*.md is marked <!-- output: %s -->", name)
	}
	return out, nil
}

// IsLasagna reports whether a command line runs the lasagna command
// ("lasagna ARGS" or "go run ./cmd/lasagna ARGS").
func IsLasagna(cmd string) bool {
	return strings.HasPrefix(cmd, "lasagna ") || strings.HasPrefix(cmd, "go run ./cmd/lasagna ")
}

// Builtins are the shell commands a lasagna transcript may use beside
// lasagna (cmd/lasagna's TestDocsTranscripts runs them itself).
var Builtins = map[string]bool{"cat": true, "cmp": true, "echo": true, "export": true}

// IsCLITranscript reports whether every command of the block is lasagna
// or a builtin, and one is lasagna: the transcripts cmd/lasagna's
// TestDocsTranscripts runs. Transcripts of other programs (go test, make)
// are compared by the tests their markers name.
func IsCLITranscript(b Block) bool {
	cmds := b.Commands()
	anyCLI := false
	for _, c := range cmds {
		_, words := Words(StripComment(c.Text))
		switch {
		case len(words) > 0 && IsLasagna(strings.Join(words, " ")):
			anyCLI = true
		case len(words) > 0 && Builtins[words[0]]:
		default:
			return false
		}
	}
	return anyCLI
}

var commentRE = regexp.MustCompile(`\s+#\s.*$`)

// StripComment drops a shell comment (" # …") from a command line.
func StripComment(cmd string) string { return commentRE.ReplaceAllString(cmd, "") }

var envWordRE = regexp.MustCompile(`^[A-Z_][A-Z0-9_]*=`)

// Words splits a command line as a shell does for these docs (white space
// separates, single and double quotes group) and splits leading
// NAME=VALUE words off as the command's environment.
func Words(cmd string) (env [][2]string, words []string) {
	var cur strings.Builder
	in, quote, depth := false, rune(0), 0
	prev := rune(0)
	for _, r := range cmd {
		switch {
		case quote == 0 && prev == '$' && r == '(': // $(…) is one word
			depth++
			cur.WriteRune(r)
		case depth > 0 && r == ')':
			depth--
			cur.WriteRune(r)
		case depth > 0:
			cur.WriteRune(r)
		case quote != 0 && r == quote:
			quote = 0
		case quote != 0:
			cur.WriteRune(r)
		case r == '\'' || r == '"':
			quote, in = r, true
		case r == ' ' || r == '\t':
			if in {
				words = append(words, cur.String())
				cur.Reset()
				in = false
			}
		default:
			cur.WriteRune(r)
			in = true
		}
		prev = r
	}
	if in {
		words = append(words, cur.String())
	}
	for len(words) > 0 && envWordRE.MatchString(words[0]) {
		k, v, _ := strings.Cut(words[0], "=")
		env = append(env, [2]string{k, v})
		words = words[1:]
	}
	return env, words
}
