package lasagna_test

import (
	"go/importer"
	"go/token"
	"go/types"
	"os/exec"
	"slices"
	"strings"
	"testing"
)

// TestPublicAPINamesNoInternalType checks, with go/types, that the public
// API speaks in types a user can name: no exported function, method,
// field, variable or constant of a public package (every package outside
// internal/, cmd/, examples/ and scripts/) has a parameter, result, field
// or type declared in an internal package, unless a public package
// exports an alias of it (evaltest.Threshold = engine.Threshold), whose
// own exported surface is then checked the same way.
func TestPublicAPINamesNoInternalType(t *testing.T) {
	if testing.Short() {
		t.Skip("type-checks the public packages from source; runs in the full tier (make test)")
	}
	out, err := exec.Command("go", "list", "./...").Output()
	if err != nil {
		t.Fatal(err)
	}
	var public []string
	for _, p := range strings.Fields(string(out)) {
		rel := strings.TrimPrefix(p, "github.com/lasagna-go/lasagna")
		if strings.Contains(rel+"/", "/internal/") || strings.HasPrefix(rel, "/cmd") || strings.HasPrefix(rel, "/examples") || strings.HasPrefix(rel, "/scripts") {
			continue
		}
		public = append(public, p)
	}
	fset := token.NewFileSet()
	imp := importer.ForCompiler(fset, "source", nil)
	c := &apiChecker{seen: map[types.Type]bool{}, aliased: map[*types.TypeName]bool{}}
	var pkgs []*types.Package
	for _, path := range public {
		pkg, err := imp.Import(path)
		if err != nil {
			t.Fatalf("type-check %s: %v", path, err)
		}
		pkgs = append(pkgs, pkg)
		for _, name := range pkg.Scope().Names() {
			if tn, ok := pkg.Scope().Lookup(name).(*types.TypeName); ok && tn.Exported() && tn.IsAlias() {
				if n, ok := types.Unalias(tn.Type()).(*types.Named); ok {
					c.aliased[n.Obj()] = true
				}
			}
		}
	}
	for _, pkg := range pkgs {
		for _, name := range pkg.Scope().Names() {
			obj := pkg.Scope().Lookup(name)
			if !obj.Exported() {
				continue
			}
			where := pkg.Name() + "." + name
			if tn, ok := obj.(*types.TypeName); ok {
				c.named(tn.Type())
				continue
			}
			c.check(where, obj.Type())
		}
	}
	slices.Sort(c.problems)
	for _, p := range slices.Compact(c.problems) {
		t.Error(p)
	}
}

type apiChecker struct {
	seen     map[types.Type]bool
	aliased  map[*types.TypeName]bool
	problems []string
}

func internal(pkg *types.Package) bool {
	return pkg != nil && strings.HasPrefix(pkg.Path(), "github.com/lasagna-go/lasagna") && strings.Contains(pkg.Path()+"/", "/internal/")
}

func ours(pkg *types.Package) bool {
	return pkg != nil && strings.HasPrefix(pkg.Path(), "github.com/lasagna-go/lasagna")
}

// check walks the type of an exported object reached at where.
func (c *apiChecker) check(where string, t types.Type) {
	switch t := types.Unalias(t).(type) {
	case *types.Named:
		obj := t.Obj()
		if internal(obj.Pkg()) && !c.aliased[obj] {
			c.problems = append(c.problems, where+" has the internal type "+obj.Pkg().Path()+"."+obj.Name()+": export it from a public package or use a public type")
			return
		}
		for i := range t.TypeArgs().Len() {
			c.check(where, t.TypeArgs().At(i))
		}
		if ours(obj.Pkg()) {
			c.named(t)
		}
	case *types.Pointer:
		c.check(where, t.Elem())
	case *types.Slice:
		c.check(where, t.Elem())
	case *types.Array:
		c.check(where, t.Elem())
	case *types.Map:
		c.check(where, t.Key())
		c.check(where, t.Elem())
	case *types.Chan:
		c.check(where, t.Elem())
	case *types.Signature:
		for v := range t.Params().Variables() {
			c.check(where, v.Type())
		}
		for v := range t.Results().Variables() {
			c.check(where, v.Type())
		}
	case *types.Struct:
		for f := range t.Fields() {
			if f.Exported() {
				c.check(where+"."+f.Name(), f.Type())
			}
		}
	case *types.Interface:
		for m := range t.Methods() {
			if m.Exported() {
				c.check(where+"."+m.Name(), m.Type())
			}
		}
	}
}

// named walks a nameable type of this module once: its underlying type
// and its exported methods, each reported under the type's name.
func (c *apiChecker) named(t types.Type) {
	n, ok := types.Unalias(t).(*types.Named)
	if !ok || c.seen[n] {
		return
	}
	c.seen[n] = true
	where := n.Obj().Name()
	c.check(where, n.Underlying())
	for m := range n.Methods() {
		if m.Exported() {
			c.check(where+"."+m.Name(), m.Type())
		}
	}
	if _, ok := n.Underlying().(*types.Interface); !ok {
		ms := types.NewMethodSet(types.NewPointer(n))
		for sel := range ms.Methods() {
			if sel.Obj().Exported() && len(sel.Index()) > 1 { // promoted from an embedded field
				c.check(where+"."+sel.Obj().Name(), sel.Type())
			}
		}
	}
}
