//go:build unix

package tools

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

func makeTree(t *testing.T, root string) {
	write(t, filepath.Join(root, ".gitignore"), "build/\n*.log\n")
	write(t, filepath.Join(root, "main.go"), "package main\n// needle here\n")
	write(t, filepath.Join(root, "pkg/a.go"), "package pkg\nvar Needle = 1\n")
	write(t, filepath.Join(root, "pkg/.gitignore"), "gen.go\n")
	write(t, filepath.Join(root, "pkg/gen.go"), "needle generated\n")
	write(t, filepath.Join(root, "build/out.go"), "needle built\n")
	write(t, filepath.Join(root, "debug.log"), "needle log\n")
	write(t, filepath.Join(root, "bin.dat"), "needle\x00binary\n")
}

func TestListAndSearchIgnore(t *testing.T) {
	for _, useGit := range []bool{false, true} {
		t.Run(map[bool]string{false: "walk", true: "git"}[useGit], func(t *testing.T) {
			s, root := newTestSession(t)
			makeTree(t, root)
			if useGit {
				if _, err := exec.LookPath("git"); err != nil {
					t.Skip("git not installed")
				}
				if out, err := exec.Command("git", "init", "-q", root).CombinedOutput(); err != nil {
					t.Fatalf("git init: %v\n%s", err, out)
				}
			}
			r := call(t, s, "list_files", m{})
			wantOK(t, r)
			got := strings.Fields(r.Output)
			want := []string{".gitignore", "bin.dat", "main.go", "pkg/.gitignore", "pkg/a.go"}
			if strings.Join(got, " ") != strings.Join(want, " ") {
				t.Errorf("list_files = %v, want %v", got, want)
			}
			wantOK(t, call(t, s, "ls", m{"pattern": "*.go"}), "main.go\npkg/a.go\n")
			wantOK(t, call(t, s, "list_files", m{"path": "pkg", "pattern": "**/*.go"}), "pkg/a.go\n")
			wantOK(t, call(t, s, "list_files", m{"max": 2}), "[3 more files not shown")

			search := &searchWorkspace{}
			res, err := search.Run(t.Context(), s, []byte(`{"pattern":"needle","case_insensitive":true}`))
			if err != nil {
				t.Fatal(err)
			}
			wantOK(t, res)
			if res.Output != "main.go:2: // needle here\npkg/a.go:2: var Needle = 1\n" {
				t.Errorf("search output:\n%s", res.Output)
			}
		})
	}
}

func TestSearchWorkspace(t *testing.T) {
	s, root := newTestSession(t)
	makeTree(t, root)
	search := &searchWorkspace{}
	run := func(args string) Result {
		r, err := search.Run(t.Context(), s, []byte(args))
		if err != nil {
			t.Fatal(err)
		}
		return r
	}
	wantOK(t, run(`{"pattern":"needle"}`), "main.go:2: // needle here\n")
	if r := run(`{"pattern":"needle"}`); strings.Contains(r.Output, "Needle") {
		t.Errorf("case-sensitive search matched Needle:\n%s", r.Output)
	}
	wantOK(t, run(`{"pattern":"package","glob":"pkg/*.go"}`), "pkg/a.go:1: package pkg\n")
	wantOK(t, run(`{"pattern":"package","path":"pkg"}`), "pkg/a.go:1:")
	wantOK(t, run(`{"pattern":"nothing-like-this"}`), "No matches found.")
	wantOK(t, run(`{"pattern":"package","max_results":1}`), "[1 more matches not shown")
	wantErr(t, run(`{"pattern":"a(b"}`), "invalid regular expression")
	wantErr(t, run(`{}`), "pattern is required")
}

func TestRunTerminalCommand(t *testing.T) {
	s, root := newTestSession(t)
	write(t, filepath.Join(root, "sub/f"), "")
	r := call(t, s, "bash", m{"command": "printf '\\033[31mred\\033[0m\\n'; echo oops >&2; exit 3"})
	wantErr(t, r, "Exit code: 3")
	if !strings.Contains(r.Output, "red\n") || strings.Contains(r.Output, "\x1b") || !strings.Contains(r.Output, "oops") {
		t.Errorf("output:\n%q", r.Output)
	}
	if r.Command == "" || r.Title == "" {
		t.Errorf("result: %+v", r)
	}
	wantOK(t, call(t, s, "run_terminal_command", m{"command": "pwd", "cwd": "sub"}), filepath.Join(root, "sub")+"\n", "Exit code: 0")

	r = call(t, s, "run_terminal_command", m{"command": "seq 1 300"})
	lines := strings.Split(r.Output, "\n")
	// "Command: ...", 15 head lines, the marker, 85 tail lines, "Exit code: 0".
	if len(lines) != 1+15+1+85+1 || lines[15] != "15" || lines[16] != "... [200 lines truncated] ..." || lines[17] != "216" || lines[101] != "300" {
		t.Errorf("truncation: %d lines\n%s", len(lines), r.Output)
	}

	start := time.Now()
	r = call(t, s, "run_terminal_command", m{"command": "echo started; sleep 30", "timeout_seconds": 0.5})
	wantErr(t, r, "Timed out")
	wantErr(t, r, "started")
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("timeout took %s", d)
	}
	wantErr(t, call(t, s, "run_terminal_command", m{"command": "true", "cwd": "/"}), "outside the workspace")
	wantErr(t, call(t, s, "run_terminal_command", m{"command": "true", "cwd": "nope"}), "does not exist")
	wantErr(t, call(t, s, "run_terminal_command", m{}), "command is required")
}

func TestCleanTerminal(t *testing.T) {
	in := "\x1b[1;32mok\x1b[0m\x1b]0;title\x07 done\r\n10%\r50%\r100%\n\x1b]633;A\x07tab\there\x01\n"
	if got, want := cleanTerminal(in), "ok done\n100%\ntab\there\n"; got != want {
		t.Errorf("cleanTerminal = %q, want %q", got, want)
	}
}

func TestGetDiagnostics(t *testing.T) {
	s, root := newTestSession(t)
	r := call(t, s, "diagnostics", m{})
	wantOK(t, r, "No checker found")
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("go not installed")
	}
	write(t, filepath.Join(root, "go.mod"), "module example.com/x\n\ngo 1.22\n")
	write(t, filepath.Join(root, "x.go"), "package x\n\nimport \"fmt\"\n\nfunc F() { fmt.Printf(\"%d\", \"s\") }\n")
	r = call(t, s, "get_diagnostics", m{"path": "x.go"})
	wantErr(t, r, "go vet ./...")
	wantErr(t, r, "Printf format %d has arg")
}

// TestLocalToolsRefuseFIFOsAndHardLinks: a FIFO must not hang a read or a search (nobody
// will ever write to it), and a hard link to a file outside must not be read.
func TestLocalToolsRefuseFIFOsAndHardLinks(t *testing.T) {
	s, root := newTestSession(t)
	outside := t.TempDir()
	write(t, filepath.Join(outside, "secret.txt"), "needle SECRET\n")
	write(t, filepath.Join(root, "ok.txt"), "needle ok\n")
	if err := syscall.Mkfifo(filepath.Join(root, "fifo.txt"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Link(filepath.Join(outside, "secret.txt"), filepath.Join(root, "hard.txt")); err != nil {
		t.Skipf("no hard link across these directories: %v", err)
	}
	wantErr(t, call(t, s, "read_file", m{"path": "fifo.txt"}), "not a regular file")
	wantErr(t, call(t, s, "read_file", m{"path": "hard.txt"}), "hard links")
	r := call(t, s, "search_workspace", m{"pattern": "needle"})
	wantOK(t, r, "ok.txt:1: needle ok")
	if strings.Contains(r.Output, "SECRET") {
		t.Errorf("the search read through a hard link:\n%s", r.Output)
	}
}

// TestGitRunsNoWorkspaceProgram: a checkout whose .git/config names a core.fsmonitor
// program (an untrusted clone, or a model that edited .git/config) must not get it run by
// list_files or search_workspace. Plain `git ls-files` would run it on every call.
func TestGitRunsNoWorkspaceProgram(t *testing.T) {
	if _, err := exec.LookPath("git"); err != nil {
		t.Skip("git not installed")
	}
	s, root := newTestSession(t)
	makeTree(t, root)
	marker := filepath.Join(t.TempDir(), "hook-ran")
	hook := filepath.Join(t.TempDir(), "hook.sh")
	write(t, hook, "#!/bin/sh\necho ran >> "+marker+"\n")
	if err := os.Chmod(hook, 0o755); err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"init", "-q", root},
		{"-C", root, "config", "core.fsmonitor", hook},
		{"-C", root, "config", "core.hooksPath", filepath.Dir(hook)},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	// The hook is real: plain git runs it.
	exec.Command("git", "-C", root, "ls-files", "-co").Run()
	if _, err := os.Stat(marker); err != nil {
		t.Fatalf("the test hook does not run under plain git (%v): the test would prove nothing", err)
	}
	os.Remove(marker)

	wantOK(t, call(t, s, "list_files", m{}))
	wantOK(t, call(t, s, "search_workspace", m{"pattern": "needle"}))
	if b, err := os.ReadFile(marker); err == nil {
		t.Errorf("a workspace program ran: %q", b)
	}
}
