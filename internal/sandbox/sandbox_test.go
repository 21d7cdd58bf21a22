//go:build linux

package sandbox

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/creack/pty"
)

// TestMain lets the test binary play `parley sandbox-exec`: Wrap names it as the binary,
// and it confines itself and runs the command.
func TestMain(m *testing.M) {
	switch os.Getenv("PARLEY_SANDBOX_TEST") {
	case "probe":
		probe(os.Args[1:])
		os.Exit(0)
	case "landlock-only":
		if err := restrictLandlock(ABI(), Rules{Write: []string{os.Getenv("PARLEY_SANDBOX_WRITE")}}); err != nil {
			fmt.Println("restrict:", err)
			os.Exit(1)
		}
		probe(os.Args[1:])
		os.Exit(0)
	}
	if os.Getenv("PARLEY_SANDBOX_TEST") == "exec" {
		r, args := parseRules(os.Args[1:])
		err := Exec(r, args)
		os.Stderr.WriteString(err.Error() + "\n")
		os.Exit(111)
	}
	os.Exit(m.Run())
}

// parseRules reads Rules.Args back, as sandbox-exec does, and returns the command after
// "--".
func parseRules(args []string) (Rules, []string) {
	var r Rules
	for len(args) >= 2 && args[0] != "--" {
		switch args[0] {
		case "--tmp":
			r.Tmp = args[1]
		case "--write":
			r.Write = append(r.Write, args[1])
		case "--deny-read":
			r.DenyRead = append(r.DenyRead, args[1])
		case "--tcp-connect":
			r.LimitNet = true
			r.ConnectTCP, _ = ParsePorts(args[1])
		}
		args = args[2:]
	}
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	return r, args
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

// probe tries each action and prints "action arg: ok" or "action arg: why not", one per
// line:
//
//	dial ADDRESS     connect to a Unix socket (@NAME: an abstract one)
//	tcp HOST:PORT    connect over TCP
//	serve PATH       listen on a Unix socket at PATH, and connect to it
//	socket           create a Unix socket
//	socketpair       create a connected pair of Unix sockets
//	inet             create a TCP socket
//	signal PID       signal 0 to PID (is it there, and may I?)
//	open PATH        open PATH to read and write
//	read PATH        open PATH to read
//	env NAME         print the variable ("env NAME: unset" when it is)
func probe(args []string) {
	for len(args) > 0 {
		action, arg := args[0], ""
		args = args[1:]
		if action != "socket" && action != "socketpair" && action != "inet" && len(args) > 0 {
			arg, args = args[0], args[1:]
		}
		var err error
		switch action {
		case "tcp":
			var c net.Conn
			if c, err = net.Dial("tcp", arg); err == nil {
				c.Close()
			}
		case "dial":
			var c net.Conn
			if c, err = net.Dial("unix", arg); err == nil {
				c.Close()
			}
		case "serve":
			var l net.Listener
			if l, err = net.Listen("unix", arg); err == nil {
				var c net.Conn
				if c, err = net.Dial("unix", arg); err == nil {
					c.Close()
				}
				l.Close()
			}
		case "socket", "inet":
			family := syscall.AF_UNIX
			if action == "inet" {
				family = syscall.AF_INET
			}
			var fd int
			if fd, err = syscall.Socket(family, syscall.SOCK_STREAM, 0); err == nil {
				syscall.Close(fd)
			}
		case "socketpair":
			var fds [2]int
			if fds, err = syscall.Socketpair(syscall.AF_UNIX, syscall.SOCK_STREAM, 0); err == nil {
				syscall.Close(fds[0])
				syscall.Close(fds[1])
			}
		case "signal":
			pid, _ := strconv.Atoi(arg)
			err = syscall.Kill(pid, 0)
		case "open", "read":
			flag := os.O_RDWR
			if action == "read" {
				flag = os.O_RDONLY
			}
			var f *os.File
			if f, err = os.OpenFile(arg, flag|syscall.O_NOCTTY|syscall.O_NONBLOCK, 0); err == nil {
				f.Close()
			}
		case "env":
			if v, ok := os.LookupEnv(arg); ok {
				fmt.Printf("env %s: %q\n", arg, v)
			} else {
				fmt.Printf("env %s: unset\n", arg)
			}
			continue
		}
		if err != nil {
			fmt.Printf("%s %s: %v\n", action, arg, err)
		} else {
			fmt.Printf("%s %s: ok\n", action, arg)
		}
	}
}

// probeConfined runs probe confined to writing in workspace, with env added to the
// environment, and returns what it said, by action.
func probeConfined(t *testing.T, workspace string, env []string, args ...string) map[string]string {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	p := &Policy{exe: exe}
	name, wrapped := p.Wrap([]string{workspace}, "env", append([]string{"PARLEY_SANDBOX_TEST=probe", exe}, args...))
	cmd := exec.Command(name, wrapped[1:]...) // the test binary has no subcommands
	cmd.Env = append(append(os.Environ(), env...), "PARLEY_SANDBOX_TEST=exec")
	cmd.Dir = workspace
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	said := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		said[k] = v
	}
	return said
}

// TestConfinedCommandReachesNoServerOutside: servers the test runs outside the sandbox,
// on a Unix socket by path and an abstract one, cannot be reached from inside; neither
// can the test be signalled, nor a terminal opened, nor the variables naming servers
// read. What needs none of that keeps working.
func TestConfinedCommandReachesNoServerOutside(t *testing.T) {
	abi := ABI()
	if abi == 0 {
		t.Skip("this kernel offers no Landlock")
	}
	workspace, outside := t.TempDir(), t.TempDir()
	path := filepath.Join(outside, "server.sock")
	abstract := fmt.Sprintf("@parley-sandbox-test-%d", os.Getpid())
	for _, addr := range []string{path, abstract} {
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
	}
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	defer tty.Close()
	own := filepath.Join(workspace, "own.sock")
	pid := strconv.Itoa(os.Getpid())

	said := probeConfined(t, workspace, []string{"TMUX=" + filepath.Join(t.TempDir(), "tmux-0", "default") + ",1,0", "SSH_AUTH_SOCK=" + path, "DBUS_SESSION_BUS_ADDRESS=unix:path=" + path, "KEEP_ME=yes"},
		"dial", path, "dial", abstract, "signal", pid, "signal", "1", "serve", own,
		"socketpair", "inet", "open", tty.Name(), "read", tty.Name(), "open", "/dev/ptmx",
		"open", "/dev/null", "read", "/dev/urandom", "read", "/etc/hostname",
		"env", "TMUX", "env", "SSH_AUTH_SOCK", "env", "DBUS_SESSION_BUS_ADDRESS", "env", "KEEP_ME")
	t.Logf("Landlock ABI %d; the confined command said %q", abi, said)
	refused := []string{"dial " + path, "open " + tty.Name(), "read " + tty.Name(), "open /dev/ptmx"}
	allowed := []string{"socketpair ", "inet ", "open /dev/null", "read /dev/urandom", "read /etc/hostname"}
	if abi >= abiScopes {
		refused = append(refused, "dial "+abstract, "signal "+pid, "signal 1")
	}
	// A server of its own: Landlock ABI 9 lets it be reached; before, seccomp refuses
	// every Unix socket (it cannot tell where connect goes).
	if abi >= abiResolveUnx {
		allowed = append(allowed, "serve "+own)
	} else {
		refused = append(refused, "serve "+own)
	}
	for _, k := range refused {
		if v, ok := said[k]; !ok || v == "ok" {
			t.Errorf("%s: %q, want it refused", k, v)
		}
	}
	for _, k := range allowed {
		if v := said[k]; v != "ok" {
			t.Errorf("%s: %q, want ok", k, v)
		}
	}
	for _, name := range []string{"TMUX", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS"} {
		if v := said["env "+name]; v != "unset" {
			t.Errorf("%s reached the confined command: %s", name, v)
		}
	}
	if v := said["env KEEP_ME"]; v != `"yes"` {
		t.Errorf("an ordinary variable did not reach the confined command: %s", v)
	}
}

// TestConfinedDevelopmentToolsWork: what a coding agent runs most keeps working under the
// confinement, Unix sockets refused and terminals out of reach included: git, a Go build,
// npm test (whose script forks a Node child that talks to it over a socketpair).
func TestConfinedDevelopmentToolsWork(t *testing.T) {
	if ABI() == 0 {
		t.Skip("this kernel offers no Landlock")
	}
	cache, err := os.UserCacheDir()
	if err != nil {
		t.Skip("no cache directory")
	}
	for _, tc := range []struct {
		name, tool, line, want string
		files                  map[string]string
	}{
		{
			name: "git", tool: "git",
			line: `git init -q . && echo hi > a && git add a && git -c user.name=t -c user.email=t@example.com commit -qm first && git status --short && git log --format=%s`,
			want: "first",
		},
		{
			name: "go build", tool: "go",
			files: map[string]string{"go.mod": "module example.com/hello\n\ngo 1.22\n", "main.go": "package main\n\nimport \"fmt\"\n\nfunc main() { fmt.Println(\"built and ran\") }\n"},
			line:  `go build -buildvcs=false -o hello . && ./hello`, // no VCS stamp: a .git above $TMPDIR must not matter
			want:  "built and ran",
		},
		{
			name: "npm test", tool: "npm",
			files: map[string]string{
				"package.json": `{"name":"t","version":"1.0.0","scripts":{"test":"node test.js"}}`,
				"test.js": `const {fork, spawnSync} = require('child_process');
if (process.argv[2] === 'child') { process.on('message', m => { process.send(m + ' back'); process.exit(0); }); }
else {
  const out = spawnSync('node', ['-e', 'process.stdout.write("spawned")']).stdout.toString();
  const c = fork(__filename, ['child']);
  c.on('message', m => { console.log(out + ' and ' + m); });
  c.send('forked');
}`,
			},
			line: `npm test`,
			want: "spawned and forked back",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := exec.LookPath(tc.tool); err != nil {
				t.Skip(tc.tool + " is not installed")
			}
			workspace, tmp := t.TempDir(), t.TempDir()
			for name, content := range tc.files {
				if err := os.WriteFile(filepath.Join(workspace, name), []byte(content), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			out, err := runConfined(t, workspace, tc.line, tmp, cache)
			if err != nil || !strings.Contains(out, tc.want) {
				t.Errorf("%v; want %q in the output:\n%s", err, tc.want, out)
			}
		})
	}
}

// TestLandlockScopesAbstractSocketsAndSignals: Landlock alone (without the seccomp filter
// that refuses Unix sockets before ABI 9) keeps abstract sockets and signals inside the
// sandbox from ABI 6 on; a socket by path is its business from ABI 9 on only.
func TestLandlockScopesAbstractSocketsAndSignals(t *testing.T) {
	abi := ABI()
	if abi < abiScopes {
		t.Skipf("this kernel's Landlock (ABI %d) has no scopes", abi)
	}
	workspace := t.TempDir()
	path := filepath.Join(t.TempDir(), "server.sock")
	abstract := fmt.Sprintf("@parley-landlock-test-%d", os.Getpid())
	for _, addr := range []string{path, abstract} {
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		defer l.Close()
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	pid := strconv.Itoa(os.Getpid())
	cmd := exec.Command(exe, "dial", abstract, "signal", pid, "dial", path, "serve", filepath.Join(workspace, "own.sock"))
	cmd.Env = append(os.Environ(), "PARLEY_SANDBOX_TEST=landlock-only", "PARLEY_SANDBOX_WRITE="+workspace)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%v\n%s", err, out)
	}
	said := map[string]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		k, v, _ := strings.Cut(line, ": ")
		said[k] = v
	}
	t.Logf("Landlock ABI %d alone: %q", abi, said)
	if v := said["dial "+abstract]; v == "ok" || v == "" {
		t.Errorf("an abstract socket outside was reached: %q", v)
	}
	if v := said["signal "+pid]; v == "ok" || v == "" {
		t.Errorf("a process outside was signalled: %q", v)
	}
	if v := said["serve "+filepath.Join(workspace, "own.sock")]; v != "ok" {
		t.Errorf("a server of its own: %q", v)
	}
	wantPath := "ok" // what the seccomp filter is for
	if abi >= abiResolveUnx {
		wantPath = "refused"
	}
	if v := said["dial "+path]; (v == "ok") != (wantPath == "ok") {
		t.Errorf("a socket by path outside, with Landlock alone: %q, want %s", v, wantPath)
	}
}
