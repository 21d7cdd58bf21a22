package logfile

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestRotatesAtTheLimit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "agent.log")
	l, err := Open(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	line := strings.Repeat("x", 29) + "\n"
	for range 1000 { // 30 KB written
		l.Write([]byte(line))
	}
	l.Close()
	cur, _ := os.ReadFile(path)
	old, _ := os.ReadFile(path + ".1")
	if len(cur) == 0 || len(cur) > 100 || len(old) == 0 || len(old) > 100 {
		t.Errorf("sizes %d and %d, want both within the limit (100)", len(cur), len(old))
	}
	if !strings.HasSuffix(string(cur), line) || strings.Count(string(old), "\n") != len(old)/len(line) {
		t.Errorf("lines were cut: %q / %q", cur, old)
	}
	// Reopened, it counts what is there already.
	l, err = Open(path, 100)
	if err != nil {
		t.Fatal(err)
	}
	for range 10 {
		l.Write([]byte(line))
	}
	l.Close()
	if cur, _ := os.ReadFile(path); len(cur) > 100 {
		t.Errorf("after reopening: %d bytes", len(cur))
	}
}
