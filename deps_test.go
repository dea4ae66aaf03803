package lasagna_test

// The dependency tests turn the architecture document, docs/ARCHITECTURE.md,
// into an allow-list. Its table A says, per package of the module, which
// packages of the module it may import directly, which third-party modules
// it may link (directly or not), which edges are FORBIDDEN outright, and
// whether it may link `testing`; table B names groups of third-party
// modules. An import edge the document does not allow fails
// TestDependencyAllowList until the document allows it, and a table that
// names a package the module does not have fails too, so the document
// stays true. See the "How to read table A" section of the document.

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/lasagna-go/lasagna/internal/buildtag"
)

const (
	module  = "github.com/lasagna-go/lasagna"
	archDoc = "docs/ARCHITECTURE.md"
)

// The columns of the two tables, in order, compared case-insensitively.
var (
	allowColumns = []string{
		"package",
		"may import (this module, direct)",
		"may link (third-party modules, transitive)",
		"forbidden (direct or transitive)",
		"testing",
	}
	groupColumns = []string{"group", "modules"}
)

// testingMayBe is the one rule the document cannot relax: only the test
// adapters (evaltest and its sub-packages), the golden-file test helper and
// the examples link `testing` from non-test code. A row outside these that
// says "yes" in the testing column is an error in the document.
var testingMayBe = []string{"evaltest/...", "internal/golden", "examples/..."}

// Weight budget of a user test that imports only evaltest
// (docs/ARCHITECTURE.md, weight budget).
const evaltestMaxOutside = 20

// Weight budget of the default lasagna binary: no vector-engine client,
// no PostgreSQL driver (docs/ARCHITECTURE.md, weight budget).
const cliMaxOutside = 150

var cliBanned = []string{
	"google.golang.org/grpc",
	"github.com/weaviate",
	"github.com/go-openapi",
	"go.mongodb.org",
	"github.com/jackc",
}

var evaltestBanned = []string{
	"github.com/openai",
	"github.com/coder/websocket",
	"github.com/tidwall",
	"github.com/invopop",
}

func TestDependencyAllowList(t *testing.T) {
	// The build with every optional part: its edges are a superset of the
	// default build's (the files without a tag import only the standard
	// library and internal/buildtag).
	g := loadGraph(t, buildtag.All)
	arch := loadArchitecture(t)
	for _, msg := range validateArchitecture(arch, g) {
		t.Error(msg)
	}
	for _, msg := range checkGraph(arch, g) {
		t.Error(msg)
	}
}

func TestDependencyWeightEvaltest(t *testing.T) {
	checkWeight(t, loadGraph(t, ""), "evaltest", evaltestMaxOutside, evaltestBanned)
}

func TestDependencyWeightCLI(t *testing.T) {
	checkWeight(t, loadGraph(t, ""), "cmd/lasagna", cliMaxOutside, cliBanned)
}

// checkWeight checks that package rel of the module (default build tags)
// links at most max packages outside the module and the standard library,
// and none of the modules under banned.
func checkWeight(t *testing.T, g *graph, rel string, max int, banned []string) {
	t.Helper()
	p := g.pkgs[module+"/"+rel]
	if p == nil {
		t.Fatalf("go list reported no package %s/%s", module, rel)
	}
	byModule := map[string][]string{}
	outside := 0
	for _, d := range p.Deps {
		if m := g.moduleOf(d); m != "" && m != module {
			byModule[m] = append(byModule[m], d)
			outside++
		}
	}
	if outside > max {
		var b strings.Builder
		for _, m := range slices.Sorted(maps.Keys(byModule)) {
			fmt.Fprintf(&b, "\n\t%s: %d", m, len(byModule[m]))
		}
		t.Errorf("go list -deps ./%s: %d packages outside the module and the standard library, want at most %d (docs/ARCHITECTURE.md, weight budget); packages by module:%s",
			rel, outside, max, b.String())
	}
	var b strings.Builder
	nbanned := 0
	for _, m := range slices.Sorted(maps.Keys(byModule)) {
		if !slices.ContainsFunc(banned, func(pfx string) bool { return pathUnder(m, pfx) }) {
			continue
		}
		pkgs := byModule[m]
		nbanned += len(pkgs)
		via := g.pathTo(p.ImportPath, func(q string) bool { return g.moduleOf(q) == m }, nil)
		fmt.Fprintf(&b, "\n\t%s (%d packages, via %s): %s", m, len(pkgs), strings.Join(via, " → "), strings.Join(pkgs, " "))
	}
	if nbanned > 0 {
		t.Errorf("%s links %d packages from %s, want none (docs/ARCHITECTURE.md, weight budget):%s",
			rel, nbanned, strings.Join(banned, ", "), b.String())
	}
}

// TestDependencyAllowListMatcher runs the checks on synthetic import graphs,
// so that a disallowed edge is known to be reported and an allowed one not.
func TestDependencyAllowListMatcher(t *testing.T) {
	const doc = "# Architecture\n\nSome prose.\n\n" +
		"### Table A — allow-list\n\n" +
		"| package | may import (this module, direct) | may link (third-party modules, transitive) | FORBIDDEN (direct or transitive) | testing |\n" +
		"| --- | --- | --- | --- | --- |\n" +
		"| `.` | — | — | — | no |\n" +
		"| `internal/...` | `.`, `internal/...` | — | — | no |\n" +
		"| `internal/golden` (planned) | — | — | — | yes |\n" +
		"| `llm` | `.` | `@sdk` | — | no |\n" +
		"| `engine` | `.`, `internal/...` | `example.com/yaml` | `llm`, `@sdk` | no |\n" +
		"| `evaltest`, `evaltest/sub` | `.`, `engine`, `evaltest` | `example.com/yaml` | `llm`, `cmd/...` | yes |\n" +
		"| `cmd/...` | `...` | `*` | `evaltest/...` | no |\n" +
		"| `fixtures` | `.`, `evaltest` | `example.com/yaml` | — | no |\n" +
		"\nMore prose.\n\n" +
		"### Table B — module groups\n\n" +
		"| group | modules |\n" +
		"| --- | --- |\n" +
		"| `@sdk` | `example.com/sdk`, `example.com/ws/...` |\n"
	arch, errs := parseArchitecture(doc)
	if len(errs) > 0 {
		t.Fatalf("parse: %v", errs)
	}
	// base is a graph the table allows: every package covered, every edge
	// allowed.
	base := map[string][]string{
		".":                      nil,
		"internal/util":          {"."},
		"llm":                    {".", "example.com/sdk/client", "strings"},
		"example.com/sdk/client": {"example.com/ws/conn", "net/http"},
		"example.com/ws/conn":    {"net"},
		"example.com/yaml":       {"strings"},
		"engine":                 {".", "internal/util", "example.com/yaml"},
		"evaltest":               {".", "engine", "testing"},
		"evaltest/sub":           {"evaltest", "testing"},
		"cmd/tool":               {".", "engine", "llm"},
		"fixtures":               {"."},
		"testing":                nil,
		"strings":                nil,
		"net/http":               {"net"},
		"net":                    nil,
	}
	for _, c := range []struct {
		name string
		edit map[string][]string // replaces these packages' imports in base
		want []string            // each matches exactly one finding
	}{
		{name: "allowed graph", want: nil},
		{
			name: "new direct edge not in the allow-list",
			edit: map[string][]string{"engine": {".", "internal/util", "example.com/yaml", "cmd/tool"}, "cmd/tool": {".", "llm"}},
			want: []string{"engine imports cmd/tool, which table A's row `engine` (docs/ARCHITECTURE.md:13) does not allow; allow it in docs/ARCHITECTURE.md (table A) or remove the import"},
		},
		{
			name: "forbidden direct edge, its SDK not reported again",
			edit: map[string][]string{"engine": {".", "llm", "example.com/yaml"}},
			want: []string{"engine imports llm, which docs/ARCHITECTURE.md (table A, line 13) marks FORBIDDEN for engine; remove the import"},
		},
		{
			name: "forbidden edge reached through an allowed one is reported once, where it is made",
			edit: map[string][]string{"evaltest": {".", "engine"}, "engine": {".", "llm", "example.com/yaml"}},
			want: []string{"engine imports llm, which docs/ARCHITECTURE.md (table A, line 13) marks FORBIDDEN"},
		},
		{
			name: "root imports nothing of the module",
			edit: map[string][]string{".": {"internal/util"}},
			want: []string{". imports internal/util, which table A's row `.` (docs/ARCHITECTURE.md:9) does not allow"},
		},
		{
			name: "third-party module not allowed",
			edit: map[string][]string{"internal/util": {".", "example.com/yaml"}},
			want: []string{"internal/util links third-party module example.com/yaml (internal/util → example.com/yaml), which its row `internal/...` (docs/ARCHITECTURE.md:10) does not allow; allow it in docs/ARCHITECTURE.md (table A) or remove the import"},
		},
		{
			name: "forbidden third-party module, its own deps not reported",
			edit: map[string][]string{"engine": {".", "example.com/sdk/client", "example.com/yaml"}},
			want: []string{"engine links example.com/sdk (engine → example.com/sdk/client), which docs/ARCHITECTURE.md (table A, line 13) marks FORBIDDEN for engine; remove the import of example.com/sdk/client"},
		},
		{
			name: "testing outside the adapters",
			edit: map[string][]string{"internal/util": {".", "testing"}},
			want: []string{"internal/util links testing (internal/util → testing), which only evaltest, internal/golden and examples may"},
		},
		{
			name: "testing through a package that may not link it is reported there",
			edit: map[string][]string{"internal/util": {".", "testing"}, "engine": {".", "internal/util", "example.com/yaml"}},
			want: []string{"internal/util links testing"},
		},
		{
			name: "forbidden dependency through allowed edges",
			edit: map[string][]string{"cmd/tool": {".", "engine", "llm", "fixtures"}, "fixtures": {".", "evaltest"}},
			want: []string{
				"fixtures links testing (fixtures → evaltest → testing)",
				"cmd/tool depends on evaltest (cmd/tool → fixtures → evaltest), which docs/ARCHITECTURE.md (table A, line 15) marks FORBIDDEN for cmd/tool; remove the import of fixtures",
			},
		},
		{
			name: "nothing reported again behind a rejected edge",
			edit: map[string][]string{"cmd/tool": {".", "engine", "llm", "internal/util"}, "internal/util": {".", "evaltest"}, "engine": {".", "example.com/yaml"}},
			want: []string{"internal/util imports evaltest, which table A's row `internal/...` (docs/ARCHITECTURE.md:10) does not allow"},
		},
		{
			name: "package without a row",
			edit: map[string][]string{"reporters": {"."}},
			want: []string{"package reporters is not covered by any row of docs/ARCHITECTURE.md (table A); add a row"},
		},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := maps.Clone(base)
			maps.Copy(spec, c.edit)
			g := syntheticGraph(spec)
			if msgs := validateArchitecture(arch, g); len(msgs) > 0 {
				t.Fatalf("validate: %q", msgs)
			}
			got := checkGraph(arch, g)
			if len(got) != len(c.want) {
				t.Errorf("got %d findings, want %d:\n%s", len(got), len(c.want), strings.Join(got, "\n"))
			}
			for _, w := range c.want {
				n := 0
				for _, m := range got {
					if strings.Contains(m, w) {
						n++
					}
				}
				if n != 1 {
					t.Errorf("finding %q matched %d times, want once; findings:\n%s", w, n, strings.Join(got, "\n"))
				}
			}
		})
	}
}

// TestDependencyTableErrors checks that a table drifting from the module or
// malformed is an error, not silently ignored.
func TestDependencyTableErrors(t *testing.T) {
	head := "### Table A\n\n" +
		"| package | may import (this module, direct) | may link (third-party modules, transitive) | forbidden (direct or transitive) | testing |\n" +
		"|---|---|---|---|---|\n"
	groups := "\n### Table B\n\n| group | modules |\n|---|---|\n| `@g` | `example.com/yaml` |\n"
	graph := syntheticGraph(map[string][]string{
		".": nil, "engine": {".", "example.com/yaml"}, "example.com/yaml": nil,
	})
	ok := "| `.` | — | — | — | no |\n| `engine` | `.` | `@g` | — | no |\n"
	for _, c := range []struct {
		name, doc, want string
	}{
		{"no table A", "# nothing\n", "no heading \"Table A\""},
		{"wrong columns", "### Table A\n\n| package | imports |\n|---|---|\n| `.` | — |\n" + groups, "columns"},
		{"unknown package", head + ok + "| `reporters` | `.` | — | — | no |\n" + groups, "reporters, which matches no package of the module; remove the row or mark it (planned)"},
		{"planned packages that do not exist yet", head + ok + "| `engine/sub` (planned) | `engine` | — | — | no |\n| `engine/x` (planned) | — | — | — | no |\n" + groups, ""},
		{"planned mark on an existing package", head + "| `.` (planned) | — | — | — | no |\n| `engine` | `.` | `@g` | — | no |\n" + groups, ". exists; drop its (planned) mark"},
		{"unknown import", head + "| `.` | — | — | — | no |\n| `engine` | `.`, `metrics` | `@g` | — | no |\n" + groups, "metrics, which is no package of the module"},
		{"unknown group", head + "| `.` | — | — | — | no |\n| `engine` | `.` | `@h` | — | no |\n" + groups, "unknown group @h"},
		{"unused group", head + "| `.` | — | — | — | no |\n| `engine` | `.` | `example.com/yaml` | — | no |\n" + groups, "group @g is used by no row"},
		{"stale module", head + "| `.` | — | — | — | no |\n| `engine` | `.` | `@g`, `example.com/gone` | — | no |\n" + groups, "example.com/gone, which no package of the module links"},
		{"bare text in a cell", head + "| `.` | root only | — | — | no |\n| `engine` | `.` | `@g` | — | no |\n" + groups, "comma-separated list of `code` items"},
		{"testing outside the adapters", head + "| `.` | — | — | — | no |\n| `engine` | `.` | `@g` | — | yes |\n" + groups, "only evaltest/..., internal/golden, examples/... may say yes"},
		{"allowed and forbidden", head + "| `.` | — | — | — | no |\n| `engine` | `.` | `@g` | `.` | no |\n" + groups, "both allows and forbids ."},
		{"duplicate row", head + ok + "| `engine` | `.` | — | — | no |\n" + groups, "engine has two rows"},
	} {
		t.Run(c.name, func(t *testing.T) {
			arch, errs := parseArchitecture(c.doc)
			var msgs []string
			for _, e := range errs {
				msgs = append(msgs, e.Error())
			}
			if len(errs) == 0 {
				msgs = validateArchitecture(arch, graph)
			}
			all := strings.Join(msgs, "\n")
			if c.want == "" {
				if len(msgs) > 0 {
					t.Errorf("want no error, got:\n%s", all)
				}
				return
			}
			if !strings.Contains(all, c.want) {
				t.Errorf("want an error containing %q, got:\n%s", c.want, all)
			}
		})
	}
}

// ---- the module's import graph ----

type goPackage struct {
	ImportPath string
	Imports    []string
	Deps       []string
	Module     *struct{ Path string }
}

type graph struct {
	pkgs map[string]*goPackage
	own  []string // import paths of the module's packages, sorted
}

type goListed struct {
	once sync.Once
	g    *graph
	err  error
}

// goLists are the graphs of the default build ("") and of the build with
// every optional part (buildtag.All).
var goLists = map[string]*goListed{"": {}, buildtag.All: {}}

// loadGraph runs go list -tags tags once per test binary. It runs under
// -short too, so that make check checks the layering, every tag's files
// included: go list reads their imports, so a first make check downloads
// the opt-in engines' modules, though it compiles none of them.
func loadGraph(t *testing.T, tags string) *graph {
	t.Helper()
	l := goLists[tags]
	l.once.Do(func() { l.g, l.err = runGoList(tags) })
	if l.err != nil {
		t.Fatal(l.err)
	}
	return l.g
}

func runGoList(tags string) (*graph, error) {
	out, err := exec.Command("go", "list", "-tags", tags, "-deps", "-json=ImportPath,Imports,Deps,Module", "./...").Output()
	if err != nil {
		if ee, ok := errors.AsType[*exec.ExitError](err); ok {
			return nil, fmt.Errorf("go list: %v\n%s", err, ee.Stderr)
		}
		return nil, fmt.Errorf("go list: %v", err)
	}
	g := &graph{pkgs: map[string]*goPackage{}}
	dec := json.NewDecoder(bytes.NewReader(out))
	for {
		p := new(goPackage)
		if err := dec.Decode(p); err == io.EOF {
			break
		} else if err != nil {
			return nil, fmt.Errorf("decode go list output: %v", err)
		}
		g.pkgs[p.ImportPath] = p
	}
	g.index()
	if len(g.own) == 0 {
		return nil, errors.New("go list reported no package of this module")
	}
	return g, nil
}

func (g *graph) index() {
	g.own = g.own[:0]
	for ip := range g.pkgs {
		if _, ok := relPath(ip); ok {
			g.own = append(g.own, ip)
		}
	}
	slices.Sort(g.own)
}

// syntheticGraph builds a graph from imports keyed by package: a key without
// a dot in its first element and not in the standard library list below is
// a package of the module (relative, "." is the root); "example.com/m/..."
// packages belong to module example.com/<m>.
func syntheticGraph(spec map[string][]string) *graph {
	std := map[string]bool{"testing": true, "strings": true, "net/http": true, "net": true}
	thirdParty := func(p string) bool { return p != "." && strings.Contains(strings.Split(p, "/")[0], ".") }
	full := func(p string) string {
		switch {
		case p == ".":
			return module
		case std[p] || thirdParty(p):
			return p
		}
		return module + "/" + p
	}
	g := &graph{pkgs: map[string]*goPackage{}}
	for p, imps := range spec {
		gp := &goPackage{ImportPath: full(p)}
		for _, i := range imps {
			gp.Imports = append(gp.Imports, full(i))
		}
		slices.Sort(gp.Imports)
		switch {
		case std[p]:
		case thirdParty(p):
			parts := strings.Split(p, "/")
			gp.Module = &struct{ Path string }{strings.Join(parts[:2], "/")}
		default:
			gp.Module = &struct{ Path string }{module}
		}
		g.pkgs[gp.ImportPath] = gp
	}
	var deps func(string, map[string]bool)
	deps = func(ip string, seen map[string]bool) {
		for _, i := range g.pkgs[ip].Imports {
			if !seen[i] {
				seen[i] = true
				deps(i, seen)
			}
		}
	}
	for ip, p := range g.pkgs {
		seen := map[string]bool{}
		deps(ip, seen)
		p.Deps = slices.Sorted(maps.Keys(seen))
	}
	g.index()
	return g
}

// relPath returns importPath relative to the module ("." for the root).
func relPath(importPath string) (string, bool) {
	if importPath == module {
		return ".", true
	}
	return strings.CutPrefix(importPath, module+"/")
}

// name is how messages name a package: relative for the module's own.
func name(importPath string) string {
	if rel, ok := relPath(importPath); ok {
		return rel
	}
	return importPath
}

// moduleOf returns the module path of a package, "" for the standard library.
func (g *graph) moduleOf(importPath string) string {
	if _, ok := relPath(importPath); ok {
		return module
	}
	if p := g.pkgs[importPath]; p != nil && p.Module != nil {
		return p.Module.Path
	}
	return ""
}

// pathTo returns the shortest import chain from `from` to a package for which
// target is true, following no edge for which blocked is true; nil if there
// is none.
func (g *graph) pathTo(from string, target func(string) bool, blocked func(from, to string) bool) []string {
	prev := map[string]string{from: ""}
	queue := []string{from}
	for len(queue) > 0 {
		p := queue[0]
		queue = queue[1:]
		if p != from && target(p) {
			var path []string
			for q := p; q != ""; q = prev[q] {
				path = append(path, name(q))
			}
			slices.Reverse(path)
			return path
		}
		if gp := g.pkgs[p]; gp != nil {
			for _, i := range gp.Imports {
				if _, seen := prev[i]; seen || (blocked != nil && blocked(p, i)) {
					continue
				}
				prev[i] = p
				queue = append(queue, i)
			}
		}
	}
	return nil
}

// ---- the architecture document ----

type rowPackage struct {
	pattern string
	planned bool
}

type archRow struct {
	line         int
	pkgs         []rowPackage
	imports      []string // module patterns
	links        []string // third-party module patterns, groups expanded; "*" is any
	forbidModule []string // module patterns
	forbidLinks  []string // third-party module patterns, groups expanded
	testing      bool
	rawLinks     []string // tokens as written, for validation
}

type architecture struct {
	rows       []*archRow
	groups     map[string][]string
	groupLines map[string]int
	usedGroups map[string]bool
}

func loadArchitecture(t *testing.T) *architecture {
	t.Helper()
	data, err := os.ReadFile(archDoc)
	if err != nil {
		t.Fatalf("the repository's architecture document: %v", err)
	}
	arch, errs := parseArchitecture(string(data))
	for _, e := range errs {
		t.Error(e)
	}
	if len(errs) > 0 {
		t.FailNow()
	}
	return arch
}

type docError struct {
	line int
	msg  string
}

func (e docError) Error() string {
	if e.line == 0 {
		return archDoc + ": " + e.msg
	}
	return fmt.Sprintf("%s:%d: %s", archDoc, e.line, e.msg)
}

// parseArchitecture reads tables A and B of the document.
func parseArchitecture(doc string) (*architecture, []error) {
	lines := strings.Split(doc, "\n")
	var errs []error
	fail := func(line int, format string, args ...any) {
		errs = append(errs, docError{line, fmt.Sprintf(format, args...)})
	}
	arch := &architecture{groups: map[string][]string{}, groupLines: map[string]int{}, usedGroups: map[string]bool{}}

	groupRows, err := findTable(lines, "Table B", groupColumns)
	if err != nil {
		errs = append(errs, err)
	}
	for _, r := range groupRows {
		gs, err := parseCell(r.cells[0])
		if err != nil || len(gs) != 1 || gs[0].note != "" || !groupRE.MatchString(gs[0].text) {
			fail(r.line, "table B: the group column holds one `@name`, got %q", r.cells[0])
			continue
		}
		g := gs[0].text
		if _, dup := arch.groups[g]; dup {
			fail(r.line, "table B: group %s is defined twice", g)
		}
		arch.groupLines[g] = r.line
		arch.groups[g] = []string{}
		mods, err := parseCell(r.cells[1])
		if err != nil {
			fail(r.line, "table B, group %s: %v", g, err)
		}
		for _, m := range mods {
			if m.note != "" || !modulePathRE.MatchString(m.text) {
				fail(r.line, "table B, group %s: %q is not a module path (example.com/x or example.com/x/...)", g, m.text)
				continue
			}
			arch.groups[g] = append(arch.groups[g], m.text)
		}
	}

	rows, err := findTable(lines, "Table A", allowColumns)
	if err != nil {
		errs = append(errs, err)
	}
	seen := map[string]int{}
	for _, r := range rows {
		row := &archRow{line: r.line}
		pkgs, err := parseCell(r.cells[0])
		if err != nil || len(pkgs) == 0 {
			fail(r.line, "table A, package column: %v", cmpErr(err, "empty"))
		}
		for _, p := range pkgs {
			if !packagePatternRE.MatchString(p.text) {
				fail(r.line, "table A: %q is not a package pattern relative to the module (., x, x/y, x/...)", p.text)
				continue
			}
			if p.note != "" && p.note != "planned" {
				fail(r.line, "table A: unknown note (%s) after %s; the one note is (planned)", p.note, p.text)
			}
			if l, dup := seen[p.text]; dup {
				fail(r.line, "table A: %s has two rows (line %d)", p.text, l)
			}
			seen[p.text] = r.line
			row.pkgs = append(row.pkgs, rowPackage{p.text, p.note == "planned"})
		}
		imps, err := parseCell(r.cells[1])
		if err != nil {
			fail(r.line, "table A, may-import column: %v", err)
		}
		for _, i := range imps {
			if i.note != "" || !packagePatternRE.MatchString(i.text) {
				fail(r.line, "table A, may-import column: %q is not a package pattern relative to the module", i.text)
				continue
			}
			row.imports = append(row.imports, i.text)
		}
		links, err := parseCell(r.cells[2])
		if err != nil {
			fail(r.line, "table A, may-link column: %v", err)
		}
		for _, l := range links {
			if l.note != "" {
				fail(r.line, "table A, may-link column: no notes allowed, got (%s)", l.note)
			}
			row.rawLinks = append(row.rawLinks, l.text)
			switch {
			case l.text == "*":
				row.links = append(row.links, "*")
			case groupRE.MatchString(l.text):
				mods, ok := arch.groups[l.text]
				if !ok {
					fail(r.line, "table A: unknown group %s; define it in table B", l.text)
				}
				arch.usedGroups[l.text] = true
				row.links = append(row.links, mods...)
			case modulePathRE.MatchString(l.text):
				row.links = append(row.links, l.text)
			default:
				fail(r.line, "table A, may-link column: %q is not a module path, @group or *", l.text)
			}
		}
		forb, err := parseCell(r.cells[3])
		if err != nil {
			fail(r.line, "table A, forbidden column: %v", err)
		}
		for _, f := range forb {
			switch {
			case f.note != "":
				fail(r.line, "table A, forbidden column: no notes allowed, got (%s)", f.note)
			case slices.Contains(row.imports, f.text):
				fail(r.line, "table A: the row both allows and forbids %s", f.text)
			case groupRE.MatchString(f.text):
				mods, ok := arch.groups[f.text]
				if !ok {
					fail(r.line, "table A: unknown group %s; define it in table B", f.text)
				}
				arch.usedGroups[f.text] = true
				row.forbidLinks = append(row.forbidLinks, mods...)
			case modulePathRE.MatchString(f.text):
				row.forbidLinks = append(row.forbidLinks, f.text)
			case packagePatternRE.MatchString(f.text):
				row.forbidModule = append(row.forbidModule, f.text)
			default:
				fail(r.line, "table A, forbidden column: %q is not a package pattern, module path or @group", f.text)
			}
		}
		switch strings.ToLower(strings.TrimSpace(r.cells[4])) {
		case "yes":
			row.testing = true
			for _, p := range row.pkgs {
				if !slices.ContainsFunc(testingMayBe, func(t string) bool { return patternWithin(p.pattern, t) }) {
					fail(r.line, "table A: %s may not link testing; only %s may say yes", p.pattern, strings.Join(testingMayBe, ", "))
				}
			}
		case "no":
		default:
			fail(r.line, "table A, testing column: want yes or no, got %q", r.cells[4])
		}
		arch.rows = append(arch.rows, row)
	}
	if len(rows) == 0 && err == nil {
		fail(0, "table A has no rows")
	}
	return arch, errs
}

func cmpErr(err error, alt string) string {
	if err != nil {
		return err.Error()
	}
	return alt
}

var (
	// packagePatternRE: ".", "...", "x", "x/y", "x/...".
	packagePatternRE = regexp.MustCompile(`^(\.|\.\.\.|[a-z0-9_]+(/[a-z0-9_]+)*(/\.\.\.)?)$`)
	// modulePathRE: a third-party module path (first element has a dot),
	// optionally "/..." for every module under it.
	modulePathRE = regexp.MustCompile(`^[a-z0-9-]+(\.[a-z0-9-]+)+(/[A-Za-z0-9._~-]+)*(/\.\.\.)?$`)
	groupRE      = regexp.MustCompile(`^@[a-z0-9-]+$`)
	separatorRE  = regexp.MustCompile(`^:?-{3,}:?$`)
	headingRE    = regexp.MustCompile(`^#{1,6}\s`)
)

type tableRow struct {
	line  int
	cells []string
}

// findTable returns the data rows of the first Markdown table after the
// heading that contains title, checking its columns.
func findTable(lines []string, title string, columns []string) ([]tableRow, error) {
	start := -1
	for i, l := range lines {
		if regexp.MustCompile(`^#{1,6}\s+` + regexp.QuoteMeta(title) + `\b`).MatchString(l) {
			start = i
			break
		}
	}
	if start < 0 {
		return nil, docError{0, fmt.Sprintf("no heading %q; the allow-list lives under it", title)}
	}
	i := start + 1
	for ; i < len(lines) && !strings.HasPrefix(strings.TrimSpace(lines[i]), "|"); i++ {
		if headingRE.MatchString(lines[i]) {
			return nil, docError{i + 1, fmt.Sprintf("no table under heading %q", title)}
		}
	}
	if i+1 >= len(lines) {
		return nil, docError{start + 1, fmt.Sprintf("no table under heading %q", title)}
	}
	header := splitRow(lines[i])
	var got []string
	for _, h := range header {
		got = append(got, strings.Join(strings.Fields(strings.ToLower(h)), " "))
	}
	if !slices.Equal(got, columns) {
		return nil, docError{i + 1, fmt.Sprintf("%s: columns are %q, want %q", title, got, columns)}
	}
	for _, s := range splitRow(lines[i+1]) {
		if !separatorRE.MatchString(s) || len(splitRow(lines[i+1])) != len(columns) {
			return nil, docError{i + 2, fmt.Sprintf("%s: the second line is not a table separator", title)}
		}
	}
	var rows []tableRow
	for j := i + 2; j < len(lines) && strings.HasPrefix(strings.TrimSpace(lines[j]), "|"); j++ {
		cells := splitRow(lines[j])
		if len(cells) != len(columns) {
			return rows, docError{j + 1, fmt.Sprintf("%s: %d cells, want %d", title, len(cells), len(columns))}
		}
		rows = append(rows, tableRow{j + 1, cells})
	}
	return rows, nil
}

func splitRow(line string) []string {
	s := strings.TrimSpace(line)
	s = strings.TrimPrefix(s, "|")
	s = strings.TrimSuffix(s, "|")
	cells := strings.Split(s, "|")
	for i := range cells {
		cells[i] = strings.TrimSpace(cells[i])
	}
	return cells
}

type cellItem struct {
	text, note string
}

// parseCell reads "`a`, `b` (note), …"; "", "—" and "-" are the empty list.
func parseCell(cell string) ([]cellItem, error) {
	s := strings.TrimSpace(cell)
	if s == "" || s == "—" || s == "-" {
		return nil, nil
	}
	bad := fmt.Errorf("cell %q: want a comma-separated list of `code` items (or — for none)", cell)
	var items []cellItem
	for {
		s = strings.TrimSpace(s)
		rest, ok := strings.CutPrefix(s, "`")
		if !ok {
			return nil, bad
		}
		text, after, ok := strings.Cut(rest, "`")
		if !ok || text == "" {
			return nil, bad
		}
		item := cellItem{text: text}
		s = strings.TrimSpace(after)
		if r, ok := strings.CutPrefix(s, "("); ok {
			note, after, ok := strings.Cut(r, ")")
			if !ok {
				return nil, bad
			}
			item.note = strings.TrimSpace(note)
			s = strings.TrimSpace(after)
		}
		items = append(items, item)
		if s == "" {
			return items, nil
		}
		if s, ok = strings.CutPrefix(s, ","); !ok {
			return nil, bad
		}
	}
}

// matchPackage reports whether a module-relative package path matches a
// pattern: "..." matches all, "x/..." x and everything under it.
func matchPackage(pattern, rel string) bool {
	if pattern == "..." {
		return true
	}
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return rel == prefix || strings.HasPrefix(rel, prefix+"/")
	}
	return rel == pattern
}

// patternWithin reports whether everything pattern p matches, q matches too.
func patternWithin(p, q string) bool {
	if strings.HasSuffix(p, "...") && !strings.HasSuffix(q, "...") {
		return false
	}
	return matchPackage(q, strings.TrimSuffix(strings.TrimSuffix(p, "..."), "/"))
}

// matchModule matches a third-party module path against a pattern ("*",
// "x", or "x/..." for x and every module under it).
func matchModule(pattern, mod string) bool {
	if pattern == "*" {
		return true
	}
	if prefix, ok := strings.CutSuffix(pattern, "/..."); ok {
		return pathUnder(mod, prefix)
	}
	return mod == pattern
}

// pathUnder reports whether p is prefix or a path below it.
func pathUnder(p, prefix string) bool {
	return p == prefix || strings.HasPrefix(p, prefix+"/")
}

// rowFor returns the row governing a module-relative package: an exact
// pattern beats a "/..." one, and a longer "/..." prefix a shorter one.
func (a *architecture) rowFor(rel string) *archRow {
	var best *archRow
	bestScore := -1
	for _, r := range a.rows {
		for _, p := range r.pkgs {
			if !matchPackage(p.pattern, rel) {
				continue
			}
			score := len(p.pattern) + 1<<20
			if strings.HasSuffix(p.pattern, "...") {
				score = len(p.pattern)
			}
			if score > bestScore {
				best, bestScore = r, score
			}
		}
	}
	return best
}

func (r *archRow) label() string {
	var ps []string
	for _, p := range r.pkgs {
		ps = append(ps, "`"+p.pattern+"`")
	}
	return strings.Join(ps, ", ")
}

func (r *archRow) forbidsPackage(rel string) bool {
	return slices.ContainsFunc(r.forbidModule, func(p string) bool { return matchPackage(p, rel) })
}

func (r *archRow) allowsImport(rel string) bool {
	return !r.forbidsPackage(rel) && slices.ContainsFunc(r.imports, func(p string) bool { return matchPackage(p, rel) })
}

func (r *archRow) forbidsModule(mod string) bool {
	return slices.ContainsFunc(r.forbidLinks, func(p string) bool { return matchModule(p, mod) })
}

func (r *archRow) allowsModule(mod string) bool {
	return !r.forbidsModule(mod) && slices.ContainsFunc(r.links, func(p string) bool { return matchModule(p, mod) })
}

// validateArchitecture reports where the document does not match the
// module: rows or names for packages that do not exist (unless planned),
// planned packages that exist, modules nothing links, unused groups.
func validateArchitecture(a *architecture, g *graph) []string {
	var msgs []string
	fail := func(line int, format string, args ...any) {
		msgs = append(msgs, docError{line, fmt.Sprintf(format, args...)}.Error())
	}
	var rels []string
	for _, ip := range g.own {
		rel, _ := relPath(ip)
		rels = append(rels, rel)
	}
	var planned []string
	for _, r := range a.rows {
		for _, p := range r.pkgs {
			if p.planned {
				planned = append(planned, p.pattern)
			}
		}
	}
	exists := func(pattern string) bool {
		return slices.ContainsFunc(rels, func(rel string) bool { return matchPackage(pattern, rel) })
	}
	known := func(pattern string) bool {
		return exists(pattern) || slices.ContainsFunc(planned, func(p string) bool { return patternWithin(p, pattern) })
	}
	linked := map[string]bool{}
	for _, p := range g.pkgs {
		if m := g.moduleOf(p.ImportPath); m != "" && m != module {
			linked[m] = true
		}
	}
	for _, r := range a.rows {
		for _, p := range r.pkgs {
			switch {
			case p.planned && !strings.HasSuffix(p.pattern, "...") && exists(p.pattern):
				fail(r.line, "table A: package %s exists; drop its (planned) mark", p.pattern)
			case !p.planned && !exists(p.pattern):
				fail(r.line, "table A names %s, which matches no package of the module; remove the row or mark it (planned)", p.pattern)
			}
		}
		for _, i := range slices.Concat(r.imports, r.forbidModule) {
			if !known(i) {
				fail(r.line, "table A, row %s, names %s, which is no package of the module (nor a planned one)", r.label(), i)
			}
		}
		for _, l := range r.rawLinks {
			if modulePathRE.MatchString(l) && !slices.ContainsFunc(slices.Collect(maps.Keys(linked)), func(m string) bool { return matchModule(l, m) }) {
				fail(r.line, "table A, row %s, allows %s, which no package of the module links; remove it", r.label(), l)
			}
		}
	}
	for _, name := range slices.Sorted(maps.Keys(a.groups)) {
		if !a.usedGroups[name] {
			fail(a.groupLines[name], "table B: group %s is used by no row of table A; remove it", name)
		}
		for _, m := range a.groups[name] {
			if !slices.ContainsFunc(slices.Collect(maps.Keys(linked)), func(l string) bool { return matchModule(m, l) }) {
				fail(a.groupLines[name], "table B: group %s lists %s, which no package of the module links; remove it", name, m)
			}
		}
	}
	return msgs
}

// checkGraph reports every import the document does not allow. Direct
// imports of the module's own packages are checked against the row's
// may-import list; third-party modules and `testing` against the packages'
// transitive dependencies; FORBIDDEN entries against both. A transitive
// finding is reported where the edge is made: at the package whose own row
// does not allow it, not again at every package above it.
func checkGraph(a *architecture, g *graph) []string {
	var msgs []string
	for _, ip := range g.own {
		rel, _ := relPath(ip)
		row := a.rowFor(rel)
		if row == nil {
			msgs = append(msgs, fmt.Sprintf("package %s is not covered by any row of %s (table A); add a row", rel, archDoc))
			continue
		}
		p := g.pkgs[ip]
		for _, imp := range p.Imports {
			irel, ok := relPath(imp)
			if !ok {
				continue
			}
			switch {
			case row.forbidsPackage(irel):
				msgs = append(msgs, fmt.Sprintf("%s imports %s, which %s (table A, line %d) marks FORBIDDEN for %s; remove the import (or change the design and allow it in %s (table A))",
					rel, irel, archDoc, row.line, rel, archDoc))
			case !row.allowsImport(irel):
				msgs = append(msgs, fmt.Sprintf("%s imports %s, which table A's row %s (%s:%d) does not allow; allow it in %s (table A) or remove the import",
					rel, irel, row.label(), archDoc, row.line, archDoc))
			}
		}

		// Transitive findings. permits says whether a row permits the item.
		// The search follows no edge that is reported elsewhere: an import
		// of the module's own package that the importer's row rejects, or
		// one into a package of the module whose own row rejects the item
		// too, or into a package of a third-party module this row rejects.
		// So each finding is reported once, where it is made.
		type item struct {
			what      string // display name
			own       bool   // a package of the module
			forbidden bool
			target    func(string) bool
			permits   func(*archRow) bool
		}
		var items []item
		for _, d := range p.Deps {
			drel, ok := relPath(d)
			if ok && !slices.Contains(p.Imports, d) && row.forbidsPackage(drel) {
				items = append(items, item{drel, true, true,
					func(q string) bool { return q == d },
					func(r *archRow) bool { return !r.forbidsPackage(drel) }})
			}
		}
		mods := map[string]bool{}
		for _, d := range p.Deps {
			if m := g.moduleOf(d); m != "" && m != module {
				mods[m] = true
			}
		}
		for _, m := range slices.Sorted(maps.Keys(mods)) {
			if !row.allowsModule(m) {
				items = append(items, item{m, false, row.forbidsModule(m),
					func(q string) bool { return g.moduleOf(q) == m },
					func(r *archRow) bool { return r.allowsModule(m) }})
			}
		}
		if slices.Contains(p.Deps, "testing") && !row.testing {
			items = append(items, item{"testing", false, false,
				func(q string) bool { return q == "testing" },
				func(r *archRow) bool { return r.testing }})
		}
		for _, it := range items {
			blocked := func(from, q string) bool {
				if qrel, ok := relPath(q); ok {
					if frel, ok := relPath(from); ok {
						if frow := a.rowFor(frel); frow != nil && !frow.allowsImport(qrel) {
							return true
						}
					}
					qrow := a.rowFor(qrel)
					return qrow == nil || !it.permits(qrow)
				}
				m := g.moduleOf(q)
				return m != "" && !it.target(q) && !row.allowsModule(m)
			}
			path := g.pathTo(ip, it.target, blocked)
			if path == nil {
				continue
			}
			via := strings.Join(path, " → ")
			switch {
			case it.what == "testing":
				msgs = append(msgs, fmt.Sprintf("%s links testing (%s), which only %s may; remove the import of %s",
					rel, via, "evaltest, internal/golden and examples", path[1]))
			case it.own:
				msgs = append(msgs, fmt.Sprintf("%s depends on %s (%s), which %s (table A, line %d) marks FORBIDDEN for %s; remove the import of %s",
					rel, it.what, via, archDoc, row.line, rel, path[1]))
			case it.forbidden:
				msgs = append(msgs, fmt.Sprintf("%s links %s (%s), which %s (table A, line %d) marks FORBIDDEN for %s; remove the import of %s",
					rel, it.what, via, archDoc, row.line, rel, path[1]))
			default:
				msgs = append(msgs, fmt.Sprintf("%s links third-party module %s (%s), which its row %s (%s:%d) does not allow; allow it in %s (table A) or remove the import of %s",
					rel, it.what, via, row.label(), archDoc, row.line, archDoc, path[1]))
			}
		}
	}
	return msgs
}
