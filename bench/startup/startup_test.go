// Package startup measures what every parley command pays before it does anything:
// `parley --version` against a Go hello world, both built here, run alternately in the
// same benchmark so that both see the same load. parley is built as a release builds it
// (.goreleaser.yaml: static, -trimpath, stripped), since that is the binary users start.
//
//	go test -run '^$' -bench . -count 5 ./bench/startup/
//
// x-hello is the ratio of the two; GODEBUG=inittrace=1 parley --version shows which
// package's initialisation the difference goes to.
package startup

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/testbin"
)

const hello = `package main

import "fmt"

func main() { fmt.Println("hello, world") }
`

func BenchmarkVersion(b *testing.B) {
	dir := b.TempDir()
	parley := filepath.Join(dir, "parley")
	testbin.NoteSources()
	release := exec.Command("go", "build", "-trimpath", "-ldflags", "-s -w", "-o", parley, "github.com/parley-acp/parley/cmd/parley")
	release.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := release.CombinedOutput(); err != nil {
		b.Fatalf("building parley: %v\n%s", err, out)
	}
	src := filepath.Join(dir, "hello")
	if err := os.MkdirAll(src, 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "main.go"), []byte(hello), 0o644); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(src, "go.mod"), []byte("module hello\n\ngo 1.21\n"), 0o644); err != nil {
		b.Fatal(err)
	}
	helloBin := filepath.Join(dir, "hello-bin")
	build := exec.Command("go", "build", "-buildvcs=false", "-o", helloBin, ".") // no VCS stamp: a .git above $TMPDIR must not matter
	build.Dir = src
	if out, err := build.CombinedOutput(); err != nil {
		b.Fatalf("building hello world: %v\n%s", err, out)
	}
	run := func(name string, args ...string) time.Duration {
		start := time.Now()
		if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
			b.Fatalf("%s: %v\n%s", name, err, out)
		}
		return time.Since(start)
	}
	var parleys, hellos time.Duration
	for b.Loop() {
		parleys += run(parley, "--version")
		hellos += run(helloBin)
	}
	n := float64(b.N)
	b.ReportMetric(float64(parleys)/n, "ns/parley-version")
	b.ReportMetric(float64(hellos)/n, "ns/hello")
	b.ReportMetric(float64(parleys)/float64(hellos), "x-hello")
}
