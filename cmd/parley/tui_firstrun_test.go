//go:build !windows

package main

// The terminal UI as a new user meets it (issue 31): what /changes shows, Esc, and a
// narrow terminal.

import (
	"fmt"
	"path/filepath"
	"strings"
	"testing"
)

// TestTUIChangesListIsStyledNotEscaped: /changes shows each file's counts dim, as
// colour, not as the escape sequences of the colour spelt out.
func TestTUIChangesListIsStyledNotEscaped(t *testing.T) {
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("write " + filepath.Join(w.dir, "a.txt") + " changed-by-the-agent\r")
	s.WaitText("Changed 1 file")
	s.Type("/changes\r")
	screen := s.WaitText("Turn 1")
	shot(t, s, "changes-list")
	if strings.Contains(screen, "␛") || strings.Contains(screen, "[38;5") || strings.Contains(screen, "\x1b") {
		t.Fatalf("/changes shows escape sequences as text:\n%s", screen)
	}
	x, y, ok := s.Find("changed  a.txt (+1 −1)")
	if !ok {
		t.Fatalf("/changes does not list a.txt with its counts:\n%s", screen)
	}
	if s.Foreground(x+len("changed  a.txt "), y) == nil {
		t.Errorf("the counts of a.txt are not styled")
	}
}

// TestTUIEscStopsTheTurn: Esc stops a turn as Ctrl-C does, without arming a quit; Esc
// closes the completion first; with nothing running, Esc leaves parley running.
func TestTUIEscStopsTheTurn(t *testing.T) {
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("slow 400\r")
	s.WaitText("w3")
	s.WaitText("esc stop the turn")
	s.Type("\x1b")
	s.WaitText("(cancelled)")
	screen := s.WaitText("ready")
	if strings.Contains(screen, "again to quit") {
		t.Errorf("Esc armed a quit:\n%s", screen)
	}
	// Between turns Esc closes the completion, and nothing else: parley stays.
	s.Type("/")
	s.WaitFor("the completion open", completionOpen)
	s.Type("\x1b")
	s.WaitFor("the completion closed", func(screen string) bool { return !completionOpen(screen) })
	s.Type("\x15still here")
	s.WaitFor("the composer still taking keys", func(screen string) bool { return composerLine(screen) == "› still here" })

	// A completion open while a turn runs: the first Esc closes it, the turn goes on;
	// the next stops it.
	s.Type("\x15slow 400\r")
	s.WaitText("prompt 2")
	s.WaitText("w2")
	s.Type("/")
	s.WaitFor("the completion open", completionOpen)
	s.Type("\x1b")
	screen = s.WaitFor("the completion closed", func(screen string) bool { return !completionOpen(screen) })
	if strings.Count(screen, "(cancelled)") != 1 {
		t.Errorf("the Esc that closed the completion stopped the turn:\n%s", screen)
	}
	s.Type("\x15\x1b")
	s.WaitFor("the second turn cancelled", func(screen string) bool { return strings.Count(screen, "(cancelled)") == 2 })
	shot(t, s, "esc-stops")
}

// TestTUINarrowTerminalWrapsTheQuestion: at 50 columns a question's answers, its diff
// and the status lines are wrapped, not cut: every answer can be seen and given.
func TestTUINarrowTerminalWrapsTheQuestion(t *testing.T) {
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 50, 40, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("ask touch some-file-with-a-long-name-to-wrap\r")
	screen := s.WaitText("The agent asks permission")
	shot(t, s, "question-50")
	flat := strings.Join(strings.Fields(screen), " ")
	for _, want := range []string{"[y] allow once", "[n] reject once", "[r] reject always", "ctrl+c cancels the turn"} {
		if !strings.Contains(flat, want) {
			t.Errorf("at 50 columns the question lacks %q:\n%s", want, screen)
		}
	}
	if _, panel, _ := strings.Cut(screen, "The agent asks permission"); strings.Contains(panel, "…") {
		t.Errorf("a line of the question or the status is cut:\n%s", screen)
	}
	answer(s, "r", "chose reject_always")
}

// completionOpen says whether the composer's completion lists parley's commands.
func completionOpen(screen string) bool {
	for _, l := range strings.Split(screen, "\n") {
		if strings.HasPrefix(l, "  /help ") {
			return true
		}
	}
	return false
}

// TestTUIFirstScreenSaysWhatIsHere: the first screen names the workspace, the agent and
// what it is (Eliza: a demo), the agents parley knows with whether each can run here,
// and the keys that matter; at 50 columns it wraps, nothing cut.
func TestTUIFirstScreenSaysWhatIsHere(t *testing.T) {
	w := newWorkspace(t)
	for _, cols := range []int{100, 50} {
		s := startTUI(t, w.dir, w.env, cols, 50, "chat", "--agent", "eliza")
		screen := s.WaitText("agents parley knows")
		screen = s.WaitText("esc stops a turn")
		shot(t, s, fmt.Sprintf("first-screen-%d", cols))
		// Wrapped where the screen likes: compared without white space.
		flat := strings.Join(strings.Fields(screen), "")
		for _, want := range []string{"workspace " + w.dir, "agent eliza — a built-in demo agent", "✓ eliza runs here", "claude", "codex", "gemini", "tab chooses one, enter starts a conversation with it; /agent too", "ctrl+c twice quits"} {
			if !strings.Contains(flat, strings.Join(strings.Fields(want), "")) {
				t.Errorf("at %d columns the first screen lacks %q:\n%s", cols, want, screen)
			}
		}
		if _, top, _ := strings.Cut(screen, "parley · "); strings.Contains(strings.Split(top, "────")[0], "…") {
			t.Errorf("at %d columns a line of the first screen is cut:\n%s", cols, screen)
		}
		s.Type("/quit\r")
		s.Wait()
	}
}

// TestTUIFirstScreenSaysWhetherParleyReachesItsModelServer: parley's own agent needs a
// model server, which the catalog cannot see: the first screen says there is none where
// it looked (OLLAMA_HOST here: a port nothing listens on), as parley agents does.
func TestTUIFirstScreenSaysWhetherParleyReachesItsModelServer(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, append(w.env, "OLLAMA_HOST=127.0.0.1:9", "PARLEY_MODEL="), 100, 40, "chat", "--agent", "eliza")
	screen := s.WaitText("agents parley knows")
	screen = s.WaitText("esc stops a turn")
	flat := strings.Join(strings.Fields(screen), " ")
	if !strings.Contains(flat, "✗ parley needs a model server: no Ollama at http://127.0.0.1:9") {
		t.Errorf("the first screen does not say parley's agent has no model server:\n%s", screen)
	}
	if strings.Contains(flat, "parley runs here") {
		t.Errorf("the first screen says parley's agent runs here without a model server:\n%s", screen)
	}
}

// TestTUIFirstScreenChoosesAnAgent: on the first screen, with nothing typed, Tab
// highlights an agent parley knows and Enter starts a conversation with it (as /agent
// does: the first stays); typed text is never taken for a choice; an agent that cannot
// run here is highlighted but says why instead of starting.
func TestTUIFirstScreenChoosesAnAgent(t *testing.T) {
	t.Parallel()
	for _, cols := range []int{100, 50} {
		t.Run(fmt.Sprint(cols), func(t *testing.T) {
			t.Parallel()
			w := newWorkspace(t)
			plant(t, map[string]string{filepath.Join(parleyConfigDir(w.env), "config.json"): `{"agent_servers": {"mine": {"command": "env", "args": ["PARLEY_TEST_ROLE=fake-agent", "` + self(t) + `", "tui"]}}}`})
			env := append(w.env, "OLLAMA_HOST=127.0.0.1:9", "PARLEY_MODEL=")
			s := startTUI(t, w.dir, env, cols, 40, "chat", "--agent", "eliza")
			s.WaitText("esc stops a turn")
			flat := func(screen string) string { return strings.Join(strings.Fields(screen), "") }
			has := func(screen, want string) bool { return strings.Contains(flat(screen), flat(want)) }
			screen := s.WaitFor("the agents listed", func(screen string) bool { return has(screen, "✓ mine") })
			if !has(screen, "tab chooses one, enter starts a conversation with it") {
				t.Errorf("the first screen does not say how to choose an agent:\n%s", screen)
			}
			// In this empty home no agent has signed in: those with credential files say so.
			if has(screen, "↓ codex") && !has(screen, "(ChatGPT or an API key) · no sign-in found here: parley login --agent codex") {
				t.Errorf("the first screen does not say codex has no sign-in here:\n%s", screen)
			}
			if has(screen, "--agent eliza") || has(screen, "--agent mine") {
				t.Errorf("the first screen says an agent without credentials needs a sign-in:\n%s", screen)
			}
			// highlighted is the agent the first screen highlights ("" for none).
			highlighted := func(screen string) string {
				for _, l := range strings.Split(screen, "\n") {
					if rest, ok := strings.CutPrefix(strings.TrimLeft(l, " "), "› "); ok && strings.HasPrefix(l, " ") && len(strings.Fields(rest)) > 1 {
						return strings.Fields(rest)[1]
					}
				}
				return ""
			}
			// Typed text: Tab is the composer's, Enter sends it; nothing is chosen.
			s.Type("hi\t")
			s.WaitFor("hi in the composer", func(screen string) bool { return strings.HasPrefix(composerLine(screen), "› hi") })
			if highlighted(s.Text()) != "" {
				t.Errorf("Tab with text typed chose an agent:\n%s", s.Text())
			}
			s.Type("\x15")
			// parley's own agent has no model server here: highlighted, it says why, and
			// Enter starts nothing.
			tabTo := func(name, says string) string {
				for range 12 {
					was := highlighted(s.Text())
					s.Type("\t")
					screen := s.WaitFor("the highlight moved", func(screen string) bool { return highlighted(screen) != was })
					if highlighted(screen) == name {
						if !has(screen, says) {
							t.Errorf("%s highlighted, the first screen does not say %q:\n%s", name, says, screen)
						}
						return screen
					}
				}
				t.Fatalf("Tab never highlighted %s:\n%s", name, s.Text())
				return ""
			}
			tabTo("parley", "parley cannot run here: needs a model server")
			s.Type("\r")
			s.WaitFor("why, in the status line", func(screen string) bool { return strings.Count(flat(screen), "parleycannotrunhere") >= 2 })
			screen = tabTo("mine", "enter starts a conversation with mine")
			shot(t, s, fmt.Sprintf("first-screen-choice-%d", cols))
			s.Type("\r")
			s.WaitText("TUI test agent [2/2]") // the status line: a second conversation, with mine
			s.Type("hello\r")
			screen = s.WaitText("prompt 1: 1 lines") // the tui test agent answers, not Eliza
			shot(t, s, fmt.Sprintf("first-screen-chosen-%d", cols))
			s.Type("/quit\r")
			s.Wait()
		})
	}
}
