package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal is parley running on a pseudo-terminal, typed at the way a person would.
type terminal struct {
	t    *testing.T
	pty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	cond *sync.Cond
	out  bytes.Buffer // everything parley wrote
	seen int          // how much of out expect has consumed
	done bool
}

func startTerminal(t *testing.T, args ...string) *terminal {
	t.Helper()
	return startTerminalIn(t, t.TempDir(), isolatedXDG(t), args...)
}

func startTerminalIn(t *testing.T, dir string, env []string, args ...string) *terminal {
	t.Helper()
	cmd := exec.Command(self(t), args...)
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley", "TERM=dumb"), env...)
	cmd.Dir = dir
	return startOnPty(t, cmd)
}

// startOnPty starts cmd on a new pseudo-terminal (as its controlling terminal).
func startOnPty(t *testing.T, cmd *exec.Cmd) *terminal {
	t.Helper()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 40, Cols: 120})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, pty: f, cmd: cmd}
	term.cond = sync.NewCond(&term.mu)
	go func() {
		buf := make([]byte, 4096)
		for {
			n, err := f.Read(buf)
			term.mu.Lock()
			term.out.Write(buf[:n])
			if err != nil {
				term.done = true
			}
			term.cond.Broadcast()
			term.mu.Unlock()
			if err != nil {
				return
			}
		}
	}()
	t.Cleanup(func() {
		cmd.Process.Kill()
		cmd.Wait()
		f.Close()
	})
	return term
}

func (term *terminal) typeLine(s string) {
	term.t.Helper()
	if _, err := term.pty.Write([]byte(s + "\r")); err != nil {
		term.t.Fatal(err)
	}
}

// expect waits until parley has written want (after what earlier expects consumed). The
// timer is a hang guard: the wait itself is on the output, not on time.
func (term *terminal) expect(want string) {
	term.t.Helper()
	deadline := time.AfterFunc(20*time.Second, func() {
		term.mu.Lock()
		term.done = true
		term.cond.Broadcast()
		term.mu.Unlock()
	})
	defer deadline.Stop()
	term.mu.Lock()
	defer term.mu.Unlock()
	for {
		if i := strings.Index(term.out.String()[term.seen:], want); i >= 0 {
			term.seen += i + len(want)
			return
		}
		if term.done {
			term.t.Fatalf("parley never wrote %q; the terminal shows:\n%s", want, term.out.String())
		}
		term.cond.Wait()
	}
}

func TestChatOnATerminal(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, "chat", "--agent", "eliza")
	term.expect("is ready")
	term.typeLine("I am worried about my tests")
	term.expect("worried about your tests")

	// A permission request is asked here, and the answer reaches the agent by kind.
	term.typeLine("request permission deploy")
	term.expect("The agent asks permission: deploy")
	term.typeLine("y")
	term.expect("permission: allow_once")

	// Ctrl-C cancels a slow turn, and the chat goes on.
	var words []string
	for i := range 300 {
		words = append(words, fmt.Sprintf("w%d", i))
	}
	term.typeLine("slowly " + strings.Join(words, " "))
	term.expect("w299")       // the terminal's echo of the line
	term.expect("w0 w1")      // the agent's first words
	term.pty.Write([]byte{3}) // Ctrl-C
	term.expect("cancelling")
	term.expect("the turn was cancelled")
	term.typeLine("/help")
	term.expect("/flood")

	// A new session, then back to the first one: session/load replays it.
	term.typeLine("/new")
	term.expect("new session eliza-2")
	term.typeLine("/load eliza-1")
	term.expect("I am worried about my tests")
	term.expect("(session eliza-1)")
	term.typeLine("/flood 3")
	term.expect("0 1 2")

	// Ctrl-D quits.
	term.pty.Write([]byte{4})
	term.wait(t, 0)
}

// wait waits for parley to exit with code.
func (term *terminal) wait(t *testing.T, code int) {
	t.Helper()
	done := make(chan error, 1)
	go func() { done <- term.cmd.Wait() }()
	select {
	case err := <-done:
		got := 0
		if ee, ok := err.(*exec.ExitError); ok {
			got = ee.ExitCode()
		} else if err != nil {
			t.Fatal(err)
		}
		if got != code {
			t.Errorf("exit %d, want %d; the terminal shows:\n%s", got, code, term.out.String())
		}
	case <-time.After(20 * time.Second): // hang guard
		t.Fatalf("parley did not exit; the terminal shows:\n%s", term.out.String())
	}
}

func TestChatRestartsACrashedAgent(t *testing.T) {
	t.Parallel()
	term := startTerminal(t, "chat", "--agent-command", fakeAgentCommand(t, "crash-mid-turn"))
	term.expect("is ready")
	term.typeLine("hi")
	term.expect("died mid-turn") // the error names what the agent said on its way out
	term.typeLine("hi again")
	term.expect("restarting it with a new session")
	term.expect("died mid-turn")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestChatAgentThatNeverSetsTheMode: /mode against an agent that never answers
// session/set_mode fails after --agent-timeout, and the chat goes on.
func TestChatAgentThatNeverSetsTheMode(t *testing.T) {
	// Not parallel: the agent's start must beat a 1s --agent-timeout.
	w := newWorkspace(t)
	term := startTerminalIn(t, w.dir, w.env, "chat", "--agent-timeout", "1s", "--agent-command", fakeAgentCommand(t, "hostile-mute-set"))
	term.expect("is ready")
	term.typeLine("/mode b")
	term.expect("did not answer session/set_mode within 1s")
	term.typeLine("hello")
	term.expect("›")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// expectEither waits until parley has written one of wants (after what earlier expects
// consumed), and says which came first.
func (term *terminal) expectEither(wants ...string) string {
	term.t.Helper()
	deadline := time.AfterFunc(20*time.Second, func() { // a hang guard
		term.mu.Lock()
		term.done = true
		term.cond.Broadcast()
		term.mu.Unlock()
	})
	defer deadline.Stop()
	term.mu.Lock()
	defer term.mu.Unlock()
	for {
		first, at := "", -1
		for _, w := range wants {
			if i := strings.Index(term.out.String()[term.seen:], w); i >= 0 && (at < 0 || i < at) {
				first, at = w, i
			}
		}
		if at >= 0 {
			term.seen += at + len(first)
			return first
		}
		if term.done {
			term.t.Fatalf("parley wrote none of %q; the terminal shows:\n%s", wants, term.out.String())
		}
		term.cond.Wait()
	}
}
