package webui

import (
	"bytes"
	"os"
	"testing"
)

// The web page and the VS Code extension share one JSON-RPC client: web/src/rpc.ts, of
// which the extension keeps a byte-identical copy (its TypeScript is compiled on its own,
// without the page's tree). A change to one that is not copied to the other fails here.
func TestExtensionRPCIsTheWebPagesCopy(t *testing.T) {
	page, err := os.ReadFile("../../web/src/rpc.ts")
	if err != nil {
		t.Fatal(err)
	}
	ext, err := os.ReadFile("../../editors/vscode/src/rpc.ts")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(page, ext) {
		t.Fatal("editors/vscode/src/rpc.ts differs from web/src/rpc.ts: copy the page's file over the extension's (cp web/src/rpc.ts editors/vscode/src/rpc.ts)")
	}
}
