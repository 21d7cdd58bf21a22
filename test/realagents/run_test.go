//go:build linux

package realagents

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

// TestRealAgents runs every scenario with every agent. Agents run in parallel (bounded
// by -parallel), an agent's scenarios one after the other, each in a sandbox of its own.
func TestRealAgents(t *testing.T) {
	parleyBinary(t)
	for _, a := range agentDefs {
		t.Run(a.name, func(t *testing.T) {
			t.Parallel()
			requireInstalled(t, a)
			for _, sc := range append(scenarios, a.ownScenarios()...) {
				t.Run(sc.name, func(t *testing.T) {
					model := newModel(t)
					sb := newSandbox(t, a, model)
					sc.run(t, sb)
				})
			}
		})
	}
}

type scenario struct {
	name string
	run  func(t *testing.T, sb *sandbox)
}

var scenarios = []scenario{
	{"run/plain", runPlain},
	{"run/shell-refused", runShellRefused},
	{"run/shell-yolo", runShellYolo},
	{"run/read-edit", runReadEdit},
	{"run/changes-undo", runChangesUndo},
	{"run/continue", runContinue},
	{"run/sigint", runSIGINT},
	{"chat/message", chatMessage},
	{"chat/model", chatModel},
	{"vscode/reply", vscodeReply},
	{"vscode/one-tool", vscodeTools(1)},
	{"vscode/two-tools", vscodeTools(2)},
	{"vscode/action-approved", vscodeAction(true)},
	{"vscode/action-declined", vscodeAction(false)},
	{"vscode/changes-undo", vscodeChanges},
}

func runPlain(t *testing.T, sb *sandbox) {
	r := sb.runParley(t, markPlain+" Say hello.")
	if code := r.exitStatus(); code != 0 || !strings.Contains(r.out.String(), plainReply) {
		t.Errorf("exit %d; want 0 and %q on stdout\n%s", code, plainReply, r)
	}
	sb.requireValidFrames(t)
}

const shellMarkerFile = "shell-ran.txt"

func shellPrompt() string { return markShell + " echo parley-shell-ran > " + shellMarkerFile }

// Without a terminal and without --yolo, parley refuses what the agent asks permission
// for; the agent goes on or ends its turn, as that agent does, and parley says so.
func runShellRefused(t *testing.T, sb *sandbox) {
	r := sb.runParley(t, shellPrompt())
	frames := sb.recordedFrames(t)
	sb.requireValidFrames(t)
	asks := requestsFromAgent(frames, "session/request_permission")
	if len(asks) == 0 {
		t.Fatalf("the agent ran the command without asking permission\n%s", r)
	}
	for _, ask := range asks {
		kind := chosenKind(t, frames, ask)
		if !strings.HasPrefix(kind, "reject") {
			t.Errorf("parley answered %s with no terminal and no --yolo; want a reject option\n%s", kind, ask)
		}
	}
	if _, err := os.Stat(filepath.Join(sb.workspace, shellMarkerFile)); err == nil {
		t.Errorf("the refused command ran: %s exists", shellMarkerFile)
	}
	if !strings.Contains(r.errb.String(), "no terminal to ask") {
		t.Errorf("parley did not say why it refused\n%s", r)
	}
	code := r.exitStatus()
	if code == 130 || strings.Contains(r.errb.String(), "Ctrl-C") {
		t.Errorf("exit %d: the agent's own cancel after a refusal is reported like the user's Ctrl-C\n%s", code, r)
	}
	if sb.agent.cancelsOnRefusal {
		if code == 0 {
			t.Errorf("exit 0, but the agent ended its turn cancelled\n%s", r)
		}
	} else if code != 7 {
		// The turn ends, but parley refused a request with nobody to ask: run's exit 7.
		t.Errorf("exit %d; this agent goes on after a refusal and ends its turn, which parley run reports as 7 (refused with nobody to ask)\n%s", code, r)
	}
}

// chosenKind is the kind of the option parley chose for a permission request ("" and a
// test error when it answered otherwise).
func chosenKind(t *testing.T, frames []frame, ask frame) string {
	t.Helper()
	resp, ok := responseTo(frames, ask)
	if !ok {
		t.Errorf("parley never answered %s", ask)
		return ""
	}
	outcome, _ := resp.Msg.Result["outcome"].(map[string]any)
	if outcome["outcome"] != "selected" {
		return "outcome " + stringOf(outcome["outcome"])
	}
	options, _ := ask.Msg.Params["options"].([]any)
	for _, o := range options {
		o, _ := o.(map[string]any)
		if o["optionId"] == outcome["optionId"] {
			return stringOf(o["kind"])
		}
	}
	t.Errorf("parley chose option %v, which was not offered", outcome["optionId"])
	return ""
}

func stringOf(v any) string { s, _ := v.(string); return s }

func runShellYolo(t *testing.T, sb *sandbox) {
	r := sb.runParley(t, "--yolo", shellPrompt())
	frames := sb.recordedFrames(t)
	sb.requireValidFrames(t)
	if code := r.exitStatus(); code != 0 || !strings.Contains(r.out.String(), shellDone) {
		t.Errorf("exit %d; want 0 and %q\n%s", code, shellDone, r)
	}
	data, err := os.ReadFile(filepath.Join(sb.workspace, shellMarkerFile))
	if err != nil || strings.TrimSpace(string(data)) != "parley-shell-ran" {
		t.Errorf("the command did not run: %q, %v\n%s", data, err, r)
	}
	for _, ask := range requestsFromAgent(frames, "session/request_permission") {
		if kind := chosenKind(t, frames, ask); !strings.HasPrefix(kind, "allow") {
			t.Errorf("--yolo answered %s\n%s", kind, ask)
		}
	}
}

const notesFile = "notes.txt"

// The agent reads a workspace file, then edits it; agents that edit through the client
// do it through parley's fs/write_text_file.
func runReadEdit(t *testing.T, sb *sandbox) {
	path := filepath.Join(sb.workspace, notesFile)
	sb.writeFile(path, "first\n"+oldLine+"\nlast\n")
	r := sb.runParley(t, "--yolo", markEdit+" "+path)
	frames := sb.recordedFrames(t)
	sb.requireValidFrames(t)
	if code := r.exitStatus(); code != 0 || !strings.Contains(r.out.String(), editDone) {
		t.Errorf("exit %d; want 0 and %q\n%s", code, editDone, r)
	}
	data, _ := os.ReadFile(path)
	if got := string(data); got != "first\n"+newLine+"\nlast\n" {
		t.Errorf("%s is %q after the edit\n%s", notesFile, got, r)
	}
	writes := requestsFromAgent(frames, "fs/write_text_file")
	if sb.agent.writesThroughFS && len(writes) == 0 {
		t.Errorf("the agent edited the file without parley's fs/write_text_file\n%s", r)
	}
	for _, w := range writes {
		if resp, ok := responseTo(frames, w); !ok || resp.Msg.Error != nil {
			t.Errorf("fs/write_text_file failed: %v\n%s", resp, w)
		}
	}
	t.Logf("fs/* calls: read %d, write %d", len(requestsFromAgent(frames, "fs/read_text_file")), len(writes))
}

// Ctrl-C mid-turn: parley cancels the turn, exits 130, and leaves no process behind.
func runSIGINT(t *testing.T, sb *sandbox) {
	r := sb.startRun(t, true, markSlow+" Count slowly.")
	select {
	case <-r.out.first:
	case <-r.done:
		t.Fatalf("parley ended before the reply began\n%s", r)
	}
	r.cmd.Process.Signal(syscall.SIGINT)
	r.wait(t)
	if code := r.exitStatus(); code != 130 {
		t.Errorf("exit %d after SIGINT, want 130\n%s", code, r)
	}
	if strings.Count(r.out.String(), "tick") >= slowChunks {
		t.Errorf("the whole slow reply arrived: the turn was not cancelled")
	}
	frames := sb.recordedFrames(t)
	sb.requireValidFrames(t)
	cancelled := false
	for _, f := range frames {
		cancelled = cancelled || f.Dir == "to-agent" && f.Msg.Method == "session/cancel"
	}
	if !cancelled {
		t.Errorf("parley sent no session/cancel\n%s", r)
	}
	sb.requireNoProcessLeft(t)
}
