package lasagna_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"path/filepath"
	"strings"
	"testing"
)

// maxExported is the budget of exported top-level names (funcs, types,
// vars, consts; methods not counted) of the public packages: every non-test
// Go file outside internal/, cmd/, examples/, tools/, scripts/, bench/ and
// testdata/. What only the module uses belongs under internal/
// (docs/ARCHITECTURE.md). 375 took the public datasets packages; the
// four above it are what a user names of per-query regressions
// (results.QueryChange), reporters that write a file (reporters.FileReporter)
// offline judging (fixtures.JudgeReply) and the calls a dry run plans
// (llm.Call, which generate.Generator.Plan and judge.Judge.Plan return);
// the two above those let a front end write a bundle it has not hashed yet,
// hashing it once as it is written (results.Prepare and results.WriteFileIn,
// for `lasagna benchmark run`'s default file name).
const maxExported = 381

func TestExportedSurface(t *testing.T) {
	skip := map[string]bool{"internal": true, "cmd": true, "examples": true, "tools": true, "scripts": true, "bench": true, "testdata": true, "node_modules": true, ".git": true}
	byDir := map[string]int{}
	total := 0
	err := filepath.WalkDir(".", func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() {
			if skip[d.Name()] {
				return filepath.SkipDir
			}
			return nil
		}
		if !strings.HasSuffix(p, ".go") || strings.HasSuffix(p, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), p, nil, parser.SkipObjectResolution)
		if err != nil {
			return err
		}
		n := 0
		for _, decl := range f.Decls {
			switch decl := decl.(type) {
			case *ast.FuncDecl:
				if decl.Recv == nil && decl.Name.IsExported() {
					n++
				}
			case *ast.GenDecl:
				for _, spec := range decl.Specs {
					switch spec := spec.(type) {
					case *ast.TypeSpec:
						if spec.Name.IsExported() {
							n++
						}
					case *ast.ValueSpec:
						for _, name := range spec.Names {
							if name.IsExported() {
								n++
							}
						}
					}
				}
			}
		}
		byDir[filepath.Dir(p)] += n
		total += n
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if total > maxExported {
		t.Errorf("the public packages export %d top-level names, want at most %d; by package: %v", total, maxExported, byDir)
	}
	t.Logf("%d exported top-level names", total)
}
