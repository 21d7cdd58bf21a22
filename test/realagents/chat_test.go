//go:build linux

package realagents

import (
	"bytes"
	"cmp"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/creack/pty"
)

// terminal is `parley chat` on a pseudo-terminal, typed at the way a person would.
type terminal struct {
	t    testing.TB
	pty  *os.File
	cmd  *exec.Cmd
	mu   sync.Mutex
	cond *sync.Cond
	out  bytes.Buffer // everything parley wrote
	seen int          // how much of out expect has consumed
	done bool
	exit chan struct{}
}

// expectTimeout is a hang guard: the waits are on the output, not on time.
const expectTimeout = time.Minute

func (sb *sandbox) startChat(t testing.TB) *terminal {
	t.Helper()
	cmd := exec.Command(parleyBinary(t), "chat", "--agent-command", sb.agentCommand(), "--cwd", sb.workspace)
	cmd.Env, cmd.Dir = append(sb.env, "TERM=dumb"), sb.workspace
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Rows: 50, Cols: 160})
	if err != nil {
		t.Fatal(err)
	}
	term := &terminal{t: t, pty: f, cmd: cmd, exit: make(chan struct{})}
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
	go func() { cmd.Wait(); close(term.exit) }()
	t.Cleanup(func() {
		cmd.Process.Kill()
		<-term.exit
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

// expect waits until parley has written want after what earlier expects consumed, and
// returns what came before it.
func (term *terminal) expect(want string) string {
	term.t.Helper()
	deadline := time.AfterFunc(expectTimeout, func() {
		term.mu.Lock()
		term.done = true
		term.cond.Broadcast()
		term.mu.Unlock()
	})
	defer deadline.Stop()
	term.mu.Lock()
	defer term.mu.Unlock()
	for {
		rest := term.out.String()[term.seen:]
		if i := strings.Index(rest, want); i >= 0 {
			term.seen += i + len(want)
			return strings.ReplaceAll(rest[:i], "\r", "")
		}
		if term.done {
			term.t.Fatalf("parley never wrote %q; the terminal shows:\n%s", want, term.out.String())
		}
		term.cond.Wait()
	}
}

// quit leaves the chat and requires a clean exit.
func (term *terminal) quit() {
	term.t.Helper()
	term.typeLine("/quit")
	select {
	case <-term.exit:
	case <-time.After(expectTimeout):
		term.t.Fatalf("parley chat did not quit; the terminal shows:\n%s", term.out.String())
	}
	if code := term.cmd.ProcessState.ExitCode(); code != 0 {
		term.t.Errorf("parley chat exited %d; the terminal shows:\n%s", code, term.out.String())
	}
}

const chatPrompt = "› "

func chatMessage(t *testing.T, sb *sandbox) {
	term := sb.startChat(t)
	term.expect("is ready.")
	term.expect(chatPrompt)
	term.typeLine(markPlain + " Say hello.")
	term.expect(plainReply)
	term.expect(chatPrompt)
	term.quit()
	sb.requireValidFrames(t)
}

var choiceLine = regexp.MustCompile(`(?m)^([* ]) (\S+)\s`)

// /model lists the agent's models and switches to another one, when the agent offers a
// choice; otherwise parley says there is none, and the agent indeed offered none.
func chatModel(t *testing.T, sb *sandbox) {
	term := sb.startChat(t)
	term.expect("is ready.")
	term.expect(chatPrompt)
	term.typeLine("/model")
	listing := term.expect(chatPrompt)
	if strings.Contains(listing, "offers no choice of model") {
		if sb.agent.offersModelChoice {
			t.Fatalf("parley says the agent offers no choice of model; it does:\n%s", listing)
		}
		if offered := modelsOffered(sb.recordedFrames(t)); offered {
			t.Errorf("the agent's session/new offered models, parley said none")
		}
		term.quit()
		sb.requireValidFrames(t)
		return
	}
	// Switch to another of the fake models if there is one (the others would need the
	// network), else to any other but a router ("auto" makes gemini-cli ask a routing
	// model first), else re-select the only one.
	var current, other string
	var ids []string
	for _, m := range choiceLine.FindAllStringSubmatch(listing, -1) {
		ids = append(ids, m[2])
		if m[1] == "*" {
			current = m[2]
		}
	}
	for _, id := range ids {
		switch {
		case id == current || id == "auto":
		case strings.Contains(id, fakeModel):
			other = id
		case other == "" || !strings.Contains(other, fakeModel):
			other = cmp.Or(other, id)
		}
	}
	other = cmp.Or(other, current)
	if other == "" {
		t.Fatalf("/model listed no model:\n%s", listing)
	}
	term.typeLine("/model " + other)
	answer := term.expect(chatPrompt)
	if !strings.Contains(answer, ": "+other) || strings.Contains(answer, "parley:") {
		t.Errorf("/model %s answered:\n%s", other, answer)
	}
	term.typeLine(markPlain + " Say hello.")
	term.expect(plainReply)
	term.expect(chatPrompt)
	term.quit()
	frames := sb.recordedFrames(t)
	sb.requireValidFrames(t)
	set := false
	for _, f := range frames {
		if f.Dir == "to-agent" && (f.Msg.Method == "session/set_model" || f.Msg.Method == "session/set_config_option") {
			set = true
			if resp, ok := responseTo(frames, f); !ok || resp.Msg.Error != nil {
				t.Errorf("the agent did not accept %s: %v", f, resp)
			}
		}
	}
	if !set {
		t.Errorf("parley switched no model (no session/set_model nor session/set_config_option sent)")
	}
	reqs := sb.model.Requests()
	t.Logf("models: current %q, switched to %q of %d; the last model request named %q", current, other, len(ids), reqs[len(reqs)-1].Model)
}

// modelsOffered reports whether a session/new response offered models (legacy models, or
// a config option of the model category).
func modelsOffered(frames []frame) bool {
	for _, req := range frames {
		if req.Dir != "to-agent" || req.Msg.Method != "session/new" {
			continue
		}
		resp, ok := responseTo(frames, req)
		if !ok {
			continue
		}
		if resp.Msg.Result["models"] != nil {
			return true
		}
		opts, _ := resp.Msg.Result["configOptions"].([]any)
		for _, o := range opts {
			if o, _ := o.(map[string]any); o["category"] == "model" {
				return true
			}
		}
	}
	return false
}
