package lasagna_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// maxCmdFuncLines is the longest function cmd/lasagna may hold: the
// command parses flags, builds a plan and renders (docs/ARCHITECTURE.md),
// and what grows past this is domain logic that belongs in a package.
const maxCmdFuncLines = 80

func TestCmdFunctionsShort(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("cmd", "lasagna", "*.go"))
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range f.Decls {
			fn, ok := d.(*ast.FuncDecl)
			if !ok || fn.Body == nil {
				continue
			}
			n := fset.Position(fn.End()).Line - fset.Position(fn.Pos()).Line + 1
			if n > maxCmdFuncLines {
				t.Errorf("%s: func %s is %d lines, want at most %d: move its domain logic into a package, or split it", fset.Position(fn.Pos()), fn.Name.Name, n, maxCmdFuncLines)
			}
		}
	}
}
