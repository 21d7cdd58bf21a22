package tools

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// BenchmarkSearchWorkspace searches a generated tree of 50,000 small files (500 directories
// of 100, one in 100 holding a match).
func BenchmarkSearchWorkspace(b *testing.B) {
	s, root := newTestSession(b)
	body := strings.Repeat("func helper(x int) int { return x * 2 } // some ordinary code\n", 20)
	for d := range 500 {
		dir := filepath.Join(root, fmt.Sprintf("d%03d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			content := body
			if f == 7 {
				content += "// NEEDLE_MARKER found\n"
			}
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%03d.go", f)), []byte(content), 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	if git, err := exec.LookPath("git"); err == nil {
		if out, err := exec.Command(git, "init", "-q", root).CombinedOutput(); err != nil {
			b.Fatalf("git init: %v\n%s", err, out)
		}
	}
	args := []byte(`{"pattern":"NEEDLE_\\w+ found","max_results":1000}`)
	tool := &searchWorkspace{}
	b.ReportAllocs()
	for b.Loop() {
		r, err := tool.Run(b.Context(), s, args)
		if err != nil || r.IsError || strings.Count(r.Output, "\n") != 500 {
			b.Fatalf("search: %v %s", err, r.Output[:min(200, len(r.Output))])
		}
	}
}
