package tsgen

import (
	"reflect"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/parleyapi"
)

// Base and Thing are declared again in testdata/sample/sample.go, with the comments the
// generator reads (it finds a type's source by its name).
type Base struct {
	ID string `json:"id"`
}

type Thing struct {
	Base
	Count   int               `json:"count"`
	Maybe   *int              `json:"maybe"`
	Opt     *string           `json:"opt,omitempty"`
	Tags    []string          `json:"tags"`
	Vars    map[string]string `json:"vars,omitzero"`
	Raw     []byte            `json:"raw,omitempty"`
	Hidden  string            `json:"-"`
	private int
}

// The rules of the declarations: an embedded struct is extended, a pointer sent as null is
// `| null`, omitempty and omitzero make a field optional, a map is a Record, bytes are
// unknown, a field JSON skips is not declared; comments come along.
func TestDeclarationsFollowTheJSONTags(t *testing.T) {
	methods := []parleyapi.Method{{Name: "_x/get", Kind: parleyapi.Request, Params: Base{}, Result: Thing{}}, {Name: "_x/told", Kind: parleyapi.Notification, Params: Thing{}}}
	out, err := Generate(methods, nil, reflect.TypeFor[Thing]().PkgPath(), "testdata/sample")
	if err != nil {
		t.Fatal(err)
	}
	got := string(out)
	for _, want := range []string{
		"/** Thing shows each rule. */\nexport interface Thing extends Base {\n",
		"  /** how many */\n  count: number;\n",
		"  maybe: number | null;\n",
		"  opt?: string;\n",
		"  tags: string[];\n",
		"  vars?: Record<string, string>;\n",
		"  raw?: unknown;\n",
		`  "_x/get": { params: Base; result: Thing };`,
		`  "_x/told": Thing;`,
	} {
		if !strings.Contains(got, want) {
			t.Errorf("the declarations lack %q:\n%s", want, got)
		}
	}
	for _, absent := range []string{"hidden", "Hidden", "private"} {
		if strings.Contains(got, absent) {
			t.Errorf("the declarations name %q, which JSON does not carry:\n%s", absent, got)
		}
	}
}

// A type of the package without a comment is refused: every declaration says what it is.
func TestATypeWithoutACommentIsRefused(t *testing.T) {
	type Undocumented struct{}
	methods := []parleyapi.Method{{Name: "_x/get", Kind: parleyapi.Request, Params: Base{}, Result: Thing{}}, {Name: "_x/told", Kind: parleyapi.Notification, Params: Thing{}}}
	if _, err := Generate(methods, []any{Undocumented{}}, reflect.TypeFor[Thing]().PkgPath(), "testdata/sample"); err == nil || !strings.Contains(err.Error(), "Undocumented has no comment") {
		t.Errorf("a type without a comment: %v, want it refused", err)
	}
}

// The table of methods and the Method constants must agree: either one alone is refused.
func TestMethodsAndTheirConstantsAgree(t *testing.T) {
	pkg := reflect.TypeFor[Thing]().PkgPath()
	unlisted := []parleyapi.Method{{Name: "_x/get", Kind: parleyapi.Request, Params: Base{}, Result: Thing{}}}
	if _, err := Generate(unlisted, nil, pkg, "testdata/sample"); err == nil || !strings.Contains(err.Error(), "MethodTold") {
		t.Errorf("a constant missing from the table: %v, want it named", err)
	}
	unnamed := append(unlisted, parleyapi.Method{Name: "_x/told", Kind: parleyapi.Notification, Params: Thing{}}, parleyapi.Method{Name: "_x/other", Kind: parleyapi.Notification, Params: Base{}})
	if _, err := Generate(unnamed, nil, pkg, "testdata/sample"); err == nil || !strings.Contains(err.Error(), "_x/other") {
		t.Errorf("a method without a constant: %v, want it named", err)
	}
}
