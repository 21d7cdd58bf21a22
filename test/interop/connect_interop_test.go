package interop

import (
	"bufio"
	"bytes"
	"context"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/testbin"
)

// acpx (npm, pinned in acpx/package.json), a real ACP client, runs a prompt against a parley
// server elsewhere through `parley acp --connect`: its agent command is the relay, the
// token in $PARLEY_TOKEN, and Eliza's reply comes back.
func TestAcpxThroughConnect(t *testing.T) {
	requirePeers(t)
	cli := filepath.Join(interopDir(t), "acpx", "node_modules", "acpx", "dist", "cli.js")
	if _, err := os.Stat(cli); err != nil {
		if os.Getenv("PARLEY_INTEROP") == "1" {
			t.Fatalf("acpx is not installed (%v): run `npm install --prefix test/interop/acpx`", err)
		}
		t.Skipf("acpx is not installed (%v); set PARLEY_INTEROP=1 to make this a failure", err)
	}
	parley := parleyBinary(t)
	env := append(os.Environ(), testbin.HomeEnv(tempDir(t))...)
	ws := tempDir(t)

	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second) // a hang guard
	defer cancel()
	web := exec.CommandContext(ctx, parley, "web", "--no-open", "--agent", "eliza", "--cwd", ws)
	web.Env = env
	var webErr bytes.Buffer
	web.Stderr = &webErr
	out, err := web.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := web.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() {
		web.Process.Signal(os.Interrupt)
		web.Wait()
	}()
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		t.Fatalf("parley web printed no address: %v\n%s", err, webErr.String())
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil {
		t.Fatalf("parley web printed %q", line)
	}
	token := u.Query().Get("token")
	base := u.Scheme + "://" + u.Host + "/"

	// The session's cwd is the server's workspace here: what a cwd of the client's own
	// machine does is cmd/parley's TestConnect* tests'.
	cmd := exec.CommandContext(ctx, "node", cli, "--agent", parley+" acp --connect "+base,
		"--cwd", ws, "--approve-all", "--format", "quiet", "--timeout", "60", "exec", "slowly hello from acpx")
	cmd.Env = append(env, "PARLEY_TOKEN="+token)
	cmd.Dir = ws
	cmd.WaitDelay = 2 * time.Second
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("acpx through parley acp --connect: %v\nstdout:\n%s\nstderr:\n%s\nparley web:\n%s", err, stdout.String(), stderr.String(), webErr.String())
	}
	// Eliza's "slowly" streams its text back a word at a time.
	if reply := strings.TrimSpace(stdout.String()); reply != "hello from acpx" {
		t.Errorf("acpx printed %q; want Eliza's reply, hello from acpx\nstderr:\n%s", reply, stderr.String())
	}
}
