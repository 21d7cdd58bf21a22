package tsgen

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/internal/parleyapi"
)

// source is what the Go source says that reflection cannot: comments and constants.
type source struct {
	types  map[string]string // a type's doc comment, by its name
	fields map[string]string // a field's comments, by Type.Field
	consts []constant        // the exported Method* and Code* constants, in source order
}

type constant struct {
	name, value      string
	group, doc, line string // the comment above its group (on the first), above it, after it
}

func readSource(dir string) (*source, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.go"))
	if err != nil {
		return nil, err
	}
	slices.Sort(paths)
	src := &source{types: map[string]string{}, fields: map[string]string{}}
	fset := token.NewFileSet()
	for _, p := range paths {
		if strings.HasSuffix(p, "_test.go") {
			continue
		}
		text, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading parleyapi's source: %w", err)
		}
		f, err := parser.ParseFile(fset, p, text, parser.ParseComments)
		if err != nil {
			return nil, fmt.Errorf("parsing parleyapi's source: %w", err)
		}
		for _, d := range f.Decls {
			gd, ok := d.(*ast.GenDecl)
			if !ok {
				continue
			}
			switch gd.Tok {
			case token.TYPE:
				src.addTypes(gd)
			case token.CONST:
				src.addConsts(gd)
			}
		}
	}
	return src, nil
}

// checkListed makes sure the table of methods and the Method constants agree: a constant
// missing from the table would be a method without types, a method without a constant one
// the front-ends spell by hand.
func (src *source) checkListed(methods []parleyapi.Method) error {
	listed := map[string]bool{}
	for _, m := range methods {
		listed[strconv.Quote(m.Name)] = true
	}
	named := map[string]bool{}
	for _, c := range src.consts {
		if !strings.HasPrefix(c.name, "Method") {
			continue
		}
		named[c.value] = true
		if !listed[c.value] {
			return fmt.Errorf("%s (%s) is not in the table of methods", c.name, c.value)
		}
	}
	for _, m := range methods {
		if !named[strconv.Quote(m.Name)] {
			return fmt.Errorf("the method %s has no Method constant", m.Name)
		}
	}
	return nil
}

func (src *source) addTypes(gd *ast.GenDecl) {
	for _, s := range gd.Specs {
		ts := s.(*ast.TypeSpec)
		doc := ts.Doc
		if doc == nil && len(gd.Specs) == 1 {
			doc = gd.Doc
		}
		src.types[ts.Name.Name] = doc.Text()
		st, ok := ts.Type.(*ast.StructType)
		if !ok {
			continue
		}
		for _, f := range st.Fields.List {
			text := strings.TrimSpace(f.Doc.Text() + "\n" + f.Comment.Text())
			for _, n := range f.Names {
				src.fields[ts.Name.Name+"."+n.Name] = text
			}
		}
	}
}

func (src *source) addConsts(gd *ast.GenDecl) {
	for i, s := range gd.Specs {
		vs := s.(*ast.ValueSpec)
		if len(vs.Names) != 1 || len(vs.Values) != 1 {
			continue
		}
		name := vs.Names[0].Name
		if !strings.HasPrefix(name, "Method") && !strings.HasPrefix(name, "Code") {
			continue
		}
		value, ok := literal(vs.Values[0])
		if !ok {
			continue
		}
		c := constant{name: name, value: value, doc: vs.Doc.Text(), line: strings.TrimSpace(vs.Comment.Text())}
		if i == 0 {
			c.group = gd.Doc.Text()
		}
		src.consts = append(src.consts, c)
	}
}

// literal is a constant's value in TypeScript: a string or a number, maybe negative.
func literal(e ast.Expr) (string, bool) {
	switch e := e.(type) {
	case *ast.BasicLit:
		return e.Value, e.Kind == token.STRING || e.Kind == token.INT
	case *ast.UnaryExpr:
		if v, ok := literal(e.X); ok && e.Op == token.SUB {
			return "-" + v, true
		}
	}
	return "", false
}
