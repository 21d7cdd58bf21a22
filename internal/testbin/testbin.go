// Package testbin is for tests that drive the real parley binary the way a user or a peer
// does: it builds the binary and gives the child processes an environment in which no
// configuration, permission store or log of the machine takes part. Only tests import it.
package testbin

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
)

// Build builds cmd/parley into dir and returns the binary's path; with -race when the
// calling test was built with -race.
func Build(dir string) (string, error) {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return "", fmt.Errorf("cannot locate the repository root")
	}
	out := filepath.Join(dir, "parley")
	args := []string{"build", "-o", out}
	if raceEnabled {
		args = append(args, "-race")
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	NoteSources()
	cmd := exec.Command("go", append(args, "github.com/parley-acp/parley/cmd/parley")...)
	cmd.Dir = root
	if msg, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("parley does not build (%v):\n%s", err, msg)
	}
	return out, nil
}

// NoteSources stats every Go source and module file of the repository from the test's
// own process. go test caches a passing result keyed on the files the test looked at; the
// binary is built by a child it cannot see into, so without this a change to the code
// under test would leave the black-box tests' stale pass in the cache. Build calls it;
// a test whose binary was built in TestMain (where nothing is noted: go test starts
// noting in m.Run) calls it itself.
func NoteSources() {
	_, file, _, ok := runtime.Caller(0)
	if !ok {
		return
	}
	root := filepath.Join(filepath.Dir(file), "..", "..")
	filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		switch {
		case err != nil:
			return nil
		case d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "node_modules" || d.Name() == "testdata"):
			return filepath.SkipDir
		case !d.IsDir() && (strings.HasSuffix(path, ".go") || d.Name() == "go.mod" || d.Name() == "go.sum"):
			os.Stat(path)
		}
		return nil
	})
}

// IsolatedEnv is this process's environment with HOME and the XDG directories moved
// under home (created as needed).
func IsolatedEnv(home string) []string {
	var env []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "XDG_") && !strings.HasPrefix(kv, "HOME=") && !strings.HasPrefix(kv, "PARLEY_REGISTRY_URL=") {
			env = append(env, kv)
		}
	}
	return append(env, HomeEnv(home)...)
}

// HomeEnv is only the variables IsolatedEnv sets: HOME and the XDG directories under home
// (and, under -race, GORACE), and an ACP registry that is a missing file under home, so
// that no test reaches the public registry (a test that wants one sets its own).
func HomeEnv(home string) []string {
	env := []string{"HOME=" + home, "PARLEY_REGISTRY_URL=" + filepath.Join(home, "no-registry.json")}
	if raceEnabled {
		env = append(env, "GORACE="+goRace)
	}
	for _, d := range []struct{ name, dir string }{
		{"XDG_CONFIG_HOME", "config"}, {"XDG_DATA_HOME", "data"}, {"XDG_STATE_HOME", "state"},
		{"XDG_CACHE_HOME", "cache"}, {"XDG_RUNTIME_DIR", "run"},
	} {
		path := filepath.Join(home, d.dir)
		os.MkdirAll(path, 0o700)
		env = append(env, d.name+"="+path)
	}
	return env
}

// goRace is how the -race binaries tests start run: a data race ends the process at once,
// loudly, instead of a report in a stderr that the test may never read; and the process
// ends at once, not after the race runtime's default second of sleep at exit (which made
// every parley, agent and terminal the tests start a second slower).
const goRace = "halt_on_error=1 atexit_sleep_ms=20"

func init() {
	if raceEnabled && os.Getenv("GORACE") == "" {
		os.Setenv("GORACE", goRace) // for the processes tests start without HomeEnv
	}
}

// Race reports whether the tests (and so the binaries they build) run under the race
// detector, which multiplies the memory and time a process takes.
func Race() bool { return raceEnabled }

// Isolate moves this process's HOME and XDG directories to a new temporary directory, so
// that nothing a test runs (parley, its agents, their logs and stores) reads or writes
// the user's own configuration, data, state or cache; the processes a test starts inherit
// it. Go's own caches stay where they are (a build from a test must not start cold). Call
// it from TestMain before m.Run; cleanup removes the directory.
func Isolate() (cleanup func(), err error) {
	home, err := os.MkdirTemp("", "parley-test-home-")
	if err != nil {
		return nil, err
	}
	for _, v := range []string{"GOCACHE", "GOMODCACHE", "GOPATH", "GOTMPDIR"} {
		if os.Getenv(v) == "" {
			out, err := exec.Command("go", "env", v).Output()
			if err == nil && len(strings.TrimSpace(string(out))) > 0 {
				os.Setenv(v, strings.TrimSpace(string(out)))
			}
		}
	}
	for _, kv := range IsolatedEnv(home) {
		if k, v, ok := strings.Cut(kv, "="); ok && (k == "HOME" || strings.HasPrefix(k, "XDG_") || k == "PARLEY_REGISTRY_URL") {
			os.Setenv(k, v)
		}
	}
	return func() { os.RemoveAll(home) }, nil
}
