package cli

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/store"
)

// permissionsCmd runs the permissions command, built by its constructor, with args.
func permissionsCmd(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := newPermissionsCommand(&globals{})
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&out)
	cmd.SetArgs(args)
	err := cmd.ExecuteContext(t.Context())
	return out.String(), err
}

// rememberedDB returns a database holding a few remembered decisions, the workspace they
// were made in (a real directory) and another one.
func rememberedDB(t *testing.T) (db, ws, other string) {
	t.Helper()
	dir := t.TempDir()
	ws, other = filepath.Join(dir, "project"), filepath.Join(dir, "other")
	for _, d := range []string{ws, other} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	ws, _ = filepath.EvalSymlinks(ws)
	other, _ = filepath.EvalSymlinks(other)
	db = filepath.Join(dir, "data", "parley.db")
	s, err := store.Open(db)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	at := time.Date(2026, 5, 4, 12, 30, 0, 0, time.UTC)
	for _, r := range []store.Rule{
		{Agent: "codex", Workspace: ws, ToolKey: "execute:none go test <files>", Description: "`go test ./...` and the same command with other files in the workspace", Decision: store.Allow, CreatedAt: at},
		{Agent: "codex", Workspace: other, ToolKey: "execute:high rm -rf build", Description: "exactly `rm -rf build`", Decision: store.Reject, CreatedAt: at},
		{Agent: "claude", Workspace: ws, ToolKey: "edit:Write", Decision: store.Allow, CreatedAt: at},
	} {
		if err := s.Remember(t.Context(), r); err != nil {
			t.Fatal(err)
		}
	}
	return db, ws, other
}

func TestPermissionsList(t *testing.T) {
	db, ws, other := rememberedDB(t)
	out, err := permissionsCmd(t, "--db", db)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if len(lines) != 4 || !strings.HasPrefix(lines[0], "AGENT") || !strings.Contains(lines[0], "WHEN") {
		t.Fatalf("table:\n%s", out)
	}
	for i, want := range []string{
		"claude " + ws + " allow edit:Write",
		"codex " + other + " reject exactly `rm -rf build` (risk high)",
		"codex " + ws + " allow `go test ./...` and the same command with other files in the workspace (risk none)",
	} {
		if got := strings.Join(strings.Fields(lines[i+1]), " "); !strings.HasPrefix(got, want) {
			t.Errorf("row %d: %q, want it to start %q", i+1, got, want)
		}
	}

	out, err = permissionsCmd(t, "--db", db, "--json", "--agent", "codex", "--workspace", ws)
	if err != nil {
		t.Fatal(err)
	}
	var got []ruleJSON
	if err := json.Unmarshal([]byte(out), &got); err != nil {
		t.Fatalf("--json output is not JSON: %v\n%s", err, out)
	}
	want := []ruleJSON{{Agent: "codex", Workspace: ws, Tool: "execute:none go test <files>",
		Description: "`go test ./...` and the same command with other files in the workspace", Decision: "allow", CreatedAt: "2026-05-04T12:30:00Z"}}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("--json (-want +got):\n%s", diff)
	}
}

func TestPermissionsListWithoutADatabase(t *testing.T) {
	db := filepath.Join(t.TempDir(), "none", "parley.db")
	out, err := permissionsCmd(t, "--db", db)
	if err != nil || !strings.Contains(out, "No remembered permission decisions") {
		t.Errorf("out %q, err %v", out, err)
	}
	out, err = permissionsCmd(t, "--db", db, "--json")
	if err != nil || strings.TrimSpace(out) != "[]" {
		t.Errorf("--json: out %q, err %v; want []", out, err)
	}
	if _, err := permissionsCmd(t, "reset", "--all", "--db", db); err != nil {
		t.Error(err)
	}
	if _, err := os.Stat(filepath.Dir(db)); !os.IsNotExist(err) {
		t.Errorf("listing or resetting created the database: %v", err)
	}
}

func TestPermissionsResetNeedsAFilterOrAll(t *testing.T) {
	db, _, _ := rememberedDB(t)
	for _, args := range [][]string{
		{"reset", "--db", db},
		{"reset", "--db", db, "--all", "--agent", "codex"},
		{"reset", "--db", db, "extra"},
	} {
		_, err := permissionsCmd(t, args...)
		if ee, ok := errors.AsType[*exitError](err); ok && ee.code != exitUsage {
			t.Errorf("%v: exit %d, want %d", args, ee.code, exitUsage)
		} else if err == nil {
			t.Errorf("%v: succeeded", args)
		}
	}
	out, _ := permissionsCmd(t, "--db", db, "--json")
	var left []ruleJSON
	json.Unmarshal([]byte(out), &left)
	if len(left) != 3 {
		t.Errorf("a refused reset removed decisions: %d left", len(left))
	}
}

func TestPermissionsReset(t *testing.T) {
	db, ws, _ := rememberedDB(t)
	// The workspace given through a symlink and as a relative path names the same directory.
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Fatal(err)
	}
	for _, step := range []struct {
		args []string
		want string
		left int
	}{
		{[]string{"--agent", "nobody"}, "Forgot 0 remembered permission decisions.", 3},
		{[]string{"--agent", "claude", "--workspace", link}, "Forgot 1 remembered permission decision.", 2},
		{[]string{"--agent", "codex", "--workspace", "."}, "Forgot 1 remembered permission decision.", 1},
		{[]string{"--all"}, "Forgot 1 remembered permission decision.", 0},
	} {
		if step.args[len(step.args)-1] == "." {
			t.Chdir(ws)
		}
		out, err := permissionsCmd(t, append([]string{"reset", "--db", db}, step.args...)...)
		if err != nil {
			t.Fatalf("%v: %v", step.args, err)
		}
		if strings.TrimSpace(out) != step.want {
			t.Errorf("%v: %q, want %q", step.args, strings.TrimSpace(out), step.want)
		}
		listed, _ := permissionsCmd(t, "--db", db, "--json")
		var left []ruleJSON
		if err := json.Unmarshal([]byte(listed), &left); err != nil {
			t.Fatal(err)
		}
		if len(left) != step.left {
			t.Errorf("%v: %d decisions left, want %d", step.args, len(left), step.left)
		}
	}
}
