package safety

import (
	"strings"
	"sync"
)

// Programs that hand a command to a process parley did not start (a terminal
// multiplexer's server, the at daemon, a container engine): what runs there is outside
// parley's tracking and any sandbox it gives commands, so asking it is High, and the
// command handed over is judged as the command it is.

// tmuxRuns are tmux commands that run a shell command or type keys into a pane.
var tmuxRuns = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"new-session": true, "new": true, "new-window": true, "neww": true, "split-window": true, "splitw": true,
		"respawn-pane": true, "respawnp": true, "respawn-window": true, "respawnw": true, "run-shell": true, "run": true,
		"if-shell": true, "if": true, "pipe-pane": true, "pipep": true, "display-popup": true, "popup": true,
		"send-keys": true, "send": true, "new-pane": true,
	}
})

// tmuxReads are tmux commands that only list or show.
var tmuxReads = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"ls": true, "list-sessions": true, "list-windows": true, "lsw": true, "list-panes": true, "lsp": true,
		"list-clients": true, "lsc": true, "list-buffers": true, "lsb": true, "list-keys": true, "lsk": true,
		"list-commands": true, "lscm": true, "show-options": true, "show": true, "show-environment": true, "showenv": true,
		"has-session": true, "has": true, "info": true, "capture-pane": true, "capturep": true, "-V": true,
	}
})

// tmuxValue are tmux command options that take a value.
const tmuxValue = "cFnstTxyelwpNSbBrCHWE"

// tmux judges tmux: each command of its line (split at ";") that runs a shell command
// or sends keys has them judged as shell code; the others change the server.
func tmux(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	args := c.args
	// Global options: -L socket, -S path, -f file, -c shell-command.
	for len(args) > 0 && args[0].lit && strings.HasPrefix(args[0].val, "-") {
		switch v := args[0].val; v {
		case "-c":
			if len(args) > 1 {
				a.add(High, c.text, "runs a shell command through tmux")
				a.shellCode(c, args[1])
			}
			return
		case "-L", "-S", "-f", "-T":
			if v == "-f" && len(args) > 1 {
				a.add(High, c.text, "runs the tmux commands of "+args[1].val)
				a.codeFile(args[1].val)
			}
			args = args[min(2, len(args)):]
			continue
		}
		args = args[1:]
	}
	if len(args) == 0 {
		a.add(High, c.text, "starts a tmux session, which runs outside parley's tracking and any sandbox")
		return
	}
	for len(args) > 0 {
		end := 0
		for end < len(args) && !(args[end].lit && (args[end].val == ";" || args[end].val == `\;`)) {
			end++
		}
		a.tmuxCommand(c, args[:end])
		if end == len(args) {
			break
		}
		args = args[end+1:]
	}
}

func (a *analyzer) tmuxCommand(c *call, words []word) {
	if len(words) == 0 {
		return
	}
	name := words[0]
	if !name.lit {
		a.add(Critical, c.text, "runs a tmux command only known when it runs")
		return
	}
	if tmuxReads()[name.val] {
		a.add(Medium, c.text, "asks the tmux server about its sessions")
		return
	}
	if name.val == "source-file" || name.val == "source" {
		a.add(High, c.text, "runs the tmux commands of a file, which can run any program")
		return
	}
	if !tmuxRuns()[name.val] {
		a.add(High, c.text, "changes the tmux server ("+name.val+"), which can make it run programs")
		return
	}
	p := parseArgs(words[1:], flagSpec{short: tmuxValue, stopAtOperand: name.val != "send-keys" && name.val != "send"})
	operands := p.operandWords(words[1:])
	if name.val == "if-shell" || name.val == "if" {
		operands = operands[:min(1, len(operands))]
	}
	if len(operands) == 0 {
		a.add(High, c.text, "starts a shell in tmux, which runs outside parley's tracking and any sandbox")
		return
	}
	a.add(High, c.text, "runs commands in tmux, outside parley's tracking and any sandbox ("+name.val+")")
	saved := a.dir
	a.dir = "" // the server's directory, not necessarily this one
	if w, ok := flagWord(p, words[1:], "c"); ok && w.lit {
		a.dir = a.locate(w, saved).path
	}
	keys := name.val == "send-keys" || name.val == "send"
	if keys {
		var text []word
		for _, w := range operands {
			if w.lit && (w.val == "Enter" || w.val == "C-m" || w.val == "KPEnter") {
				text = append(text, literalWord("\n"))
				continue
			}
			text = append(text, w)
		}
		operands = text
	}
	src := joinValues(operands)
	if keys {
		src = strings.ReplaceAll(src, " \n ", "\n")
	}
	a.shellCode(c, word{src: wordsText(operands), val: src, lit: allLiteral(operands)})
	a.dir = saved
}

// screen judges GNU screen: a command after its options runs in a new window; -X
// stuff types keys into one; -X other commands change the session.
func screen(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	p := parseArgs(c.args, flagSpec{short: "ceEhLpsStTX", long: nil, stopAtOperand: true})
	if p.has("ls", "list") || hasWord(c.args, "-ls", "-list") {
		a.add(Medium, c.text, "asks screen about its sessions")
		return
	}
	if w, ok := flagWord(p, c.args, "c"); ok {
		a.add(High, c.text, "runs the screen commands of "+w.src)
		a.codeFile(w.src)
	}
	operands := p.operandWords(c.args)
	if w, ok := flagWord(p, c.args, "X"); ok {
		if w.val == "stuff" && len(operands) > 0 {
			a.add(High, c.text, "types into a screen window, outside parley's tracking and any sandbox")
			saved := a.dir
			a.dir = ""
			a.shellCode(c, word{src: wordsText(operands), val: strings.ReplaceAll(joinValues(operands), `\n`, "\n"), lit: allLiteral(operands)})
			a.dir = saved
			return
		}
		a.add(High, c.text, "changes a screen session ("+w.val+"), which can run programs")
		return
	}
	a.add(High, c.text, "runs a command in screen, outside parley's tracking and any sandbox")
	if len(operands) > 0 {
		saved := a.dir
		a.nestedRun(c.text, c.args[p.operands[0]:])
		a.dir = saved
	}
}

// atProgram judges at and batch: they run shell commands later, read from the input
// or from -f FILE.
func atProgram(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "qfMmt"})
	if p.has("l", "d", "r", "c") || c.name == "atq" || c.name == "atrm" {
		return
	}
	a.add(High, c.text, "schedules commands to run later ("+c.name+"), outside parley's tracking")
	if w, ok := flagWord(p, c.args, "f"); ok {
		a.scriptFile(c, w, "the shell script")
		return
	}
	a.codeFromInput(c, "shell commands", false)
}

// containerCommand judges what a container runs when it is given host directories
// (-v, --mount): the command is judged as if those paths were the host's, outside any
// workspace, and only a Critical finding counts (the container could delete the
// workspace it was given).
func (a *analyzer) containerCommand(c *call, mounts []string, command []word) {
	if len(mounts) == 0 || len(command) == 0 {
		return
	}
	p := &analyzer{ctx: Context{Home: a.ctx.Home, Files: a.ctx.Files}, depth: a.depth + 1, open: a.open, nested: true, budget: a.budget}
	p.ctx = p.ctx.normalized()
	p.run(nil, nil, command, false)
	if why := critical(p); why != "" {
		a.add(Critical, c.text, "gives a container "+strings.Join(mounts, ", ")+" and runs a command in it that "+why)
	}
}
