//go:build linux

package realagents

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// signInCase is how an agent that needs an account asks for a sign-in, and how it signs
// in offline.
type signInCase struct {
	method    string   // the method that signs in offline
	noAccount []string // variables to leave out for the agent to ask for a sign-in
	signingIn []string // variables to leave out while parley login signs in
}

// ownScenarios are the scenarios only some agents have.
func (a *agentDef) ownScenarios() []scenario {
	if a.signIn == nil {
		return nil
	}
	return []scenario{{"signin/login", signInLogin}}
}

// signInLogin: without an account parley run exits 6 at once, naming the method and the
// command that signs in with it; parley login signs in with it (authenticate); then run
// gets its reply.
func signInLogin(t *testing.T, sb *sandbox) {
	c := sb.agent.signIn
	full := sb.env
	sb.env = without(full, c.noAccount...)
	r := sb.runParley(t, "--agent-timeout", "60s", markPlain+" Say hello.")
	if code := r.exitStatus(); code != 6 || !strings.Contains(r.errb.String(), "--method "+c.method) || !strings.Contains(r.errb.String(), "parley login --agent-command") {
		t.Fatalf("exit %d; want 6 and the login command for %s\n%s", code, c.method, r)
	}

	sb.env = without(full, c.signingIn...)
	sb.frames = filepath.Join(sb.root, "tee", "frames-login.jsonl") // this run's frames alone
	stdout, stderr, code := sb.parleyHere(t, "login", "--agent-command", sb.agentCommand(), "--cwd", sb.workspace, "--method", c.method)
	if code != 0 || !strings.Contains(stderr, "Signed in to") {
		t.Fatalf("login: exit %d\nstdout:\n%s\nstderr:\n%s%s", code, stdout, stderr, sb.agentLog())
	}
	frames := sb.recordedFrames(t)
	var auth []frame
	for _, f := range frames {
		if f.Dir == "to-agent" && f.Msg.Method == "authenticate" {
			auth = append(auth, f)
		}
	}
	if len(auth) != 1 || auth[0].Msg.Params["methodId"] != c.method {
		t.Fatalf("parley sent %d authenticate requests, want one for %s: %v", len(auth), c.method, auth)
	}
	if resp, ok := responseTo(frames, auth[0]); !ok || resp.Msg.Error != nil {
		t.Fatalf("the agent did not sign in: %v", resp)
	}
	sb.requireValidFrames(t)

	sb.env = full
	r = sb.runParley(t, markPlain+" Say hello.")
	if code := r.exitStatus(); code != 0 || !strings.Contains(r.out.String(), plainReply) {
		t.Errorf("run after login: exit %d; want 0 and %q\n%s", code, plainReply, r)
	}
}

// without is env less the named variables.
func without(env []string, names ...string) []string {
	return slices.DeleteFunc(slices.Clone(env), func(kv string) bool {
		name, _, _ := strings.Cut(kv, "=")
		return slices.Contains(names, name)
	})
}

// parleyHere runs a parley command in the sandbox's workspace, stdin from /dev/null, to its end.
func (sb *sandbox) parleyHere(t testing.TB, args ...string) (stdout, stderr string, code int) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, parleyBinary(t), args...)
	cmd.Env, cmd.Dir = sb.env, sb.workspace
	var out, errb bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errb
	null, err := os.Open(os.DevNull)
	if err != nil {
		t.Fatal(err)
	}
	defer null.Close()
	cmd.Stdin = null
	cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("parley %s hung\n%s", args[0], errb.String())
	}
	return out.String(), errb.String(), cmd.ProcessState.ExitCode()
}
