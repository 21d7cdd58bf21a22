//go:build linux

// Package realagents proves parley with the ACP agents people use (codex-acp,
// claude-agent-acp, gemini-cli, qwen-code and opencode), installed at exact versions from
// npm and run offline against fakellm, the scripted model server, on 127.0.0.1. Every
// scenario drives the real parley binary: `parley run`, `parley chat` in a pty and
// `parley vscodelm` through a minimal VS Code client. A tee between parley and the agent
// records every frame, and every frame parley sends is checked against the ACP schema by
// test/interop's validator.
//
// The suite is opt-in: PARLEY_REALAGENTS=1 runs it, and then an agent that is not
// installed fails it. scripts/test-realagents installs the agents (cached) and runs it.
package realagents

import (
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"sync"
	"testing"

	"github.com/parley-acp/parley/internal/testbin"
)

// teeRole is the first argument that makes the test binary the frame tee (see tee_test.go)
// instead of running tests.
const teeRole = "-realagents-tee"

var (
	tmpRoot string // every sandbox lives under it; removed at the end

	buildOnce  sync.Once
	parleyPath string
	buildErr   error
)

func TestMain(m *testing.M) {
	if len(os.Args) > 1 && os.Args[1] == teeRole {
		os.Exit(runTee(os.Args[2:]))
	}
	if os.Getenv("PARLEY_REALAGENTS") != "1" {
		fmt.Println("realagents: skipped; set PARLEY_REALAGENTS=1 (scripts/test-realagents installs the agents and does)")
		os.Exit(0)
	}
	// A short path: agents and sockets do not like long ones, and nothing here may
	// inherit a workspace's .env or settings from a parent.
	dir, err := os.MkdirTemp("", "parley-ra-")
	if err != nil {
		fmt.Fprintln(os.Stderr, "realagents:", err)
		os.Exit(1)
	}
	tmpRoot, _ = filepath.EvalSymlinks(dir)
	code := m.Run()
	keep := os.Getenv("PARLEY_REALAGENTS_KEEP")
	if keep == "" || code == 0 && keep != "always" {
		os.RemoveAll(dir)
	} else {
		fmt.Println("realagents: sandboxes kept in", dir)
	}
	os.Exit(code)
}

// parleyBinary builds cmd/parley once.
func parleyBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() { parleyPath, buildErr = testbin.Build(tmpRoot) })
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return parleyPath
}

// repoDir is the repository's root.
func repoDir() string {
	_, file, _, _ := runtime.Caller(0)
	return filepath.Join(filepath.Dir(file), "..", "..")
}

// installDir is where scripts/test-realagents installed the agents (the same default as
// the script's: outside the checkout, so that clones on one machine share it).
func installDir() string {
	if d := os.Getenv("PARLEY_REALAGENTS_DIR"); d != "" {
		return d
	}
	if d := os.Getenv("PARLEY_CI_CACHE"); d != "" {
		return filepath.Join(d, "realagents")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		return filepath.Join(repoDir(), ".cache", "realagents")
	}
	return filepath.Join(cache, "parley-ci", "realagents")
}

// selfPath is the test binary, which is also the tee.
func selfPath(t testing.TB) string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return exe
}
