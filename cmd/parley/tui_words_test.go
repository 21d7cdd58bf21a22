//go:build !windows

package main

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/sandbox"
)

// The terminal UI words a refusal as the other views do: "not run: refused by you" for a
// "no", "refused by a rule" for a rule's, never "failed" or "rejected", and never the
// agent's text for its model.
func TestTUIWordsARefusalAsNotRun(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.config(t, `{"permissions":[{"tool":"execute:shred*","action":"reject"}]}`)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("tool-ask rm -rf ../victim\r")
	s.WaitText("The agent asks permission")
	answer(s, "n", "chose reject_once")
	screen := s.WaitText("not run: refused by you")
	s.Type("tool-ask shred secrets\r")
	screen = s.WaitText("not run: refused by a rule")
	shot(t, s, "refusals")
	for _, bad := range []string{"failed", "rejected", "Error:"} {
		if strings.Contains(screen, bad) {
			t.Errorf("the screen says %q of a refused call:\n%s", bad, screen)
		}
	}
}

// A command that runs project code (go test) is never allowed "always": its code may
// change. Confined, it may be allowed for the session: "allow while confined" is offered,
// and the same command is then not asked about again; unconfined it is not offered.
func TestTUIAllowWhileConfined(t *testing.T) {
	t.Parallel()
	if sandbox.Mechanism() == "" {
		t.Skip("nothing confines commands here")
	}
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("ask go test ./...\r")
	screen := s.WaitText("The agent asks permission")
	if !strings.Contains(screen, "[c] allow while confined") || strings.Contains(screen, "[a] allow always") {
		t.Fatalf("the question about go test, confined:\n%s", screen)
	}
	shot(t, s, "while-confined")
	answer(s, "c", "chose allow_once")
	s.WaitGone("The agent asks permission")
	s.Type("ask go test ./...\r")
	s.WaitFor("the second go test allowed unasked", func(screen string) bool {
		return strings.Count(screen, "chose allow_once") == 2
	})
	if strings.Contains(s.Text(), "The agent asks permission") {
		t.Errorf("asked again about a command allowed while confined:\n%s", s.Text())
	}
	s.Type("ask rm -rf /\r") // critical: asked every time, never "while confined"
	screen = s.WaitText("The agent asks permission")
	if strings.Contains(screen, "allow while confined") {
		t.Errorf("a critical command offers allow while confined:\n%s", screen)
	}
	answer(s, "n", "chose reject_once")

	s = startTUI(t, w.dir, w.env, 100, 30, "chat", "--sandbox", "off", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("ask go test ./...\r")
	screen = s.WaitText("The agent asks permission")
	if strings.Contains(screen, "allow while confined") {
		t.Errorf("unconfined, the question offers allow while confined:\n%s", screen)
	}
}

// An edit the agent calls a new file, of a file that exists: the card shows the diff
// against what the file held (parley looked), not "new file"; expanded, it shows that
// diff and not the edit again as raw JSON. One ignored key is "1 key".
func TestTUIEditCardSaysWhatParleyKnowsOfTheFile(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	path := filepath.Join(w.dir, "notes.txt")
	if err := os.WriteFile(path, []byte("first old line\nsecond old line\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	s := startTUI(t, w.dir, w.env, 100, 40, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("edit-new " + path + " brand-new-content\r")
	s.WaitText("The agent asks permission")
	s.Type("x")
	s.WaitText("(1 key ignored")
	answer(s, "y", "chose allow_once")
	s.WaitText("Changed 1 file")
	s.Type("\x1b[1;3A\x1b[1;3A\x0f") // alt+up twice (past the changes to the call), ctrl+o
	screen := s.WaitText("Diff ")
	shot(t, s, "edit-expanded")
	if strings.Contains(screen, "new file") {
		t.Errorf("the card calls a file that existed new:\n%s", screen)
	}
	if !strings.Contains(screen, "Edited notes.txt (+1 −2)") || strings.Contains(screen, "Created") {
		t.Errorf("the card calls the edit of a file that existed a creation:\n%s", screen)
	}
	if !strings.Contains(screen, "first old line") {
		t.Errorf("the card's diff does not show what the file held:\n%s", screen)
	}
	if strings.Contains(screen, `"file_path"`) || strings.Contains(screen, "Input") {
		t.Errorf("the expanded edit shows its raw JSON:\n%s", screen)
	}
}

// /help lines its keys and commands up in one column, at 100 columns and at 50.
func TestTUIHelpColumnsAlign(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for _, cols := range []int{100, 50} {
		s := startTUI(t, w.dir, w.env, cols, 120, "chat", "--agent", "eliza") // tall enough for the whole help at 50 columns
		s.Type("/help\r")
		screen := s.WaitText("parley's commands")
		shot(t, s, fmt.Sprintf("help-%d", cols))
		// Each name's words start in one column: beside the names, or (narrow) under them.
		starts := map[int][]string{}
		block := screen[strings.Index(screen, "parley's commands"):]
		names := []string{"/quit", "/new", "/agent"}
		if i := strings.Index(screen, "  Keys\n"); i >= 0 { // not scrolled off
			block, names = screen[i:], append(names, "enter", "ctrl+c", "shift+tab")
		}
		block, _, _ = strings.Cut(block, "────") // the help, not the composer's hints
		lines := strings.Split(block, "\n")
		for _, name := range names {
			for i, line := range lines {
				trimmed := strings.TrimLeft(line, " ")
				if !strings.HasPrefix(trimmed, name+" ") && trimmed != name {
					continue
				}
				words := strings.TrimPrefix(line, line[:len(line)-len(trimmed)]+name)
				if strings.TrimSpace(words) == "" && i+1 < len(lines) { // the words on the next line
					words = lines[i+1]
					starts[len(words)-len(strings.TrimLeft(words, " "))] = append(starts[len(words)-len(strings.TrimLeft(words, " "))], name)
					break
				}
				col := len(line) - len(strings.TrimLeft(words, " "))
				starts[col] = append(starts[col], name)
				break
			}
		}
		if len(starts) != 1 {
			t.Errorf("at %d columns /help's descriptions start at different columns %v:\n%s", cols, starts, screen)
		}
		s.Type("/quit\r")
		s.Wait()
	}
}

// A turn that took long rings the bell as it ends (bell_after seconds), a quick one
// does not.
func TestTUIBellAfterALongTurn(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	w.config(t, `{"bell_after": 1}`)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("say \"quick\"\r")
	s.WaitText("said")
	if n := bells(s.Raw()); n != 0 {
		t.Fatalf("%d bells after a quick turn", n)
	}
	s.Type("run 100 sleep 1.5\r") // the agent's own work, not a wait for parley
	s.WaitRaw("the bell", func(raw string) bool { return bells(raw) == 1 })
}

// bells counts the BEL characters of a terminal's output that are not the end of an
// OSC sequence.
func bells(raw string) int {
	return strings.Count(oscSequence.ReplaceAllString(raw, ""), "\a")
}

var oscSequence = regexp.MustCompile("\x1b\\][^\a\x1b]*(\a|\x1b\\\\)")

// A small Markdown table is as wide as its cells, not stretched across the screen.
func TestTUIMarkdownTableKeepsItsWidth(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type(`say "Before.\n\n| name | n |\n|------|---|\n| one | 1 |\n| two | 2 |\n\nAfter."` + "\r")
	screen := s.WaitText("said")
	shot(t, s, "table")
	for line := range strings.Lines(screen) {
		if strings.Contains(line, "─") && !strings.Contains(line, "────────────────────────────────────────") {
			if n := len([]rune(strings.TrimSpace(line))); n > 20 {
				t.Errorf("the table's rule is %d cells wide for two short columns:\n%s", n, screen)
			}
			return
		}
	}
	t.Errorf("no table rule on the screen:\n%s", screen)
}

// A question titled with the tool's own name (run_terminal_command) reads in parley's
// words: Run `go vet ./...`.
func TestTUIQuestionTitledWithAToolsNameReadsAsWords(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type(`askjson {"toolCall":{"toolCallId":"t1","title":"run_terminal_command","kind":"execute","rawInput":{"command":"go vet ./..."}},"options":` + allKinds + `}` + "\r")
	screen := s.WaitText("The agent asks permission")
	if !strings.Contains(screen, "The agent asks permission: Run `go vet ./...`") {
		t.Errorf("the question is not in parley's words:\n%s", screen)
	}
	answer(s, "n", "chose reject_once")
}

// At 50 columns a refused call's line still says how it ended: its command is cut first.
func TestTUINarrowRefusalKeepsItsOutcome(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 50, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("tool-ask rm -rf ../victim ../and/a/much/longer/list/of/directories\r")
	s.WaitText("The agent asks permission")
	answer(s, "n", "chose reject_once")
	screen := s.WaitText("not run: refused by you")
	shot(t, s, "refusal-50")
	if !strings.Contains(screen, "✗ `rm -rf") && !strings.Contains(screen, "✗ rm -rf") {
		t.Errorf("the refused call's line lost its command:\n%s", screen)
	}
}
