package registry

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

func TestPlatform(t *testing.T) {
	for in, want := range map[[2]string]string{
		{"linux", "amd64"}: "linux-x86_64", {"darwin", "arm64"}: "darwin-aarch64", {"windows", "amd64"}: "windows-x86_64",
	} {
		if got := platformOf(in[0], in[1]); got != want {
			t.Errorf("%v: %s, want %s", in, got, want)
		}
	}
}

func TestParseIndexLeavesOutBrokenEntries(t *testing.T) {
	idx, skipped, err := ParseIndex([]byte(`{"version":"1.0.0","agents":[
		{"id":"good","name":"Good","version":"1.0.0","description":"d","distribution":{"npx":{"package":"good@1.0.0"}}},
		{"id":"Bad Id","name":"x","version":"1","distribution":{"npx":{"package":"x"}}},
		{"id":"nodist","name":"x","version":"1","distribution":{}},
		{"id":"badsum","name":"x","version":"1","distribution":{"binary":{"linux-x86_64":{"archive":"https://x/a.zip","cmd":"a","sha256":"zz"}}}},
		{"id":"good","name":"again","version":"2","distribution":{"npx":{"package":"good@2"}}},
		{"id":"flag","name":"x","version":"1","distribution":{"npx":{"package":"--registry=evil"}}}
	]}`))
	if err != nil {
		t.Fatal(err)
	}
	if len(idx.Agents) != 1 || idx.Agents[0].ID != "good" {
		t.Errorf("agents: %+v", idx.Agents)
	}
	if len(skipped) != 5 {
		t.Errorf("skipped: %q", skipped)
	}
	if _, _, err := ParseIndex([]byte(`{"nothing":1}`)); err == nil {
		t.Error("an index without agents is accepted")
	}
}

func TestPackageNameAndVersion(t *testing.T) {
	for spec, want := range map[string][2]string{
		"@scope/name@1.2.3": {"@scope/name", "1.2.3"}, "name@1.0.0": {"name", "1.0.0"}, "@scope/name": {"@scope/name", ""},
		"name": {"name", ""}, "tool==0.4.1": {"tool", "0.4.1"}, "tool>=1": {"tool", ""},
	} {
		if n, v := PackageName(spec), PackageVersion(spec); n != want[0] || v != want[1] {
			t.Errorf("%s: %s %s, want %v", spec, n, v, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	for _, ok := range []string{"https://example.com/r.json", "http://127.0.0.1:8080/r.json", "http://[::1]/r", "http://localhost:1/r"} {
		if err := CheckURL(ok); err != nil {
			t.Errorf("%s: %v", ok, err)
		}
	}
	for _, bad := range []string{"http://example.com/r.json", "ftp://127.0.0.1/r", "file:///etc/passwd", "http://10.0.0.1/r"} {
		if err := CheckURL(bad); err == nil {
			t.Errorf("%s is accepted", bad)
		}
	}
}

const oneAgent = `{"version":"1.0.0","agents":[{"id":"a","name":"A","version":"%s","description":"d","distribution":{"npx":{"package":"a@%[1]s"}}}]}`

// TestLoaderFetchesOnceADay: a fresh copy is used without asking; an old one is checked
// with its ETag; an unreachable registry falls back to the copy and says so.
func TestLoaderFetchesOnceADay(t *testing.T) {
	var requests, notModified atomic.Int32
	var version atomic.Value // the handler reads what the test sets
	version.Store("1.0.0")
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		v := version.Load().(string)
		etag := `"v` + v + `"`
		if r.Header.Get("If-None-Match") == etag {
			notModified.Add(1)
			w.WriteHeader(http.StatusNotModified)
			return
		}
		w.Header().Set("ETag", etag)
		fmt.Fprintf(w, oneAgent, v)
	}))
	now := time.Date(2026, 9, 1, 12, 0, 0, 0, time.UTC)
	l := &Loader{Location: srv.URL + "/registry.json", CacheDir: t.TempDir(), Now: func() time.Time { return now }}
	ctx := context.Background()
	load := func() *Loaded {
		t.Helper()
		got, err := l.Load(ctx, false)
		if err != nil {
			t.Fatal(err)
		}
		return got
	}
	if got := load(); got.Index.Agents[0].Version != "1.0.0" || requests.Load() != 1 {
		t.Fatalf("first load: %+v after %d requests", got.Index.Agents, requests.Load())
	}
	now = now.Add(23 * time.Hour)
	if load(); requests.Load() != 1 {
		t.Errorf("a copy younger than a day was fetched again")
	}
	now = now.Add(2 * time.Hour)
	if load(); requests.Load() != 2 || notModified.Load() != 1 {
		t.Errorf("an old copy: %d requests, %d not modified", requests.Load(), notModified.Load())
	}
	version.Store("1.1.0")
	if got, err := l.Load(ctx, true); err != nil || got.Index.Agents[0].Version != "1.1.0" {
		t.Errorf("refresh: %v %v", got, err)
	}
	srv.Close()
	now = now.Add(48 * time.Hour)
	got := load()
	if got.Offline == nil || got.Index.Agents[0].Version != "1.1.0" || !strings.Contains(got.Offline.Error(), "cannot reach the registry") {
		t.Errorf("offline: %+v", got)
	}
	l.CacheDir = t.TempDir()
	if _, err := l.Load(ctx, false); err == nil || !strings.Contains(err.Error(), "cannot reach the registry") {
		t.Errorf("offline without a copy: %v", err)
	}
}

// TestLoaderTimesOut: a registry that does not answer is given up on, with a clear error.
func TestLoaderTimesOut(t *testing.T) {
	release := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-release:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(release)
	l := &Loader{Location: srv.URL, Timeout: 50 * time.Millisecond}
	_, err := l.Load(context.Background(), false)
	if err == nil || !strings.Contains(err.Error(), "no answer within 50ms") {
		t.Errorf("got %v", err)
	}
}

func TestLoaderReadsAFile(t *testing.T) {
	path := filepath.Join(t.TempDir(), "registry.json")
	os.WriteFile(path, []byte(fmt.Sprintf(oneAgent, "2.0.0")), 0o600)
	got, err := (&Loader{Location: path}).Load(context.Background(), false)
	if err != nil || got.Index.Agents[0].Version != "2.0.0" || !got.FetchedAt.IsZero() {
		t.Errorf("%+v %v", got, err)
	}
	if _, err := (&Loader{Location: path + ".missing"}).Load(context.Background(), false); err == nil {
		t.Error("a missing file is no error")
	}
}

// TestInstallChecksumBeforeUnpacking: a wrong sha256 is refused and nothing is unpacked
// or recorded; the right one installs.
func TestInstallChecksumBeforeUnpacking(t *testing.T) {
	archive := tarGz(t, exe("bin/agent", "#!/bin/sh\n"))
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { w.Write(archive) }))
	defer srv.Close()
	sum := sha256.Sum256(archive)
	entry := func(sha string) Entry {
		return Entry{ID: "agent", Name: "Agent", Version: "1.0.0", Distribution: Distribution{Binary: map[string]BinaryTarget{
			Platform(): {Archive: srv.URL + "/agent.tar.gz", Cmd: "./bin/agent", Args: []string{"--acp"}, SHA256: sha,
				Env: map[string]string{"AGENT_MODE": "acp", "PATH": "/evil", "LD_PRELOAD": "x.so", "NODE_OPTIONS": "--require x"}},
		}}}
	}
	in := &Installer{Dir: t.TempDir()}
	_, err := in.Install(context.Background(), entry(strings.Repeat("0", 64)), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "sha256") || !strings.Contains(err.Error(), "nothing was unpacked") {
		t.Fatalf("a wrong checksum: %v", err)
	}
	if entries, _ := os.ReadDir(in.Dir); len(entries) != 0 {
		t.Errorf("left behind after a refused install: %v", entries)
	}
	rec, err := in.Install(context.Background(), entry(hex.EncodeToString(sum[:])), srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	if rec.Command != filepath.Join(in.Dir, "agent", "1.0.0", "bin", "agent") || len(rec.Args) != 1 {
		t.Errorf("record: %+v", rec)
	}
	if len(rec.Env) != 1 || rec.Env["AGENT_MODE"] != "acp" {
		t.Errorf("env kept: %v", rec.Env)
	}
	all, err := ReadInstalled(in.Dir)
	if err != nil || all["agent"].Version != "1.0.0" {
		t.Errorf("recorded: %v %v", all, err)
	}
	if _, err := in.Remove("agent"); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(in.Dir, "agent")); err == nil {
		t.Error("remove left the agent's files")
	}
}

// TestInstallPackageRunners: npx and uvx distributions are recorded as the command that
// runs them.
func TestInstallPackageRunners(t *testing.T) {
	in := &Installer{Dir: t.TempDir()}
	rec, err := in.Install(context.Background(), Entry{ID: "n", Version: "1.0.0", Distribution: Distribution{Npx: &Package{Package: "@s/n@1.0.0", Args: []string{"--acp"}, Env: map[string]string{"NPM_CONFIG_REGISTRY": "http://evil"}}}}, "r")
	if err != nil || rec.Kind != "npx" || rec.Command != npxCommand() || strings.Join(rec.Args, " ") != "--yes @s/n@1.0.0 --acp" || rec.Env != nil {
		t.Errorf("npx: %+v %v", rec, err)
	}
	rec, err = in.Install(context.Background(), Entry{ID: "u", Version: "1.0.0", Distribution: Distribution{Uvx: &Package{Package: "u==1.0.0", Args: []string{"acp"}}}}, "r")
	if err != nil || rec.Kind != "uvx" || rec.Command != "uvx" || strings.Join(rec.Args, " ") != "u==1.0.0 acp" {
		t.Errorf("uvx: %+v %v", rec, err)
	}
	_, err = in.Install(context.Background(), Entry{ID: "elsewhere", Version: "1", Distribution: Distribution{Binary: map[string]BinaryTarget{"plan9-mips": {Archive: "https://x/a", Cmd: "a"}}}}, "r")
	if err == nil || !strings.Contains(err.Error(), "plan9-mips") {
		t.Errorf("no distribution for this machine: %v", err)
	}
}

func TestPlumbing(t *testing.T) {
	for _, name := range []string{"PATH", "path", "HOME", "LD_PRELOAD", "DYLD_INSERT_LIBRARIES", "NODE_OPTIONS", "npm_config_registry", "PYTHONPATH", "XDG_CONFIG_HOME", "", "A=B"} {
		if !Plumbing(name) {
			t.Errorf("%q is not plumbing", name)
		}
	}
	for _, name := range []string{"ANTHROPIC_MODEL", "AGENT_MODE", "DEBUG"} {
		if Plumbing(name) {
			t.Errorf("%q is plumbing", name)
		}
	}
}

// TestInstallRefusesWhatCannotBeChecked: an archive without a sha256 (absent or empty) is
// refused before it is downloaded, unless AllowUnverified, which says what it did; a
// sha256 that is not 64 hex digits is refused whatever is allowed.
func TestInstallRefusesWhatCannotBeChecked(t *testing.T) {
	archive := tarGz(t, exe("bin/agent", "#!/bin/sh\n"))
	var requests atomic.Int32
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		requests.Add(1)
		w.Write(archive)
	}))
	defer srv.Close()
	entry := func(sha string) Entry {
		return Entry{ID: "agent", Name: "Agent", Version: "1.0.0", Distribution: Distribution{Binary: map[string]BinaryTarget{
			Platform(): {Archive: srv.URL + "/agent.tar.gz", Cmd: "./bin/agent", SHA256: sha},
		}}}
	}
	sum := sha256.Sum256(archive)
	good := hex.EncodeToString(sum[:])
	for _, allow := range []bool{false, true} {
		for _, sha := range []string{good[:63], good + "0", " " + good[1:], strings.Repeat("g", 64), good[:32]} {
			in := &Installer{Dir: t.TempDir(), AllowUnverified: allow}
			_, err := in.Install(context.Background(), entry(sha), srv.URL)
			if err == nil || !strings.Contains(err.Error(), "not 64 hex digits") {
				t.Errorf("allow %v, sha256 %q: %v", allow, sha, err)
			}
		}
	}
	in := &Installer{Dir: t.TempDir()}
	_, err := in.Install(context.Background(), entry(""), srv.URL)
	if err == nil || !strings.Contains(err.Error(), "no sha256") || !strings.Contains(err.Error(), "--allow-unverified") {
		t.Errorf("no sha256: %v", err)
	}
	if entries, _ := os.ReadDir(in.Dir); len(entries) != 0 {
		t.Errorf("left behind after a refused install: %v", entries)
	}
	if n := requests.Load(); n != 0 {
		t.Errorf("%d downloads of archives that were refused", n)
	}
	var said []string
	in = &Installer{Dir: t.TempDir(), AllowUnverified: true, Say: func(msg string) { said = append(said, msg) }}
	if _, err := in.Install(context.Background(), entry(""), srv.URL); err != nil {
		t.Fatalf("allowed unverified: %v", err)
	}
	if !strings.Contains(strings.Join(said, "\n"), "installed unverified") {
		t.Errorf("installed unverified without a word: %q", said)
	}
	// Allowing an archive without a checksum allows no wrong one.
	if _, err := in.Install(context.Background(), entry(strings.Repeat("0", 64)), srv.URL); err == nil || !strings.Contains(err.Error(), "sha256 is "+good) {
		t.Errorf("a wrong sha256 with AllowUnverified: %v", err)
	}
	if _, err := in.Install(context.Background(), entry(strings.ToUpper(good)), srv.URL); err != nil {
		t.Errorf("an upper-case sha256: %v", err)
	}
}

// TestUnpinnedPackagesAreSaid: npx and uvx specs without one exact version are said at
// install.
func TestUnpinnedPackagesAreSaid(t *testing.T) {
	for spec, want := range map[[2]string]bool{
		{"npx", "@s/a@1.2.3"}: true, {"npx", "a@1.2.3-beta.1"}: true, {"npx", "a@1.2.3+build.5"}: true,
		{"npx", "@s/a"}: false, {"npx", "a@latest"}: false, {"npx", "a@^1.2.3"}: false, {"npx", "a@1.2"}: false, {"npx", "a@1.x"}: false,
		{"uvx", "a==1.2"}: true, {"uvx", "a==1.2.3.post1"}: true, {"uvx", "a@0.4.1"}: true,
		{"uvx", "a"}: false, {"uvx", "a>=1"}: false, {"uvx", "a==1.*"}: false, {"uvx", "a~=1.2"}: false,
	} {
		if got := Pinned(spec[0], spec[1]); got != want {
			t.Errorf("Pinned(%s, %s) = %v", spec[0], spec[1], got)
		}
	}
	var said []string
	in := &Installer{Dir: t.TempDir(), Say: func(msg string) { said = append(said, msg) }}
	for _, e := range []Entry{
		{ID: "pinned", Version: "1", Distribution: Distribution{Npx: &Package{Package: "@s/pinned@1.0.0"}}},
		{ID: "loose", Version: "1", Distribution: Distribution{Npx: &Package{Package: "@s/loose"}}},
		{ID: "loose-uv", Version: "1", Distribution: Distribution{Uvx: &Package{Package: "loose-uv>=1"}}},
	} {
		if _, err := in.Install(context.Background(), e, "r"); err != nil {
			t.Fatal(err)
		}
	}
	got := strings.Join(said, "\n")
	if strings.Contains(got, "pinned") || !strings.Contains(got, "@s/loose") || !strings.Contains(got, "uvx fetches the newest loose-uv") {
		t.Errorf("said:\n%s", got)
	}
}

func TestWhyLeftOut(t *testing.T) {
	loaded, err := parseLoaded([]byte(`{"agents":[{"id":"badsum","version":"1","distribution":{"binary":{"linux-x86_64":{"archive":"https://x/a.zip","cmd":"a","sha256":"zz"}}}}]}`), "r", time.Time{}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if why := loaded.WhyLeftOut("badsum"); !strings.Contains(why, `sha256 "zz" is not 64 hex digits`) {
		t.Errorf("why: %q", why)
	}
	if why := loaded.WhyLeftOut("other"); why != "" {
		t.Errorf("an entry not left out: %q", why)
	}
}
