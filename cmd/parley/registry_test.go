package main

// The ACP registry, as a user meets it: a registry served on 127.0.0.1 by the test, with
// archives the test builds; `parley agents`, `agents install/update/remove`, and the
// installed agent used by its id.

import (
	"archive/tar"
	"archive/zip"
	"bufio"
	"bytes"
	"compress/gzip"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"

	"github.com/parley-acp/parley/internal/registry"
	"github.com/parley-acp/parley/internal/testbin"
)

// testRegistry serves registry.json and the archives it names on 127.0.0.1.
type testRegistry struct {
	srv     *httptest.Server
	mu      sync.Mutex
	agents  map[string]map[string]any
	files   map[string][]byte
	fetched int
	served  int // archives served
}

func newTestRegistry(t *testing.T) *testRegistry {
	r := &testRegistry{agents: map[string]map[string]any{}, files: map[string][]byte{}}
	r.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, req *http.Request) {
		r.mu.Lock()
		defer r.mu.Unlock()
		if req.URL.Path == "/redirect" {
			http.Redirect(w, req, req.URL.Query().Get("to"), http.StatusFound)
			return
		}
		if req.URL.Path == "/registry.json" {
			r.fetched++
			var list []map[string]any
			for _, a := range r.agents {
				list = append(list, a)
			}
			json.NewEncoder(w).Encode(map[string]any{"version": "1.0.0", "agents": list})
			return
		}
		data, ok := r.files[req.URL.Path]
		if !ok {
			http.NotFound(w, req)
			return
		}
		r.served++
		w.Write(data)
	}))
	t.Cleanup(r.srv.Close)
	return r
}

func (r *testRegistry) url() string { return r.srv.URL + "/registry.json" }

// binary adds an agent whose archive for this machine is data, served as name; sha is
// its sha256 unless given.
func (r *testRegistry) binary(id, version, name string, data []byte, cmd string, args []string, sha string) {
	if sha == "" {
		sum := sha256.Sum256(data)
		sha = hex.EncodeToString(sum[:])
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	path := "/files/" + version + "/" + name
	r.files[path] = data
	r.agents[id] = map[string]any{
		"id": id, "name": "Agent " + id, "version": version, "description": "A test agent called " + id + ".",
		"distribution": map[string]any{"binary": map[string]any{
			registry.Platform(): map[string]any{"archive": r.srv.URL + path, "cmd": cmd, "args": args, "sha256": sha, "env": map[string]string{"LD_PRELOAD": "/nonexistent.so"}},
		}},
	}
}

// setTarget sets key of id's archive for this machine ("sha256", "archive"…); nil leaves
// it out.
func (r *testRegistry) setTarget(id, key string, value any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	target := r.agents[id]["distribution"].(map[string]any)["binary"].(map[string]any)[registry.Platform()].(map[string]any)
	if value == nil {
		delete(target, key)
	} else {
		target[key] = value
	}
}

func (r *testRegistry) archivesServed() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.served
}

func (r *testRegistry) npx(id, pkg string, args ...string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.agents[id] = map[string]any{"id": id, "name": "Agent " + id, "version": "1.0.0", "description": "An npx agent.",
		"distribution": map[string]any{"npx": map[string]any{"package": pkg, "args": args}}}
}

type entry struct {
	name, body, link string
	typ              byte
	mode             int64
}

func tarGzOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	gz := gzip.NewWriter(&buf)
	tw := tar.NewWriter(gz)
	for _, e := range entries {
		h := &tar.Header{Name: e.name, Typeflag: e.typ, Linkname: e.link, Mode: e.mode}
		if e.typ == tar.TypeReg {
			h.Size = int64(len(e.body))
		}
		if err := tw.WriteHeader(h); err != nil {
			t.Fatal(err)
		}
		io.WriteString(tw, e.body)
	}
	tw.Close()
	gz.Close()
	return buf.Bytes()
}

func zipArchiveOf(t *testing.T, entries ...entry) []byte {
	t.Helper()
	var buf bytes.Buffer
	zw := zip.NewWriter(&buf)
	for _, e := range entries {
		h := &zip.FileHeader{Name: e.name, Method: zip.Deflate}
		h.SetMode(fs.FileMode(e.mode))
		w, err := zw.CreateHeader(h)
		if err != nil {
			t.Fatal(err)
		}
		io.WriteString(w, e.body)
	}
	zw.Close()
	return buf.Bytes()
}

// elizaScript is an agent executable that runs parley's built-in agent (the test binary
// is parley under the PARLEY_TEST_ROLE that parley's children inherit).
func elizaScript(t *testing.T) string {
	if runtime.GOOS == "windows" {
		t.Skip("the test agent is a shell script")
	}
	return fmt.Sprintf("#!/bin/sh\nexec '%s' eliza \"$@\"\n", self(t))
}

// registryEnv is an isolated environment whose registry is reg.
func registryEnv(t *testing.T, reg *testRegistry) (env []string, home string) {
	home = t.TempDir()
	return append(testbin.HomeEnv(home), "PARLEY_REGISTRY_URL="+reg.url()), home
}

func agentsDataDir(home string) string { return filepath.Join(home, "data", "parley", "agents") }

func TestAgentsInstallRunUpdateRemove(t *testing.T) {
	t.Parallel()
	reg := newTestRegistry(t)
	script := elizaScript(t)
	reg.binary("tar-agent", "1.0.0", "tar-agent.tar.gz", tarGzOf(t,
		entry{name: "tar-agent-1.0.0/", typ: tar.TypeDir, mode: 0o755},
		entry{name: "tar-agent-1.0.0/bin/agent", typ: tar.TypeReg, body: script, mode: 0o755},
		entry{name: "tar-agent-1.0.0/README", typ: tar.TypeReg, body: "read me", mode: 0o644},
		entry{name: "tar-agent-1.0.0/doc", typ: tar.TypeSymlink, link: "README"},
	), "tar-agent-1.0.0/bin/agent", []string{"--deterministic"}, "")
	// The zip's executable bit is not set: install makes cmd executable.
	reg.binary("zip-agent", "2.0.0", "zip-agent.zip", zipArchiveOf(t, entry{name: "agent", body: script, mode: 0o644}), "./agent", nil, "")
	env, home := registryEnv(t, reg)
	dir := t.TempDir()

	r := parleyIn(t, dir, env, "", "agents")
	if r.code != 0 {
		t.Fatalf("parley agents: exit %d\n%s", r.code, r.stderr)
	}
	for _, want := range []string{"The ACP registry (" + reg.url(), "tar-agent", "Agent zip-agent", "2.0.0", "A test agent called zip-agent.", "no"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("parley agents lacks %q:\n%s", want, r.stdout)
		}
	}

	r = parleyIn(t, dir, env, "", "agents", "install", "tar-agent", "zip-agent")
	if r.code != 0 {
		t.Fatalf("install: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "Installed tar-agent 1.0.0") || !strings.Contains(r.stdout, "Installed zip-agent 2.0.0") {
		t.Errorf("install says:\n%s", r.stdout)
	}
	if target, err := os.Readlink(filepath.Join(agentsDataDir(home), "tar-agent", "1.0.0", "tar-agent-1.0.0", "doc")); err != nil || target != "README" {
		t.Errorf("the archive's link inside it is not kept: %q %v", target, err)
	}

	r = parleyIn(t, dir, env, "", "agents")
	for _, want := range []string{"registry 1.0.0", "registry 2.0.0"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("parley agents lacks %q:\n%s", want, r.stdout)
		}
	}
	if strings.Contains(r.stdout, "LD_PRELOAD") {
		t.Errorf("the manifest's LD_PRELOAD is kept:\n%s", r.stdout)
	}
	if got := r.stdout[strings.Index(r.stdout, "The ACP registry"):]; strings.Count(got, " yes ") != 2 {
		t.Errorf("the registry's list does not say both are installed:\n%s", got)
	}

	r = parleyIn(t, dir, env, "", "run", "--agent", "tar-agent", "I am worried about my tests")
	if r.code != 0 || !strings.Contains(r.stdout, "worried about your tests") {
		t.Errorf("run --agent tar-agent: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	r = parleyIn(t, dir, env, "", "run", "--agent", "zip-agent", "flood 3")
	if r.code != 0 || r.stdout != "0 1 2 \n" {
		t.Errorf("run --agent zip-agent: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}
	r = parleyIn(t, dir, env, "/quit\n", "chat", "--agent", "zip-agent")
	if r.code != 0 {
		t.Errorf("chat --agent zip-agent: exit %d, stderr %s", r.code, r.stderr)
	}
	if models := vscodeModels(t, env); !strings.Contains(models, `"id":"tar-agent"`) || !strings.Contains(models, filepath.Join("tar-agent", "1.0.0")) {
		t.Errorf("the VS Code model list lacks the installed agent: %s", models)
	}

	r = parleyIn(t, dir, env, "", "agents", "update")
	if r.code != 0 || !strings.Contains(r.stdout, "tar-agent 1.0.0 is installed and up to date") {
		t.Errorf("update with nothing new: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	reg.binary("tar-agent", "1.1.0", "tar-agent.tar.gz", tarGzOf(t, entry{name: "agent", typ: tar.TypeReg, body: script, mode: 0o755}), "agent", nil, "")
	r = parleyIn(t, dir, env, "", "agents", "update", "tar-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "Updated tar-agent from 1.0.0 to 1.1.0") {
		t.Fatalf("update: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(agentsDataDir(home), "tar-agent", "1.0.0")); !os.IsNotExist(err) {
		t.Errorf("the old version's files are still there: %v", err)
	}
	r = parleyIn(t, dir, env, "", "run", "--agent", "tar-agent", "flood 2")
	if r.code != 0 || r.stdout != "0 1 \n" {
		t.Errorf("run after the update: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}

	r = parleyIn(t, dir, env, "", "agents", "remove", "tar-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "Removed tar-agent 1.1.0") {
		t.Errorf("remove: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(agentsDataDir(home), "tar-agent")); !os.IsNotExist(err) {
		t.Errorf("remove left files: %v", err)
	}
	r = parleyIn(t, dir, env, "", "run", "--agent", "tar-agent", "hello")
	if r.code == 0 || !strings.Contains(r.stderr, `unknown agent "tar-agent"`) {
		t.Errorf("run a removed agent: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := parleyIn(t, dir, env, "", "agents", "remove", "tar-agent"); r.code != 1 || !strings.Contains(r.stderr, "not installed") {
		t.Errorf("remove twice: exit %d, stderr %s", r.code, r.stderr)
	}
}

// vscodeModels asks `parley vscodelm` for its model list.
func vscodeModels(t *testing.T, env []string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), self(t), "vscodelm")
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), env...)
	stdin, _ := cmd.StdinPipe()
	stdout, _ := cmd.StdoutPipe()
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer cmd.Wait()
	defer stdin.Close()
	io.WriteString(stdin, `{"jsonrpc":"2.0","id":1,"method":"lm/provideLanguageModelChatInformation","params":{}}`+"\n")
	line, err := bufio.NewReader(stdout).ReadString('\n')
	if err != nil {
		t.Fatalf("vscodelm: %v", err)
	}
	return line
}

// TestAgentsInstallRefusesBadArchives: a wrong checksum, and archives whose members or
// links lead outside, are refused; nothing is unpacked, kept or written anywhere else.
func TestAgentsInstallRefusesBadArchives(t *testing.T) {
	t.Parallel()
	reg := newTestRegistry(t)
	script := elizaScript(t)
	good := tarGzOf(t, entry{name: "agent", typ: tar.TypeReg, body: script, mode: 0o755})
	reg.binary("bad-sum", "1.0.0", "a.tar.gz", good, "agent", nil, strings.Repeat("ab", 32))
	escape := "../../../../../../escaped"
	absolute := filepath.Join(t.TempDir(), "escaped-absolute") // an absolute member's target, made for this run
	for id, e := range map[string]entry{
		"dot-dot":   {name: escape, typ: tar.TypeReg, body: "x", mode: 0o644},
		"absolute":  {name: absolute, typ: tar.TypeReg, body: "x", mode: 0o644},
		"link-out":  {name: "escaped-link", typ: tar.TypeSymlink, link: escape},
		"hard-out":  {name: "escaped-hard", typ: tar.TypeLink, link: "../../../../etc/passwd"},
		"abs-link":  {name: "escaped-abs-link", typ: tar.TypeSymlink, link: "/etc"},
		"zip-climb": {name: escape, body: "x", mode: 0o644},
	} {
		data := tarGzOf(t, entry{name: "agent", typ: tar.TypeReg, body: script, mode: 0o755}, e)
		name := id + ".tar.gz"
		if id == "zip-climb" {
			data, name = zipArchiveOf(t, entry{name: "agent", body: script, mode: 0o755}, e), id+".zip"
		}
		reg.binary(id, "1.0.0", name, data, "agent", nil, "")
	}
	env, home := registryEnv(t, reg)
	for _, tc := range []struct{ id, want string }{
		{"bad-sum", "sha256"}, {"dot-dot", "outside"}, {"absolute", "absolute path"}, {"link-out", "points outside"},
		{"hard-out", "outside"}, {"abs-link", "points outside"}, {"zip-climb", "outside"},
	} {
		r := parleyIn(t, t.TempDir(), env, "", "agents", "install", tc.id)
		if r.code != 1 || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("install %s: exit %d, stderr:\n%s", tc.id, r.code, r.stderr)
		}
	}
	entries, _ := os.ReadDir(agentsDataDir(home))
	for _, e := range entries {
		t.Errorf("left in the agents' directory: %s", e.Name())
	}
	filepath.WalkDir(home, func(p string, d fs.DirEntry, err error) error {
		if err == nil && strings.HasPrefix(d.Name(), "escaped") {
			t.Errorf("written outside: %s", p)
		}
		return nil
	})
	if _, err := os.Lstat(absolute); err == nil {
		t.Error("an absolute member was written")
	}
	if r := parleyIn(t, t.TempDir(), env, "", "run", "--agent", "bad-sum", "hi"); r.code == 0 {
		t.Error("a refused agent runs")
	}
	// A registry agent called like parley's own agent does not replace it.
	reg.binary("parley", "1.0.0", "parley.tar.gz", good, "agent", nil, "")
	if r := parleyIn(t, t.TempDir(), env, "", "agents", "install", "parley"); r.code != 1 || !strings.Contains(r.stderr, "parley's own agent") {
		t.Errorf("install parley: exit %d, stderr:\n%s", r.code, r.stderr)
	}
}

// TestAgentsRegistryFromConfigAndKept: registry_url in config.json names the registry; its
// index is kept, so `parley agents` lists it when the registry is gone, and says so when
// asked to refresh.
func TestAgentsRegistryFromConfigAndKept(t *testing.T) {
	t.Parallel()
	reg := newTestRegistry(t)
	reg.npx("npx-agent", "@parley-test/npx-agent@1.0.0", "--acp")
	home := t.TempDir()
	env := append(testbin.HomeEnv(home), "PARLEY_REGISTRY_URL=") // config.json names it
	cfgDir := parleyConfigDir(env)
	os.MkdirAll(cfgDir, 0o700)
	os.WriteFile(filepath.Join(cfgDir, "config.json"), []byte(`{"registry_url":"`+reg.url()+`"}`), 0o600)
	dir := t.TempDir()
	if r := parleyIn(t, dir, env, "", "agents"); r.code != 0 || !strings.Contains(r.stdout, "npx-agent") {
		t.Fatalf("exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := parleyIn(t, dir, env, "", "agents"); !strings.Contains(r.stdout, "npx-agent") || reg.fetchCount() != 1 {
		t.Errorf("fetched %d times in a day\n%s", reg.fetchCount(), r.stdout)
	}
	r := parleyIn(t, dir, env, "", "agents", "install", "npx-agent")
	if r.code != 0 || !strings.Contains(r.stdout, "npx --yes @parley-test/npx-agent@1.0.0 --acp") {
		t.Errorf("install an npx agent: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	reg.srv.Close()
	r = parleyIn(t, dir, env, "", "agents", "--refresh")
	if r.code != 0 || !strings.Contains(r.stdout, "npx-agent") || !strings.Contains(r.stderr, "cannot reach the registry") || !strings.Contains(r.stderr, "copy kept") {
		t.Errorf("offline: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if !strings.Contains(r.stdout, "needs a download (@parley-test/npx-agent@1.0.0 through npx") {
		t.Errorf("an npx agent whose package npx does not have:\n%s", r.stdout)
	}
	r = parleyIn(t, dir, env, "", "agents", "update")
	if r.code != 0 || !strings.Contains(r.stderr, "cannot reach the registry") || !strings.Contains(r.stdout, "up to date") {
		t.Errorf("update offline: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

func (r *testRegistry) fetchCount() int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.fetched
}

// TestAgentsInstallRefusesUncheckedArchives: a binary distribution whose sha256 is
// missing or empty is refused before it is downloaded, by install and by update (the
// installed version stays); --allow-unverified installs it and says what that means. A
// sha256 that is not 64 hex digits is refused even then, and so is a wrong one, and an
// archive that is not on https (plain http elsewhere than this machine, a redirect to it,
// ftp).
func TestAgentsInstallRefusesUncheckedArchives(t *testing.T) {
	t.Parallel()
	reg := newTestRegistry(t)
	script := elizaScript(t)
	good := tarGzOf(t, entry{name: "agent", typ: tar.TypeReg, body: script, mode: 0o755})
	reg.binary("no-sum", "1.0.0", "a.tar.gz", good, "agent", nil, "")
	reg.setTarget("no-sum", "sha256", nil)
	reg.binary("empty-sum", "1.0.0", "b.tar.gz", good, "agent", nil, "")
	reg.setTarget("empty-sum", "sha256", "")
	sum := sha256.Sum256(good)
	hexSum := hex.EncodeToString(sum[:])
	reg.binary("short-sum", "1.0.0", "c.tar.gz", good, "agent", nil, hexSum[:63])
	reg.binary("spaced-sum", "1.0.0", "d.tar.gz", good, "agent", nil, " "+hexSum+" ")
	reg.binary("wrong-sum", "1.0.0", "e.tar.gz", good, "agent", nil, strings.Repeat("0", 64))
	// Archives that could be changed on their way: refused before any connection.
	reg.binary("plain-http", "1.0.0", "f.tar.gz", good, "agent", nil, "")
	reg.setTarget("plain-http", "archive", "http://parley-test.invalid/f.tar.gz")
	reg.binary("redirected", "1.0.0", "g.tar.gz", good, "agent", nil, "")
	reg.setTarget("redirected", "archive", reg.srv.URL+"/redirect?to=http://parley-test.invalid/g.tar.gz")
	reg.binary("ftp", "1.0.0", "h.tar.gz", good, "agent", nil, "")
	reg.setTarget("ftp", "archive", "ftp://127.0.0.1/h.tar.gz")
	env, home := registryEnv(t, reg)
	dir := t.TempDir()

	for _, id := range []string{"no-sum", "empty-sum"} {
		r := parleyIn(t, dir, env, "", "agents", "install", id)
		if r.code != 1 || !strings.Contains(r.stderr, "refusing "+id+": the registry gives no sha256") || !strings.Contains(r.stderr, "--allow-unverified") {
			t.Errorf("install %s: exit %d\n%s%s", id, r.code, r.stdout, r.stderr)
		}
	}
	if n := reg.archivesServed(); n != 0 {
		t.Errorf("%d archives downloaded for installs that were refused", n)
	}
	if entries, _ := os.ReadDir(agentsDataDir(home)); len(entries) != 0 {
		t.Errorf("left in the agents' directory after refused installs: %v", entries)
	}
	if r := parleyIn(t, dir, env, "", "run", "--agent", "no-sum", "hi"); r.code == 0 {
		t.Error("a refused agent runs")
	}
	for _, tc := range []struct{ id, want string }{
		{"short-sum", "not 64 hex digits"}, {"spaced-sum", "not 64 hex digits"}, {"wrong-sum", "the archive's sha256 is " + hexSum},
		{"plain-http", "plain http is allowed only on this machine"}, {"redirected", "plain http is allowed only on this machine"},
		{"ftp", "only https"},
	} {
		r := parleyIn(t, dir, env, "", "agents", "install", "--allow-unverified", tc.id)
		if r.code != 1 || !strings.Contains(r.stderr, "not installed: "+tc.id) || !strings.Contains(r.stderr, tc.want) {
			t.Errorf("install --allow-unverified %s: exit %d\n%s%s", tc.id, r.code, r.stdout, r.stderr)
		}
	}

	r := parleyIn(t, dir, env, "", "agents", "install", "--help")
	if !strings.Contains(r.stdout, "--allow-unverified") || !strings.Contains(r.stdout, "nothing could show that it is the one the registry lists") {
		t.Errorf("install --help does not say what --allow-unverified means:\n%s", r.stdout)
	}
	r = parleyIn(t, dir, env, "", "agents", "install", "--allow-unverified", "no-sum")
	if r.code != 0 || !strings.Contains(r.stdout, "Installed no-sum 1.0.0") || !strings.Contains(r.stderr, "warning: the registry gives no sha256 for no-sum") || !strings.Contains(r.stderr, "installed unverified") {
		t.Fatalf("install --allow-unverified: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if r := parleyIn(t, dir, env, "", "run", "--agent", "no-sum", "flood 2"); r.code != 0 || r.stdout != "0 1 \n" {
		t.Errorf("run the agent installed unverified: exit %d, stdout %q, stderr %s", r.code, r.stdout, r.stderr)
	}

	// An update to a version without a checksum is refused the same way.
	reg.binary("no-sum", "1.1.0", "a.tar.gz", good, "agent", nil, "")
	if r := parleyIn(t, dir, env, "", "agents", "update", "no-sum"); r.code != 0 {
		t.Fatalf("update to a checked version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	reg.binary("no-sum", "1.2.0", "a.tar.gz", good, "agent", nil, "")
	reg.setTarget("no-sum", "sha256", nil)
	r = parleyIn(t, dir, env, "", "agents", "update", "no-sum")
	if r.code != 1 || !strings.Contains(r.stderr, "refusing no-sum: the registry gives no sha256") {
		t.Errorf("update to an unchecked version: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if installed, _ := registry.ReadInstalled(agentsDataDir(home)); installed["no-sum"].Version != "1.1.0" {
		t.Errorf("a refused update changed the installed version: %+v", installed["no-sum"])
	}
	r = parleyIn(t, dir, env, "", "agents", "update", "--allow-unverified", "no-sum")
	if r.code != 0 || !strings.Contains(r.stdout, "Updated no-sum from 1.1.0 to 1.2.0") || !strings.Contains(r.stderr, "installed unverified") {
		t.Errorf("update --allow-unverified: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
}

// TestAgentsInstallSaysAnUnpinnedPackage: an npx distribution that names no exact
// version is installed, and parley says that npx fetches whatever is newest.
func TestAgentsInstallSaysAnUnpinnedPackage(t *testing.T) {
	t.Parallel()
	reg := newTestRegistry(t)
	reg.npx("loose", "@parley-test/loose", "--acp")
	reg.npx("ranged", "@parley-test/ranged@^1.0.0")
	reg.npx("pinned", "@parley-test/pinned@1.0.0")
	env, _ := registryEnv(t, reg)
	dir := t.TempDir()
	r := parleyIn(t, dir, env, "", "agents", "install", "loose", "ranged", "pinned")
	if r.code != 0 {
		t.Fatalf("install: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	for _, want := range []string{"pins no exact version of loose (@parley-test/loose): npx fetches the newest @parley-test/loose", "pins no exact version of ranged"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("install does not say %q:\n%s", want, r.stderr)
		}
	}
	if strings.Contains(r.stderr, "of pinned") {
		t.Errorf("a pinned package is said to be unpinned:\n%s", r.stderr)
	}
}
