package main

// Issue 16: commands cannot reach the user's terminal. The intruder (intruder_linux_test.go)
// plays a command that pushes input into parley's terminal, writes escape sequences there,
// outlives parley to type into the shell, and asks servers outside its sandbox to act.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/llm/fakellm"
	"github.com/parley-acp/parley/internal/sandbox"
)

// intruderCommand is the intruder as a command line an agent can run.
func intruderCommand(t *testing.T, args ...string) string {
	return strings.Join(append([]string{"env", "PARLEY_TEST_ROLE=intruder", self(t)}, args...), " ")
}

// noRawEscapes fails when the terminal received the intruder's escape sequences as they
// are (parley itself shows an agent's escapes as ␛).
func noRawEscapes(t *testing.T, shown string) {
	t.Helper()
	for _, esc := range []string{oscClipboard, oscTitle} {
		if strings.Contains(shown, esc) {
			t.Errorf("the escape sequence %q reached the terminal", esc)
		}
	}
}

// TestChatCommandCannotAnswerTheNextQuestion: a command started through terminal/create
// pushes "y" into parley's terminal and writes escape sequences there; the critical
// question that follows is answered by what the user types, not by that "y".
func TestChatCommandCannotAnswerTheNextQuestion(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	term := w.chat(t)
	term.typeLine(`seq run 4096 ` + intruderCommand(t, "tty", "y") + ` ;; ask rm -rf "$PWD"`)
	term.expect("The agent asks permission")
	term.expect("critical")
	term.expect("? ")
	term.typeLine("n")
	if got := term.expectEither("chose reject_once", "chose allow_once"); got != "chose reject_once" {
		t.Errorf("the question was answered by the command's input: %s", got)
	}
	term.typeLine("/quit")
	term.wait(t, 0)
	shown := term.since(0)
	if !strings.Contains(shown, "devtty=refused") || strings.Contains(shown, "tiocsti=ok") || strings.Contains(shown, "=terminal") {
		t.Errorf("the command reached the terminal:\n%s", shown)
	}
	noRawEscapes(t, shown)
}

// TestChatTypeAheadDoesNotAnswerAQuestion: lines typed while the turn runs, before the
// question is shown, do not answer it.
func TestChatTypeAheadDoesNotAnswerAQuestion(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fifo := filepath.Join(w.dir, "go-on")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	term := w.chat(t)
	term.typeLine(`seq run 100 cat ` + fifo + ` ;; ask rm -rf "$PWD"`)
	term.typeLine("y") // held by the reader of the input…
	term.typeLine("y") // …or still in the terminal
	// The command ends once the FIFO is opened and closed: only then can the question come.
	opened := make(chan error, 1)
	go func() {
		f, err := os.OpenFile(fifo, os.O_WRONLY, 0)
		if err == nil {
			f.Close()
		}
		opened <- err
	}()
	select {
	case err := <-opened:
		if err != nil {
			t.Fatal(err)
		}
	case <-time.After(20 * time.Second): // a hang guard
		t.Fatalf("the command never opened the FIFO; the terminal shows:\n%s", term.out.String())
	}
	term.expect("The agent asks permission")
	term.expect("? ")
	term.typeLine("n")
	if got := term.expectEither("chose reject_once", "chose allow_once"); got != "chose reject_once" {
		t.Errorf("a line typed before the question answered it: %s", got)
	}
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestChatParleyAgentCommandCannotDeleteTheWorkspace is the worst case: in parley
// chat with parley agent, a command the agent runs unasked pushes "y" into the terminal,
// and the next command is `rm -rf "$PWD"`, which asks. The workspace survives.
func TestChatParleyAgentCommandCannotDeleteTheWorkspace(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fake := fakellm.New(t,
		fakellm.Reply{ToolCalls: []llm.ToolCall{runTool(intruderCommand(t, "tty", "y"))}},
		fakellm.Reply{ToolCalls: []llm.ToolCall{runTool(`rm -rf "$PWD"`)}},
		fakellm.Reply{Content: []string{"I left the workspace alone."}},
	)
	// --yolo: whatever the judge thinks of the intruder, it runs unasked; the critical
	// command asks all the same.
	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-command", agentCommand(t, "ollama:m", fake.URL())+" --yolo")
	term.expect("is ready")
	term.typeLine("tidy up")
	term.expect("The agent asks permission")
	term.expect("critical")
	term.expect("? ")
	term.typeLine("n")
	term.expect("I left the workspace alone.")
	term.typeLine("/quit")
	term.wait(t, 0)
	if _, err := os.Stat(filepath.Join(w.dir, "a.txt")); err != nil {
		t.Errorf("the workspace is gone: %v", err)
	}
	results := toolResults(fake)
	if len(results) != 2 || !strings.Contains(results[0], "devtty=refused") || !strings.Contains(results[1], "rejected") {
		t.Errorf("the model was told %q", results)
	}
	noRawEscapes(t, term.since(0))
}

// TestAgentLocalCommandCannotReachTheAgentsTerminal: parley agent started with a
// controlling terminal (by a client that has one) runs a command itself (the client
// offers no terminal); the command cannot type into that terminal or write to it.
func TestAgentLocalCommandCannotReachTheAgentsTerminal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	fake := fakellm.New(t,
		fakellm.Reply{ToolCalls: []llm.ToolCall{runTool(intruderCommand(t, "tty", "typed-by-the-command"))}},
		fakellm.Reply{Content: []string{"Done."}},
	)
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	var shown strings.Builder
	var reading sync.WaitGroup
	reading.Go(func() { // until every holder of the terminal is gone (EIO)
		buf := make([]byte, 4096)
		for {
			n, err := ptm.Read(buf)
			shown.Write(buf[:n])
			if err != nil {
				return
			}
		}
	})
	p := startAgentWith(t, w.dir, w.env, fake, func(cmd *exec.Cmd) {
		cmd.Stderr = tty
		cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 2}
	}, "--yolo")
	tty.Close()
	p.prompt(t, p.newSession(t, w.dir), "look around")
	p.stop()
	reading.Wait()
	results := toolResults(fake)
	if len(results) != 1 || !strings.Contains(results[0], "devtty=refused") || strings.Contains(results[0], "=terminal") {
		t.Errorf("the command said %q", results)
	}
	if strings.Contains(shown.String(), "typed-by-the-command") {
		t.Errorf("the command typed into the agent's terminal:\n%s", shown.String())
	}
	noRawEscapes(t, shown.String())
}

// TestChatLeavesNothingToTypeAfterItExits: a command leaves a process out of its group
// and without parley's marker, which waits for parley to exit and then types into the
// terminal, where the user's shell reads next. It does not outlive parley, and the
// shell reads only what the user types.
func TestChatLeavesNothingToTypeAfterItExits(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	shell := `"$@"; echo parley-exited; read line; echo "the shell read: [$line]"`
	cmd := exec.Command("sh", "-c", shell, "sh", self(t), "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	term := startTerminalCmd(t, cmd, w.dir, w.env)
	term.expect("is ready")
	term.typeLine("run 100 " + intruderCommand(t, "leave", w.dir))
	term.expect("exit 0")
	data, err := os.ReadFile(filepath.Join(w.dir, "linger.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	term.typeLine("/quit")
	term.expect("parley-exited")
	if !waitProcessEnd(t, pid, 10*time.Second) {
		t.Fatalf("the process %d the command left outlived parley", pid)
	}
	if b, err := os.ReadFile(filepath.Join(w.dir, "linger.result")); err == nil {
		t.Errorf("the process the command left acted after parley exited: %s", b)
	}
	term.typeLine("typed-by-the-user")
	if got := term.expectEither("the shell read: [typed-by-the-user]", "the shell read: [typed-after-exit]"); got != "the shell read: [typed-by-the-user]" {
		t.Errorf("%s", got)
	}
}

// TestRunConfinedCommandReachesNoServerOutside: a command in parley's terminal, under the
// sandbox, asks servers the user runs outside it (one on a Unix socket by path, one on an
// abstract socket, a real tmux) to act for it, and signals parley. None of it works, and
// the variables naming such servers are not passed on.
func TestRunConfinedCommandReachesNoServerOutside(t *testing.T) {
	t.Parallel()
	if sandbox.ABI() == 0 {
		t.Skip("this kernel offers no Landlock")
	}
	w := newWorkspace(t)
	path := filepath.Join(w.outside, "server.sock")
	abstract := fmt.Sprintf("@parley-test-%d", os.Getpid())
	accepted := make(chan string, 2)
	for _, addr := range []string{path, abstract} {
		l, err := net.Listen("unix", addr)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { l.Close() })
		go func() {
			for {
				c, err := l.Accept()
				if err != nil {
					return
				}
				c.Close()
				accepted <- addr
			}
		}()
	}
	lines := []string{
		"run 4096 " + intruderCommand(t, "dial", path, abstract),
		"run 4096 sh -c '" + intruderCommand(t, "signal", "$PPID") + "'",
		"run 4096 " + intruderCommand(t, "env", "TMUX", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS", "HOME"),
	}
	pwned := filepath.Join(w.outside, "pwned")
	tmuxSocket := filepath.Join(w.outside, "tmux.sock")
	if _, err := exec.LookPath("tmux"); err == nil {
		start := exec.Command("tmux", "-S", tmuxSocket, "-f", "/dev/null", "new-session", "-d", "sleep 600")
		if out, err := start.CombinedOutput(); err != nil {
			t.Fatalf("starting tmux: %v\n%s", err, out)
		}
		t.Cleanup(func() { exec.Command("tmux", "-S", tmuxSocket, "kill-server").Run() })
		lines = append(lines, "run 4096 sh -c 'tmux -S "+tmuxSocket+" run-shell \"touch "+pwned+"\"'")
	} else {
		t.Log("tmux is not installed: only the test's own servers")
	}
	env := append(w.env, "TMUX="+tmuxSocket+",1,0", "SSH_AUTH_SOCK="+path, "DBUS_SESSION_BUS_ADDRESS=unix:path="+path)
	r := parleyIn(t, w.dir, env, strings.Join(lines, "\n"), "run", "--agent-command", fakeAgentCommand(t, "scripted"), "-")
	if r.code != 0 {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	t.Logf("the commands said:\n%s", r.stdout)
	if strings.Contains(r.stdout, "connected") || strings.Contains(r.stdout, "signal: delivered") {
		t.Error("a confined command reached outside")
	}
	for _, name := range []string{"TMUX", "SSH_AUTH_SOCK", "DBUS_SESSION_BUS_ADDRESS"} {
		if !strings.Contains(r.stdout, name+"= ") {
			t.Errorf("%s reached the confined command", name)
		}
	}
	if !strings.Contains(r.stdout, "HOME=/") {
		t.Error("an ordinary variable did not reach the confined command")
	}
	if _, err := os.Stat(pwned); err == nil {
		t.Error("tmux ran a command for the confined one")
	}
	select {
	case addr := <-accepted:
		t.Errorf("the server on %s accepted a connection", addr)
	default:
	}
}

// startTerminalCmd runs cmd on a pseudo-terminal, as startTerminalIn does parley.
func startTerminalCmd(t *testing.T, cmd *exec.Cmd, dir string, env []string) *terminal {
	t.Helper()
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley", "TERM=dumb"), env...)
	cmd.Dir = dir
	return startOnPty(t, cmd)
}
