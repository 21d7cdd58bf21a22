package acp

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// schemaPath is the stable v1 JSON Schema this package follows, vendored and pinned (see
// testdata/schema/README.md for where it comes from and how to update it).
const schemaPath = "testdata/schema/schema.json"

// notTypes are $defs that describe JSON-RPC framing, which internal/jsonrpc2 owns.
var notTypes = []string{
	"AgentNotification", "AgentRequest", "AgentResponse",
	"ClientNotification", "ClientRequest", "ClientResponse",
	"ExtNotification", "ExtRequest", "ExtResponse",
	"ErrorCode", // Error is jsonrpc2's
}

// beyondStable are members parley keeps although the stable schema lacks them.
var beyondStable = map[string][]string{
	"NewSessionResponse":    {"models"}, // legacy model selection, still sent by real agents
	"LoadSessionResponse":   {"models"},
	"ResumeSessionResponse": {"models"},
	"PromptResponse":        {"usage"}, // unstable
	"SessionCapabilities":   {"fork"},  // unstable: session/fork
}

// flattened are the parts of CreateElicitationRequest: their members are required within
// their mode or scope, and omitted when another applies.
var flattened = []string{"ElicitationFormMode", "ElicitationURLMode", "ElicitationSessionScope", "ElicitationRequestScope"}

type schemaDef struct {
	Type       any                        `json:"type"`
	Properties map[string]json.RawMessage `json:"properties"`
	Required   []string                   `json:"required"`
	Const      any                        `json:"const"`
	Ref        string                     `json:"$ref"`
	OneOf      []schemaDef                `json:"oneOf"`
	AnyOf      []schemaDef                `json:"anyOf"`
	AllOf      []schemaDef                `json:"allOf"`
}

// TestSchemaConformance checks the Go types against the schema's $defs: every $def has a
// type of the same name, every object's members are fields with the schema's names,
// required members are always written, and every enumeration value has a constant.
func TestSchemaConformance(t *testing.T) {
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	var schema struct {
		Defs map[string]schemaDef `json:"$defs"`
	}
	if err := json.Unmarshal(data, &schema); err != nil {
		t.Fatal(err)
	}
	pkg := parsePackage(t)

	for name, def := range schema.Defs {
		if slices.Contains(notTypes, name) {
			continue
		}
		name = goName(name)
		if !pkg.names[name] {
			t.Errorf("$def %s has no Go type", name)
			continue
		}
		if fields, ok := pkg.structs[name]; ok && def.Type == "object" {
			checkMembers(t, name, def, schema.Defs, fields)
		}
		if values := enumValues(def); values != nil {
			for _, v := range values {
				if !slices.Contains(pkg.consts[name], v) {
					t.Errorf("enumeration %s has no constant for %q", name, v)
				}
			}
		}
	}
}

// initialisms are the words Go spells in capitals in this package's names.
var initialisms = []string{"ID", "MCP", "HTTP", "SSE", "URL", "URI", "JSON"}

// goName is the Go name of a schema $def: its words, with initialisms in capitals
// (SessionId is SessionID, McpServerHttp is MCPServerHTTP).
func goName(def string) string {
	var b strings.Builder
	start := 0
	for i := 1; i <= len(def); i++ {
		if i < len(def) && !(def[i] >= 'A' && def[i] <= 'Z' && def[i-1] >= 'a' && def[i-1] <= 'z') {
			continue
		}
		word := def[start:i]
		if up := strings.ToUpper(word); slices.Contains(initialisms, up) {
			word = up
		}
		b.WriteString(word)
		start = i
	}
	return b.String()
}

// TestGoNames pins the spelling rule the conformance test applies to the schema's names.
func TestGoNames(t *testing.T) {
	for def, want := range map[string]string{
		"SessionId": "SessionID", "McpServerHttp": "MCPServerHTTP", "HttpHeader": "HTTPHeader",
		"ElicitationUrlCapabilities": "ElicitationURLCapabilities", "McpServer": "MCPServer",
		"ToolCallUpdate": "ToolCallUpdate", "Identity": "Identity", "Idle": "Idle",
	} {
		if got := goName(def); got != want {
			t.Errorf("goName(%q) = %q, want %q", def, got, want)
		}
	}
}

// checkMembers compares a struct's JSON members with an object $def's properties,
// including those of the variants it is flattened from.
func checkMembers(t *testing.T, name string, def schemaDef, defs map[string]schemaDef, fields map[string]string) {
	t.Helper()
	all := map[string]bool{}
	collectProperties(def, defs, all, 0)
	for member := range def.Properties {
		if _, ok := fields[member]; !ok {
			t.Errorf("%s has no field for member %q", name, member)
		}
	}
	for member := range fields {
		if !all[member] && !slices.Contains(beyondStable[name], member) {
			t.Errorf("%s has a field for %q, which the schema does not define", name, member)
		}
	}
	if slices.Contains(flattened, name) {
		return
	}
	for _, member := range def.Required {
		if opts, ok := fields[member]; ok && (strings.Contains(opts, "omitempty") || strings.Contains(opts, "omitzero")) {
			t.Errorf("%s.%s is required but may be left out when encoding", name, member)
		}
	}
}

func collectProperties(def schemaDef, defs map[string]schemaDef, into map[string]bool, depth int) {
	if depth > 5 {
		return
	}
	for p := range def.Properties {
		into[p] = true
	}
	if def.Ref != "" {
		collectProperties(defs[strings.TrimPrefix(def.Ref, "#/$defs/")], defs, into, depth+1)
	}
	for _, sub := range slices.Concat(def.OneOf, def.AnyOf, def.AllOf) {
		collectProperties(sub, defs, into, depth+1)
	}
}

// enumValues returns the string constants of an enumeration $def, or nil.
func enumValues(def schemaDef) []string {
	var values []string
	for _, v := range slices.Concat(def.OneOf, def.AnyOf) {
		if s, ok := v.Const.(string); ok && v.Type == "string" {
			values = append(values, s)
		}
	}
	return values
}

type goPackage struct {
	names   map[string]bool              // declared types and constants
	structs map[string]map[string]string // struct → JSON member → tag options
	consts  map[string][]string          // named string type → its constants' values
}

// parsePackage reads the package's own sources: the conformance test checks declarations,
// not behaviour, so it needs no reflection registry.
func parsePackage(t *testing.T) goPackage {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, ".", func(fi os.FileInfo) bool { return !strings.HasSuffix(fi.Name(), "_test.go") }, 0)
	if err != nil {
		t.Fatal(err)
	}
	p := goPackage{names: map[string]bool{}, structs: map[string]map[string]string{}, consts: map[string][]string{}}
	types := map[string]*ast.StructType{}
	for _, file := range pkgs["acp"].Files {
		for _, decl := range file.Decls {
			gen, ok := decl.(*ast.GenDecl)
			if !ok {
				continue
			}
			for _, spec := range gen.Specs {
				switch spec := spec.(type) {
				case *ast.TypeSpec:
					p.names[spec.Name.Name] = true
					if st, ok := spec.Type.(*ast.StructType); ok {
						types[spec.Name.Name] = st
					}
				case *ast.ValueSpec:
					for i, n := range spec.Names {
						p.names[n.Name] = true
						typ, ok := spec.Type.(*ast.Ident)
						if !ok || i >= len(spec.Values) {
							continue
						}
						if lit, ok := spec.Values[i].(*ast.BasicLit); ok && lit.Kind == token.STRING {
							v, _ := strconv.Unquote(lit.Value)
							p.consts[typ.Name] = append(p.consts[typ.Name], v)
						}
					}
				}
			}
		}
	}
	for name, st := range types {
		p.structs[name] = jsonMembers(st, types)
	}
	return p
}

// jsonMembers returns a struct's JSON member names with their tag options, flattening
// embedded structs.
func jsonMembers(st *ast.StructType, types map[string]*ast.StructType) map[string]string {
	members := map[string]string{}
	for _, f := range st.Fields.List {
		var tag string
		if f.Tag != nil {
			tag = reflect.StructTag(strings.Trim(f.Tag.Value, "`")).Get("json")
		}
		name, opts, _ := strings.Cut(tag, ",")
		if len(f.Names) == 0 && name == "" {
			if id, ok := f.Type.(*ast.Ident); ok && types[id.Name] != nil {
				for m, o := range jsonMembers(types[id.Name], types) {
					members[m] = o
				}
			}
			continue
		}
		if name != "" && name != "-" {
			members[name] = opts
		}
	}
	return members
}
