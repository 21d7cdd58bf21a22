package parleyapi_test

import (
	"bytes"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/parleyapi/tsgen"
)

var update = flag.Bool("update", false, "write the generated TypeScript files")

// The page and the extension declare parley's extension protocol from this package: `go
// test ./internal/parleyapi -run TestTypeScript -update` writes both files, and this test
// fails (so CI does) when either is not what the Go types give.
var typeScriptPaths = []string{"../../web/src/parleyapi.ts", "../../editors/vscode/src/parleyapi.ts"}

func TestTypeScriptIsCurrent(t *testing.T) {
	want, err := tsgen.Generate(parleyapi.Methods, parleyapi.Others, reflect.TypeFor[parleyapi.Method]().PkgPath(), ".")
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range typeScriptPaths {
		if *update {
			if err := os.WriteFile(p, want, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(p); err != nil || !bytes.Equal(got, want) {
			t.Errorf("%s is not what internal/parleyapi gives (%v): go test ./internal/parleyapi -run TestTypeScript -update", filepath.Clean(p), err)
		}
	}
}
