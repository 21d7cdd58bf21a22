package sandbox

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// TestMain lets the test binary play `parley sandbox-exec`: Wrap names it as the binary,
// and it confines itself and runs the command.
func TestMain(m *testing.M) {
	if os.Getenv("PARLEY_SANDBOX_TEST") == "exec" {
		args := os.Args[1:]
		var writable []string
		tmp := ""
		for len(args) >= 2 && (args[0] == "--write" || args[0] == "--tmp") {
			if args[0] == "--tmp" {
				tmp = args[1]
			} else {
				writable = append(writable, args[1])
			}
			args = args[2:]
		}
		if len(args) > 0 && args[0] == "--" {
			args = args[1:]
		}
		err := Exec(writable, tmp, args)
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(111)
	}
	os.Exit(m.Run())
}

// runConfined runs a shell line confined to writing in workspace and extra, the way the
// agent does.
func runConfined(t *testing.T, workspace, line string, extra ...string) (string, error) {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &Policy{exe: exe, writable: extra}
	if len(extra) > 0 {
		p.tmp = extra[0]
	}
	name, args := p.Wrap([]string{workspace}, "sh", []string{"-c", line})
	if args[0] != "sandbox-exec" {
		t.Fatalf("Wrap gave %v", args)
	}
	cmd := exec.Command(name, args[1:]...) // the test binary has no subcommands
	cmd.Env = append(os.Environ(), "PARLEY_SANDBOX_TEST=exec", "TMPDIR=/nonexistent")
	cmd.Dir = workspace
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func TestConfinedCommandWritesOnlyTheWorkspace(t *testing.T) {
	if ABI() == 0 {
		t.Skip("this kernel offers no Landlock")
	}
	workspace, outside, tmp := t.TempDir(), t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(outside, "victim"), []byte("keep me\n"), 0o644)

	if out, err := runConfined(t, workspace, "echo ok > inside && mkdir -p sub && mv inside sub/ && cat "+filepath.Join(outside, "victim")); err != nil || !strings.Contains(out, "keep me") {
		t.Fatalf("inside the workspace: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(workspace, "sub", "inside")); err != nil {
		t.Errorf("the write inside did not happen: %v", err)
	}
	out, err := runConfined(t, workspace, "rm -f "+filepath.Join(outside, "victim")+"; echo x > "+filepath.Join(outside, "new"))
	if err == nil {
		t.Errorf("writing outside succeeded:\n%s", out)
	}
	if b, _ := os.ReadFile(filepath.Join(outside, "victim")); string(b) != "keep me\n" {
		t.Errorf("a confined command deleted a file outside the workspace")
	}
	if _, err := os.Stat(filepath.Join(outside, "new")); err == nil {
		t.Errorf("a confined command created a file outside the workspace")
	}
	if out, err := runConfined(t, workspace, `echo x > /dev/null && echo tmp > "$TMPDIR/t"`, tmp); err != nil {
		t.Errorf("/dev/null and the private temp dir: %v\n%s", err, out)
	}
	if _, err := os.Stat(filepath.Join(tmp, "t")); err != nil {
		t.Errorf("TMPDIR was not the private temp dir: %v", err)
	}
}

func TestPolicyLetsItsTempAndTheCacheBeWritten(t *testing.T) {
	p := New("/usr/bin/parley", "/private-tmp", []string{"rel"})
	w := p.Writable()
	cache, _ := os.UserCacheDir()
	abs, _ := filepath.Abs("rel")
	if len(w) != 3 || w[0] != "/private-tmp" || w[1] != cache || w[2] != abs {
		t.Errorf("writable %v", w)
	}
	name, args := p.Wrap([]string{"/ws"}, "sh", []string{"-c", "x"})
	want := "sandbox-exec --tmp /private-tmp --write /ws --write /private-tmp --write " + cache + " --write " + abs + " -- sh -c x"
	if name != "/usr/bin/parley" || strings.Join(args, " ") != want {
		t.Errorf("Wrap = %s %v", name, args)
	}
}
