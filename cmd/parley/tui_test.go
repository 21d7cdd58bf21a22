//go:build !windows

package main

// The terminal UI, driven as a person drives it: parley chat on a pseudo-terminal, its
// screen kept cell by cell (text, bold, colours) by a terminal emulator.

import (
	"encoding/base64"
	"flag"
	"fmt"
	"image/color"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/testbin"
)

var updateGolden = flag.Bool("update", false, "rewrite the golden screens in testdata/")

// startTUI runs parley chat with the TUI's test agent in dir, on a terminal of cols×rows
// that can show colours.
func startTUI(t *testing.T, dir string, env []string, cols, rows int, args ...string) *testbin.Screen {
	t.Helper()
	if len(args) == 0 {
		args = []string{"chat", "--agent-command", fakeAgentCommand(t, "tui")}
	}
	cmd := exec.Command(self(t), args...)
	var base []string
	for _, kv := range os.Environ() {
		if !strings.HasPrefix(kv, "TERM=") && !strings.HasPrefix(kv, "NO_COLOR=") && !strings.HasPrefix(kv, "COLUMNS=") && !strings.HasPrefix(kv, "LINES=") {
			base = append(base, kv)
		}
	}
	cmd.Env = append(append(base, "PARLEY_TEST_ROLE=parley", "TERM=xterm-256color", "COLORTERM=truecolor"), env...)
	cmd.Dir = dir
	s := testbin.StartScreen(t, cmd, cols, rows)
	s.WaitText("ready")
	return s
}

// shot keeps a picture of the screen in the test's artifact directory (go test
// -artifacts), for a person to look at.
func shot(t *testing.T, s *testbin.Screen, name string) {
	dir := os.Getenv("PARLEY_TUI_SHOTS")
	if dir == "" {
		return
	}
	os.MkdirAll(dir, 0o755)
	os.WriteFile(filepath.Join(dir, name+".txt"), []byte(s.Text()), 0o644)
	s.SavePNG(filepath.Join(dir, name+".png"))
}

func TestTUIPasteOfThreeLinesIsOnePrompt(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Paste("first line\nsecond line\nthird line")
	s.WaitText("third line") // in the composer, not sent
	if strings.Contains(s.Text(), "prompt 1") {
		t.Fatalf("the paste was sent before Enter:\n%s", s.Text())
	}
	s.Type("\r")
	screen := s.WaitText("prompt 1: 3 lines")
	if strings.Contains(screen, "prompt 2") {
		t.Errorf("the paste went out as several prompts:\n%s", screen)
	}
	shot(t, s, "paste")
}

func TestTUIHistoryRecallAcrossRuns(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("the first message\r")
	s.WaitText("prompt 1")
	s.Type("the second message\r")
	s.WaitText("prompt 2")
	s.Type("\x1b[A") // Up
	s.WaitFor("the second message in the composer", func(screen string) bool { return composerLine(screen) == "› the second message" })
	s.Type("\x1b[A")
	s.WaitFor("the first message in the composer", func(screen string) bool { return composerLine(screen) == "› the first message" })
	s.Type("\x1b[B\x1b[B") // back down to the empty draft
	s.WaitFor("an empty composer", func(screen string) bool { return !strings.Contains(composerLine(screen), "message") })
	s.Type("/quit\r")
	if code := s.Wait(); code != 0 {
		t.Fatalf("exit %d", code)
	}

	// The history is kept for the workspace: a new chat there recalls it.
	s = startTUI(t, w.dir, w.env, 100, 30)
	s.Type("\x1b[A")
	s.WaitFor("the last message of the previous run", func(screen string) bool { return composerLine(screen) == "› /quit" })
	s.Type("\x1b[A")
	s.WaitFor("the message before it", func(screen string) bool { return composerLine(screen) == "› the second message" })
	// Ctrl+R finds an older one.
	s.Type("\x1b[B\x1b[B\x12first")
	s.WaitText("history search: first")
	s.Type("\r")
	s.WaitFor("the found message in the composer", func(screen string) bool { return composerLine(screen) == "› the first message" })
}

// composerLine is the screen's line that starts with the composer's prompt.
func composerLine(screen string) string {
	lines := strings.Split(screen, "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "› ") {
			return strings.TrimRight(lines[i], " ")
		}
	}
	return ""
}

func TestTUIRendersMarkdown(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 40)
	s.Type("markdown\r")
	screen := s.WaitText("now passing")
	if strings.Contains(screen, "**") {
		t.Errorf("the asterisks of **bold** are shown:\n%s", screen)
	}
	x, y, _ := s.Find("now passing")
	if !s.Bold(x, y) || !s.Bold(x+4, y) {
		t.Errorf("**now passing** is not bold")
	}
	if s.Bold(x-4, y) {
		t.Errorf("the text before **now passing** is bold too")
	}
	// The code block is set apart: its text in a colour of its own on a background the
	// paragraph has not. (It is not highlighted: the renderer has no highlighter.)
	s.WaitText(`fmt.Println("hello")`)
	fx, fy, _ := s.Find("func main")
	px, py, _ := s.Find("The tests are")
	if fg, bg := s.Foreground(fx, fy), s.Cell(fx, fy).Style.Bg; fg == nil || bg == nil || s.Cell(px, py).Style.Bg != nil {
		t.Errorf("the code block is not set apart: foreground %v, background %v (the paragraph's %v)", fg, bg, s.Cell(px, py).Style.Bg)
	}
	// The table is drawn, without its Markdown pipes and dashes.
	if !strings.Contains(screen, "vet") || strings.Contains(screen, "|------|") {
		t.Errorf("the table is not rendered:\n%s", screen)
	}
	checkGolden(t, "markdown", messageLines(s.Text(), "prompt 1", "result"))
	shot(t, s, "markdown")
}

// TestTUIOnALightTerminal: on a terminal that says its background is light, the text and
// the highlighted code are drawn dark enough to read on it (contrast at least 3:1, the
// WCAG minimum for large text; body text gets more).
func TestTUIOnALightTerminal(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	cmd := exec.Command(self(t), "chat", "--agent-command", fakeAgentCommand(t, "tui"))
	cmd.Env = append(append(envWithout("TERM", "NO_COLOR", "COLUMNS", "LINES"), "PARLEY_TEST_ROLE=parley", "TERM=xterm-256color", "COLORTERM=truecolor"), w.env...)
	cmd.Dir = w.dir
	white := color.RGBA{0xff, 0xff, 0xff, 0xff}
	s := testbin.StartScreenColors(t, cmd, 100, 40, color.RGBA{0x20, 0x20, 0x20, 0xff}, white)
	s.WaitText("ready")
	s.Type("markdown\r")
	s.WaitText(`fmt.Println("hello")`)
	for _, text := range []string{"The tests are", "now passing", "go vet", "func main", `"hello"`, "Results", "TUI test agent"} {
		x, y, ok := s.Find(text)
		if !ok {
			t.Errorf("%q is not on screen", text)
			continue
		}
		fg, bg := s.Foreground(x, y), s.Cell(x, y).Style.Bg
		if fg == nil {
			continue // the terminal's own foreground, dark here
		}
		if bg == nil {
			bg = white
		}
		if r := contrast(fg, bg); r < 3 {
			t.Errorf("%q is drawn %s on %s: contrast %.1f:1", text, hexOf(fg), hexOf(bg), r)
		}
	}
	shot(t, s, "light")
}

// TestTUICopiesTheLastReplyAndItsCode: /copy and /copy code put the reply and its last
// code block on the clipboard through the terminal (OSC 52), and say so.
func TestTUICopiesTheLastReplyAndItsCode(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 40)
	s.Type("markdown\r")
	s.WaitText(`fmt.Println("hello")`)
	s.Type("/copy code\r")
	s.WaitText("Copied the last code block (3 lines)")
	s.Type("/copy\r")
	s.WaitText("Copied the last reply")
	osc52 := regexp.MustCompile(`\x1b\]52;c;([A-Za-z0-9+/=]*)(?:\x07|\x1b\\)`)
	// The notice is drawn in a frame, the clipboard written by a command after it.
	raw := s.WaitRaw("two clipboard writes", func(raw string) bool { return len(osc52.FindAllString(raw, -1)) >= 2 })
	var copied []string
	for _, m := range osc52.FindAllStringSubmatch(raw, -1) {
		b, err := base64.StdEncoding.DecodeString(m[1])
		if err != nil {
			t.Fatalf("OSC 52 payload %q: %v", m[1], err)
		}
		copied = append(copied, string(b))
	}
	if len(copied) != 2 {
		t.Fatalf("%d clipboard writes, want 2: %q", len(copied), copied)
	}
	if want := "func main() {\n\tfmt.Println(\"hello\")\n}\n"; copied[0] != want {
		t.Errorf("/copy code copied %q, want %q", copied[0], want)
	}
	if !strings.Contains(copied[1], "The tests are **now passing**") || !strings.Contains(copied[1], "| vet | ok |") {
		t.Errorf("/copy copied %q", copied[1])
	}
}

// contrast is the WCAG contrast ratio of two colours.
func contrast(a, b color.Color) float64 {
	lum := func(c color.Color) float64 {
		r, g, b, _ := c.RGBA()
		ch := func(v uint32) float64 {
			f := float64(v) / 0xffff
			if f <= 0.03928 {
				return f / 12.92
			}
			return math.Pow((f+0.055)/1.055, 2.4)
		}
		return 0.2126*ch(r) + 0.7152*ch(g) + 0.0722*ch(b)
	}
	la, lb := lum(a), lum(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

func hexOf(c color.Color) string {
	r, g, b, _ := c.RGBA()
	return fmt.Sprintf("#%02x%02x%02x", r>>8, g>>8, b>>8)
}

// messageLines is the part of the screen from the line holding from to the line holding
// to, trailing spaces cut.
func messageLines(screen, from, to string) string {
	var out []string
	in := false
	for _, l := range strings.Split(screen, "\n") {
		if strings.Contains(l, from) {
			in = true
		}
		if in {
			out = append(out, strings.TrimRight(l, " "))
		}
		if in && strings.Contains(l, to) {
			break
		}
	}
	return strings.Join(out, "\n") + "\n"
}

// checkGolden compares got with testdata/tui/name.golden (-update rewrites it).
func checkGolden(t *testing.T, name, got string) {
	t.Helper()
	path := filepath.Join("testdata", "tui", name+".golden")
	if *updateGolden {
		os.MkdirAll(filepath.Dir(path), 0o755)
		if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("%v (run with -update to write it)", err)
	}
	if string(want) != got {
		t.Errorf("the screen differs from %s (run with -update if the change is right):\n--- want\n%s--- got\n%s", path, want, got)
	}
}

func TestTUIToolCallExpandsToItsOutput(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("run echo hello-from-the-command\r")
	s.WaitText("ran it")
	screen := s.WaitText("echo hello-from-the-command")
	if !strings.Contains(screen, "✓") {
		t.Errorf("the finished call has no check mark:\n%s", screen)
	}
	s.Type("\x0f") // Ctrl+O
	screen = s.WaitFor("the command's output", func(screen string) bool {
		return strings.Contains(screen, "Output") && strings.Count(screen, "hello-from-the-command") >= 2
	})
	if !strings.Contains(screen, "$ echo hello-from-the-command") {
		t.Errorf("the expanded call does not show its command:\n%s", screen)
	}
	shot(t, s, "tool-expanded")
	s.Type("\x0f")
	s.WaitGone("Output")
}

func TestTUIEditPermissionShowsItsDiff(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	os.WriteFile(filepath.Join(w.dir, "main.go"), []byte("package main\n\nfunc answer() int {\n\treturn 41\n}\n"), 0o644)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("edit " + filepath.Join(w.dir, "main.go") + "\r")
	screen := s.WaitText("The agent asks permission")
	screen = s.WaitText("return 42")
	if !strings.Contains(screen, "-	return 41") && !strings.Contains(screen, "-    return 41") && !strings.Contains(screen, "return 41") {
		t.Errorf("the question does not show the lines removed:\n%s", screen)
	}
	if !strings.Contains(screen, "[y] allow once") || !strings.Contains(screen, "[n] reject once") {
		t.Errorf("the question does not show its answers as keys:\n%s", screen)
	}
	if x, y, ok := s.Find("+	return 42"); ok || func() bool { x, y, ok = s.Find("return 42"); return ok }() {
		if fg := s.Foreground(x, y); fg == nil {
			t.Errorf("the added line is not coloured")
		}
	}
	shot(t, s, "permission-diff")
	answer(s, "y", "edited")
	data, _ := os.ReadFile(filepath.Join(w.dir, "main.go"))
	if !strings.Contains(string(data), "return 42") {
		t.Errorf("the edit allowed was not made: %q", data)
	}
}

// answer presses key until the question takes it: keys pressed in the first moment a
// question is on screen are ignored by design (the question counts them).
func answer(s *testbin.Screen, key, then string) {
	for {
		before := ignoredKeys(s.Text())
		s.Type(key)
		screen := s.WaitFor("the answer taken or ignored", func(screen string) bool {
			return strings.Contains(screen, then) || ignoredKeys(screen) > before
		})
		if strings.Contains(screen, then) {
			return
		}
	}
}

func TestTUIResizeReflows(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	words := strings.Repeat("reflowing words ", 20) + "END"
	s.Type(`say "` + words + `"` + "\r")
	s.WaitText("END")
	s.Resize(50, 30)
	s.WaitFor("the reply wrapped again at 50 columns", func(screen string) bool {
		for _, l := range strings.Split(screen, "\n") {
			if len([]rune(l)) > 50 {
				return false
			}
		}
		// Cut at 50 columns, the old lines would lose words: all of them show once the
		// reply is wrapped again.
		_, reply, _ := strings.Cut(screen, "prompt 1: 1 lines")
		return strings.Count(strings.Join(strings.Fields(reply), " "), "reflowing words") == 20 && strings.Contains(reply, "END")
	})
	shot(t, s, "resized")
}

func TestTUICtrlCCancelsTheTurnAndTwiceQuits(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("slow 400\r")
	s.WaitText("w3")
	s.Type("\x03")
	s.WaitText("(cancelled)")
	s.WaitText("ready")
	// Typed during the reply, a key goes to the composer, never into the reply.
	s.Type("abc")
	s.WaitFor("abc in the composer", func(screen string) bool { return composerLine(screen) == "› abc" })

	// A second Ctrl-C while a cancel is still under way quits at once.
	s.Type("\x15slow 400\r") // Ctrl+U clears the composer first
	s.WaitText("prompt 2")
	s.WaitText("w3")
	s.Type("\x03")
	s.WaitText("again to quit")
	s.Type("\x03")
	if code := s.Wait(); code != 0 {
		t.Errorf("exit %d after two Ctrl-C", code)
	}
	// What was shown stays readable on the normal screen.
	if s.AltScreen() {
		t.Errorf("parley left the terminal on the alternate screen")
	}
	if !strings.Contains(s.Text(), "prompt 2") {
		t.Errorf("the transcript is not on the normal screen after exit:\n%s", s.Text())
	}
}

func TestTUIStaysOffWithoutATerminalThatCanShowIt(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for _, env := range [][]string{{"TERM=dumb"}, {"NO_COLOR=1"}} {
		cmd := exec.Command(self(t), "chat", "--agent-command", fakeAgentCommand(t, "tui"))
		cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley", "TERM=xterm-256color"), append(w.env, env...)...)
		cmd.Dir = w.dir
		s := testbin.StartScreen(t, cmd, 100, 30)
		s.WaitText("is ready")
		if s.AltScreen() {
			t.Errorf("%v: the full-screen UI started", env)
		}
		s.Type("/quit\r")
		s.Wait()
	}
}

func TestTUIQueuesWhileTheAgentWorksAndEscTakesItBack(t *testing.T) {
	// Not parallel: the agent's turn lasts 5s (slow 100), and the queue must be taken back before it ends.
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("slow 100\r")
	s.WaitText("w2")
	s.Type("the next question\r")
	s.WaitText("queued · esc takes it back")
	s.Type("\x1b")
	screen := s.WaitFor("the queued message back in the composer", func(screen string) bool {
		return composerLine(screen) == "› the next question" && !strings.Contains(screen, "queued ·")
	})
	if strings.Contains(screen, "prompt 2") {
		t.Errorf("the message taken back was sent:\n%s", screen)
	}
	// Queued again, it goes out once the turn is over.
	s.Type("\r")
	s.WaitText("queued · esc takes it back")
	s.WaitText("prompt 2: 1 lines")
	shot(t, s, "queued")
}

func TestTUICompletesFilesAndCommands(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	os.MkdirAll(filepath.Join(w.dir, "internal", "server"), 0o755)
	os.WriteFile(filepath.Join(w.dir, "internal", "server", "handler.go"), []byte("package server\n"), 0o644)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("look at @hand")
	s.WaitText("@internal/server/handler.go")
	s.Type("\t")
	s.WaitFor("the path in the composer", func(screen string) bool {
		return composerLine(screen) == "› look at @internal/server/handler.go"
	})
	s.Type("\r")
	// The agent takes embedded context: the file goes as a resource.
	s.WaitText("prompt 1: 1 lines + resource")
	s.WaitText("+ file internal/server/handler.go")

	s.Type("/rev")
	screen := s.WaitText("/review")
	if !strings.Contains(screen, "review the changes") || !strings.Contains(screen, "‹what to review›") {
		t.Errorf("the agent's command is listed without its description and hint:\n%s", screen)
	}
	shot(t, s, "completion")
}

func TestTUIModePicker(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.WaitText("TUI test agent · Ask")
	s.Type("/mode\r")
	s.WaitText("Mode  type to filter")
	s.Type("cod")
	s.WaitText("filter: cod")
	shot(t, s, "picker")
	s.Type("\r")
	s.WaitText("TUI test agent · Code")
	// Shift+Tab goes to the next mode.
	s.Type("\x1b[Z")
	s.WaitText("TUI test agent · Ask")
}

func TestTUISecondConversationWithAnotherAgent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("/agent\r")
	s.WaitText("+ new conversation with eliza")
	s.Type("new conversation with eliza")
	s.WaitFor("the filtered list", func(screen string) bool { return !strings.Contains(screen, "1. ") })
	s.Type("\r")
	s.WaitText("Eliza (DOCTOR) [2/2]")
	s.Type("I am worried about my tests\r")
	s.WaitText("worried about your tests")
	// Back to the first conversation: its transcript is as it was.
	s.Type("/agent\r")
	s.WaitText("● 2. eliza")
	s.Type("\x1b[A\r") // the list starts on the conversation shown: Up is the first
	s.WaitText("TUI test agent [1/2]")
	s.Type("\x03\x03")
	s.Wait()
	if out := s.Text(); !strings.Contains(out, "── eliza ──") || !strings.Contains(out, "worried about your tests") {
		t.Errorf("both transcripts are not printed when leaving:\n%s", out)
	}
}

// TestTUIQuestionShowsWhatRunsAndKeepsTheComposersText: a command's question shows the
// command and its risk in place of the composer; what was typed waits there untouched,
// keys that are no answer do nothing, and the answer goes to the agent by kind.
func TestTUIQuestionShowsWhatRunsAndKeepsTheComposersText(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("ask rm -rf build\r")
	screen := s.WaitText("The agent asks permission")
	if !strings.Contains(screen, "runs: rm -rf build") || !strings.Contains(screen, "risk: high") {
		t.Errorf("the question does not show the command and its risk:\n%s", screen)
	}
	// Typed now, text goes nowhere: the question is not the composer. Letters that answer
	// nothing, so that the test holds however late they arrive (a key typed within the
	// answer grace is ignored whatever it is; after it, "r" would reject always).
	s.Type("ghost")
	s.WaitText("5 keys ignored")
	if strings.Contains(s.Text(), "ghost") {
		t.Errorf("keys typed at the question reached the screen:\n%s", s.Text())
	}
	shot(t, s, "question-command")
	answer(s, "n", "chose reject_once")
	s.WaitGone("The agent asks permission")

	// A draft typed while the agent works waits while a question is on screen, and is
	// there again once it is answered.
	s.Type("seq run 100 sleep 1 ;; ask touch x\r")
	s.WaitText("sleep 1")
	s.Type("my draft")
	s.WaitFor("the draft in the composer", func(screen string) bool { return composerLine(screen) == "› my draft" })
	screen = s.WaitText("The agent asks permission")
	if strings.Contains(screen, "my draft") {
		t.Errorf("the draft shows beside the question:\n%s", screen)
	}
	s.Type("\x03") // Ctrl-C refuses the question and cancels the turn
	s.WaitGone("The agent asks permission")
	s.WaitFor("the draft back in the composer", func(screen string) bool { return composerLine(screen) == "› my draft" })
	s.WaitText("ready")
}

// TestTUISessionAndConfigPickers: the agent's sessions and a config option's values are
// filterable lists; picking a value sets it.
func TestTUISessionAndConfigPickers(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.WaitText("scripted · Ask first · Small")
	s.Type("/sessions\r")
	s.WaitText("Sessions in " + w.dir)
	s.WaitText("about scripted-1")
	s.Type("\x1b")
	s.WaitGone("Sessions in")
	s.Type("/config\r")
	s.WaitText("Settings")
	s.Type("\r") // the one option: Mode
	s.WaitText("Write code")
	s.Type("write\r")
	s.WaitText("scripted · Write code · Small")
	s.Type("/model\r")
	s.WaitText("Large")
	s.Type("lar\r")
	s.WaitText("model: large")
}

// TestTUISecondCtrlCQuitsAfterAQuickCancel: the cancel is over at once, and the second
// Ctrl-C, pressed while the screen still says so, quits all the same.
func TestTUISecondCtrlCQuitsAfterAQuickCancel(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30)
	s.Type("slow 400\r")
	s.WaitText("w3")
	s.Type("\x03")
	s.WaitText("(cancelled)")
	s.WaitText("press ctrl+c again to quit")
	s.Type("\x03")
	if code := s.Wait(); code != 0 {
		t.Errorf("exit %d", code)
	}
}

// startTUIFor is startTUI that waits for want instead of "ready".
func startTUIFor(t *testing.T, dir string, env []string, want string, args ...string) *testbin.Screen {
	t.Helper()
	cmd := exec.Command(self(t), args...)
	cmd.Env = append(append(envWithout("TERM", "NO_COLOR", "COLUMNS", "LINES"), "PARLEY_TEST_ROLE=parley", "TERM=xterm-256color"), env...)
	cmd.Dir = dir
	s := testbin.StartScreen(t, cmd, 100, 30)
	s.WaitText(want)
	return s
}

// TestTUIElicitationForm: the agent's form is asked a field at a time in the composer's
// place; a secret is masked as it is typed and never shown; the summary sends it.
func TestTUIElicitationForm(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type(`elicit-form {"properties":{"name":{"type":"string","title":"Your name"},"password":{"type":"string","title":"Password","format":"password"},"count":{"type":"integer","title":"How many"}},"required":["name","password"]}` + "\r")
	s.WaitText("The agent asks")
	s.WaitText("1/3 Your name")
	answerField(s, "Ada", "2/3 Password")
	s.Type("s3cret")
	s.WaitText("••••••")
	shot(t, s, "elicitation")
	s.Type("\r")
	s.WaitText("3/3 How many")
	s.Type("many\r")
	s.WaitText("✗")
	s.Type("\x15\r") // Ctrl+U, then an empty answer skips the optional field
	screen := s.WaitText("Your answers:")
	if !strings.Contains(screen, "Password: (hidden)") || !strings.Contains(screen, "Your name: Ada") {
		t.Errorf("the summary:\n%s", screen)
	}
	s.Type("y")
	s.WaitText("elicited: accept")
	if strings.Contains(s.Text(), "s3cret") {
		t.Errorf("the secret was shown:\n%s", s.Text())
	}
}

// answerField types an answer once the field takes keys (keys of a question's first
// moment are ignored, and counted) and waits for next.
func answerField(s *testbin.Screen, text, next string) {
	for {
		before := ignoredKeys(s.Text())
		s.Type(text[:1])
		screen := s.WaitFor("the key taken or ignored", func(screen string) bool {
			return strings.Contains(screen, "› "+text[:1]) || strings.Contains(screen, "› •") || ignoredKeys(screen) > before
		})
		if ignoredKeys(screen) == before {
			break
		}
	}
	s.Type(text[1:] + "\r")
	s.WaitText(next)
}

// ignoredKeys is how many keys the question on screen says it ignored.
func ignoredKeys(screen string) int {
	m := regexp.MustCompile(`\((\d+) keys? ignored`).FindStringSubmatch(screen)
	if m == nil {
		return 0
	}
	n, _ := strconv.Atoi(m[1])
	return n
}

func TestTUIOpensAPageOnlyOnConsent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	opened := filepath.Join(t.TempDir(), "opened")
	browser := filepath.Join(t.TempDir(), "browser")
	os.WriteFile(browser, []byte("#!/bin/sh\nprintf '%s' \"$1\" > "+opened+"\n"), 0o755)
	s := startTUIFor(t, w.dir, append(w.env, "BROWSER="+browser), "ready", "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("elicit-url https://xn--exmple-cua.com/device?code=WXYZ\r")
	screen := s.WaitText("It asks you to open this page")
	if !strings.Contains(screen, "host: xn--exmple-cua.com") || !strings.Contains(screen, "punycode") {
		t.Errorf("the page's host and the warning:\n%s", screen)
	}
	if _, err := os.Stat(opened); err == nil {
		t.Fatal("the page was opened before the user said so")
	}
	answer(s, "o", "elicited: accept")
	if b, _ := os.ReadFile(opened); string(b) != "https://xn--exmple-cua.com/device?code=WXYZ" {
		t.Errorf("the browser was given %q", b)
	}
}

// TestTUISignInWithVariables: the agent needs a sign-in; its methods are offered at
// once; the variable is asked masked, and the agent starts again with it.
func TestTUISignInWithVariables(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	s := startTUIFor(t, f.dir, f.env, "Sign in to", "chat", "--agent-command", fakeAgentCommand(t, "signin-env"))
	shot(t, s, "signin")
	s.Type("\r")
	s.WaitText("FAKE_AGENT_KEY")
	answerField(s, "sekrit-value", "ready")
	s.Type("hello\r")
	s.WaitText("you are signed in")
	if strings.Contains(s.Text(), "sekrit-value") || strings.Contains(s.Raw(), "sekrit-value") {
		t.Errorf("the secret was shown")
	}
	noSecretUnder(t, f.home(), "sekrit-value")
}

// TestTUISignInWithATerminalProgram: a terminal method shows the whole of what it runs
// and asks (no runs nothing); its program then gets the terminal (the screen is left
// while it runs) and the chat comes back once it exits.
func TestTUISignInWithATerminalProgram(t *testing.T) {
	t.Parallel()
	f := newSignIn(t)
	s := startTUIFor(t, f.dir, f.env, "Sign in to", "chat", "--agent-command", fakeAgentCommand(t, "signin-terminal"))
	s.Type("\r")
	screen := s.WaitText("Run it?")
	// The panel wraps long lines where it likes: compared without white space.
	flat := strings.Join(strings.Fields(screen), "")
	for _, want := range []string{"program:env", "theagent'sowncommand", "arguments:PARLEY_TEST_ROLE=fake-agent" + self(t) + "signin-terminal--login",
		"variables:FAKE_LOGIN_MODE=tty", "directory:" + f.dir, "[y]yes"} {
		if !strings.Contains(flat, want) {
			t.Errorf("the question lacks %q:\n%s", want, screen)
		}
	}
	answer(s, "n", "not run: no sign-in")
	if strings.Contains(s.Text(), "Login code:") {
		t.Fatal("the program ran after a no")
	}
	s.Type("/login\r")
	s.WaitText("Sign in to")
	s.Type("\r")
	s.WaitText("Run it?")
	answer(s, "y", "Login code:")
	s.Type(signInCode + "\r")
	s.WaitText("ready")
	s.Type("hello\r")
	s.WaitText("you are signed in")
}

// TestTUIChangesDiffAndUndo: a turn's changes show after it; /diff shows them, /undo
// takes them back.
func TestTUIChangesDiffAndUndo(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 40, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.Type("write " + filepath.Join(w.dir, "a.txt") + " changed-by-the-agent\r")
	s.WaitText("Changed 1 file")
	s.Type("/diff\r")
	screen := s.WaitText("Diff of a.txt")
	if !strings.Contains(screen, "+changed-by-the-agent") || !strings.Contains(screen, "-inside") {
		t.Errorf("the diff:\n%s", screen)
	}
	s.Type("/undo\r")
	s.WaitText("restored a.txt")
	if b, _ := os.ReadFile(filepath.Join(w.dir, "a.txt")); string(b) != "inside" {
		t.Errorf("a.txt holds %q after the undo", b)
	}
	shot(t, s, "changes")
}
