//go:build linux

package realagents

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm/fakellm"
)

// sandbox is one run's own world: HOME, the XDG directories, the agent's home, a
// workspace, and an environment built from an allowlist, so that nothing of the
// developer's (API keys, settings, a .env above the workspace) reaches parley or the agent.
type sandbox struct {
	t         testing.TB
	agent     *agentDef
	model     *fakellm.Server
	root      string // everything below is inside it
	home      string
	agentHome string
	workspace string
	frames    string // the tee's log
	marker    string // PARLEY_REALAGENTS_RUN's value, inherited by every process of the run
	env       []string
}

var sandboxes atomic.Int64

// inheritedVariables are the only variables taken from the test's own environment.
var inheritedVariables = []string{"LANG", "LC_ALL", "TZ"}

func newSandbox(t testing.TB, a *agentDef, model *fakellm.Server) *sandbox {
	t.Helper()
	root, err := os.MkdirTemp(tmpRoot, a.name+"-")
	if err != nil {
		t.Fatal(err)
	}
	sb := &sandbox{t: t, agent: a, model: model, root: root,
		home: filepath.Join(root, "home"), agentHome: filepath.Join(root, "agent-home"),
		workspace: filepath.Join(root, "ws"), frames: filepath.Join(root, "tee", "frames.jsonl"),
		marker: fmt.Sprintf("%d-%d", os.Getpid(), sandboxes.Add(1))}
	for _, d := range []string{sb.home, sb.agentHome, sb.workspace, filepath.Join(root, "tmp")} {
		if err := os.MkdirAll(d, 0o700); err != nil {
			t.Fatal(err)
		}
	}
	sb.env = []string{
		"PATH=" + filepath.Dir(node22()) + ":/usr/local/bin:/usr/bin:/bin",
		"HOME=" + sb.home,
		"TMPDIR=" + filepath.Join(root, "tmp"),
		"PARLEY_REALAGENTS_RUN=" + sb.marker,
	}
	for _, d := range []struct{ name, dir string }{
		{"XDG_CONFIG_HOME", ".config"}, {"XDG_DATA_HOME", ".local/share"}, {"XDG_STATE_HOME", ".local/state"},
		{"XDG_CACHE_HOME", ".cache"}, {"XDG_RUNTIME_DIR", "run"},
	} {
		dir := filepath.Join(sb.home, d.dir)
		os.MkdirAll(dir, 0o700)
		sb.env = append(sb.env, d.name+"="+dir)
	}
	for _, name := range inheritedVariables {
		if v, ok := os.LookupEnv(name); ok {
			sb.env = append(sb.env, name+"="+v)
		}
	}
	if !hasVar(sb.env, "LANG") {
		sb.env = append(sb.env, "LANG=C.UTF-8")
	}
	// parley confines the agent, and the tee with it (it is part of the agent's command
	// line): the tee's logs are the one thing outside the agent's profile it writes.
	if err := os.MkdirAll(filepath.Dir(sb.frames), 0o700); err != nil {
		t.Fatal(err)
	}
	cfg, _ := json.Marshal(map[string]any{"sandbox": map[string]any{"write": []string{filepath.Dir(sb.frames)}}})
	sb.writeFile(filepath.Join(sb.home, ".config", "parley", "config.json"), string(cfg))
	sb.env = append(sb.env, a.setup(sb)...)
	t.Cleanup(func() {
		sb.requireNoProcessLeft(t)
		sb.saveModelRequests()
	})
	return sb
}

func hasVar(env []string, name string) bool {
	for _, kv := range env {
		if strings.HasPrefix(kv, name+"=") {
			return true
		}
	}
	return false
}

// getenv is the value of name in the sandbox's environment.
func (sb *sandbox) getenv(name string) string {
	for _, kv := range sb.env {
		if v, ok := strings.CutPrefix(kv, name+"="); ok {
			return v
		}
	}
	return ""
}

// xdg is the path of one of the XDG directories.
func (sb *sandbox) xdg(name string) string { return sb.getenv(name) }

// writeFile writes a file below the sandbox (parents created) or fails the test.
func (sb *sandbox) writeFile(path, content string) {
	sb.t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		sb.t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		sb.t.Fatal(err)
	}
}

// agentCommand is the agent's command line for parley, through the tee.
func (sb *sandbox) agentCommand() string {
	words := append([]string{selfPath(sb.t), teeRole, sb.frames, "--"}, sb.agent.argv()...)
	return strings.Join(words, " ")
}

// processesOfRun lists the live processes (not zombies) that carry the run's marker in
// their environment.
func (sb *sandbox) processesOfRun() []string {
	entries, _ := os.ReadDir("/proc")
	needle := []byte("PARLEY_REALAGENTS_RUN=" + sb.marker + "\x00")
	var found []string
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		env, err := os.ReadFile(filepath.Join("/proc", e.Name(), "environ"))
		if err != nil || !bytes.Contains(env, needle) {
			continue
		}
		stat, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "stat"))
		if i := bytes.LastIndexByte(stat, ')'); i > 0 && len(stat) > i+2 && stat[i+2] == 'Z' {
			continue
		}
		cmdline, _ := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		found = append(found, fmt.Sprintf("%d %s", pid, strings.ReplaceAll(strings.TrimSpace(string(cmdline)), "\x00", " ")))
	}
	return found
}

// requireNoProcessLeft fails the test when any process of the run outlives it. Processes
// that were signalled take a moment to go, so it looks again for a while before failing.
func (sb *sandbox) requireNoProcessLeft(t testing.TB) {
	t.Helper()
	deadline := time.Now().Add(5 * time.Second)
	for {
		left := sb.processesOfRun()
		if len(left) == 0 {
			return
		}
		if time.Now().After(deadline) {
			t.Errorf("%d processes of the run are left behind:\n%s", len(left), strings.Join(left, "\n"))
			for _, p := range left {
				if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
					syscall.Kill(pid, syscall.SIGKILL)
				}
			}
			return
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// saveModelRequests writes what the model server saw into the sandbox, for a look after
// a failure (PARLEY_REALAGENTS_KEEP=1 keeps the sandboxes).
func (sb *sandbox) saveModelRequests() {
	var b bytes.Buffer
	for _, r := range sb.model.Requests() {
		data, _ := json.Marshal(map[string]any{"method": r.Method, "path": r.Path, "model": r.Model, "tools": r.ToolNames(), "body": r.Body})
		b.Write(append(data, '\n'))
	}
	os.WriteFile(filepath.Join(sb.root, "model-requests.jsonl"), b.Bytes(), 0o600)
}
