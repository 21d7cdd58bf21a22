package safety

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// Every option table of the judge is well formed (see opts.problems): the named ones
// and every opts literal written inside a
// judge's function, read here from the package's source.
func TestOptionTablesAreWellFormed(t *testing.T) {
	for name, o := range namedOptionTables() {
		for _, p := range o.problems() {
			t.Errorf("%s: %s", name, p)
		}
	}
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	literals := 0
	for _, path := range files {
		if strings.HasSuffix(path, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, path, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		for _, decl := range f.Decls {
			// A package variable's literal may build on another table (sumOptions.long):
			// the named tables above are where those are checked.
			_, inFunc := decl.(*ast.FuncDecl)
			ast.Inspect(decl, func(n ast.Node) bool {
				lit, ok := n.(*ast.CompositeLit)
				if !ok {
					return true
				}
				if id, ok := lit.Type.(*ast.Ident); !ok || id.Name != "opts" {
					return true
				}
				literals++
				o, ok := optsOf(lit)
				if !ok {
					if inFunc {
						t.Errorf("%s: an opts literal whose fields are not all constants; the test cannot read it", fset.Position(lit.Pos()))
					}
					return true
				}
				for _, p := range o.problems() {
					t.Errorf("%s: %s", fset.Position(lit.Pos()), p)
				}
				return true
			})
		}
	}
	if literals < 100 {
		t.Errorf("found %d opts literals in the package's source, want the judge's 100 and more", literals)
	}
}

// The check finds each kind of mistake, naming the option.
func TestOptionTableProblems(t *testing.T) {
	for _, tt := range []struct {
		o    opts
		want string
	}{
		{opts{long: "all --output"}, `"--output" is written with its dash`},
		{opts{writes: "-o"}, `"-o" is written with its dash`},
		{opts{short: "a-b"}, `'-' is not an option letter`},
		{opts{long: "x"}, `"x" is one letter`},
		{opts{long: "all quiet all"}, "long: --all is listed twice"},
		{opts{writes: "output", runs: "output"}, "--output is listed in both writes and runs"},
		{opts{long: "output", writes: "output"}, "--output is listed in both long and writes"},
		{opts{shortArg: "o", reads: "o"}, "-o is listed in both shortArg and reads"},
	} {
		got := strings.Join(tt.o.problems(), "\n")
		if !strings.Contains(got, tt.want) {
			t.Errorf("problems(%+v) = %q, want one saying %q", tt.o, got, tt.want)
		}
	}
	if p := (&opts{short: "nC", shortArg: "C", long: "abbrev", longArg: "abbrev", writes: "output"}).problems(); len(p) != 0 {
		t.Errorf("an option listed without and with a value is allowed; got %q", p)
	}
}

// optsOf evaluates an opts literal whose fields are string constants and booleans.
func optsOf(lit *ast.CompositeLit) (opts, bool) {
	var o opts
	for _, e := range lit.Elts {
		kv, ok := e.(*ast.KeyValueExpr)
		if !ok {
			return o, false
		}
		key, _ := kv.Key.(*ast.Ident)
		if key == nil {
			return o, false
		}
		if id, ok := kv.Value.(*ast.Ident); ok && (id.Name == "true" || id.Name == "false") {
			continue // numeric, globSafe
		}
		bl, ok := kv.Value.(*ast.BasicLit)
		if !ok || bl.Kind != token.STRING {
			return o, false
		}
		v, err := strconv.Unquote(bl.Value)
		if err != nil {
			return o, false
		}
		switch key.Name {
		case "short":
			o.short = v
		case "shortArg":
			o.shortArg = v
		case "long":
			o.long = v
		case "longArg":
			o.longArg = v
		case "writes":
			o.writes = v
		case "reads":
			o.reads = v
		case "runs":
			o.runs = v
		case "config":
			o.config = v
		default:
			return o, false
		}
	}
	return o, true
}
