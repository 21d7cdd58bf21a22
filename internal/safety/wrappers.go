package safety

import (
	"regexp"
	"strings"
)

// wrapperTable maps the programs that start another program to how to strip them.
var wrapperTable map[string]wrapper

func init() {
	wrapperTable = map[string]wrapper{
		"env":      unwrapEnv,
		"command":  unwrapCommand,
		"builtin":  unwrapSimple(flagSpec{}),
		"exec":     unwrapSimple(flagSpec{short: "a"}),
		"nohup":    unwrapSimple(flagSpec{}),
		"time":     unwrapTime,
		"nice":     unwrapNice,
		"ionice":   unwrapSimple(flagSpec{short: "cnp", long: []string{"class", "classdata", "pid", "pgid", "uid"}}),
		"timeout":  unwrapTimeout,
		"stdbuf":   unwrapSimple(flagSpec{short: "ioe", long: []string{"input", "output", "error"}}),
		"setsid":   unwrapSimple(flagSpec{}),
		"unbuffer": unwrapSimple(flagSpec{}),
		"chrt":     unwrapOperands(1, flagSpec{short: "T", long: []string{"sched-runtime", "sched-deadline", "sched-period"}}),
		"taskset":  unwrapTaskset,
		"flock":    unwrapFlock,
		"sudo":     unwrapPrivileged("sudo", flagSpec{short: "CghpRTuDrtU", long: []string{"close-from", "group", "host", "prompt", "chroot", "command-timeout", "user", "chdir", "role", "type", "other-user"}}),
		"doas":     unwrapPrivileged("doas", flagSpec{short: "Cu"}),
		"pkexec":   unwrapPrivileged("pkexec", flagSpec{long: []string{"user"}}),
		"run0":     unwrapPrivileged("run0", flagSpec{short: "uDg", long: []string{"user", "group", "chdir", "setenv", "unit", "property", "description", "slice", "nice", "machine"}}),
		"runuser":  unwrapPrivileged("runuser", flagSpec{short: "ugGsw", long: []string{"user", "group", "supp-group", "shell", "whitelist-environment"}}),
		"xargs":    unwrapXargs,
		"watch":    unwrapWatch,
		"busybox":  unwrapBusybox,
	}
}

// wordsText is words as written, for a wrapper's text.
func wordsText(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.src
		if parts[i] == "" {
			parts[i] = quoteWord(w.val)
		}
	}
	return strings.Join(parts, " ")
}

// unwrapSimple strips a wrapper whose options come first and whose first operand is
// the command.
func unwrapSimple(spec flagSpec) wrapper {
	return unwrapOperands(0, spec)
}

// unwrapOperands strips a wrapper with options, then skip operands of its own, then
// the command.
func unwrapOperands(skip int, spec flagSpec) wrapper {
	spec.stopAtOperand = true
	return func(a *analyzer, words []word) unwrapped {
		args := words[1:]
		p := parseArgs(args, spec)
		if len(p.operands) <= skip {
			return unwrapped{}
		}
		start := p.operands[skip]
		return unwrapped{inner: args[start:], text: wordsText(words[:start+1])}
	}
}

var envName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*=`)

func unwrapEnv(a *analyzer, words []word) unwrapped {
	args := words[1:]
	u := unwrapped{text: "env"}
	for i := 0; i < len(args); i++ {
		w := args[i]
		v := w.val
		switch {
		case !w.lit:
			u.inner = args[i:]
			return u
		case v == "-S" || strings.HasPrefix(v, "--split-string") || strings.HasPrefix(v, "-S"):
			script, next := optionValue(args, i, "-S", "--split-string")
			a.code(wordsText(words), strings.TrimSpace(script+" "+joinValues(args[next:])))
			return unwrapped{handled: true}
		case v == "-C" || v == "--chdir" || strings.HasPrefix(v, "--chdir=") || strings.HasPrefix(v, "-C"):
			dir, next := optionValue(args, i, "-C", "--chdir")
			u.chdir, u.dir = true, a.locate(literalWord(dir), a.dir).path
			u.text += " " + wordsText(args[i:next])
			i = next - 1
		case v == "-u" || v == "--unset":
			u.text += " " + wordsText(args[i:min(i+2, len(args))])
			i++
		case v == "-" || strings.HasPrefix(v, "-") && v != "--":
			u.text += " " + w.src
		case v == "--":
		case envName.MatchString(v):
			u.env = append(u.env, v)
		default:
			u.inner = args[i:]
			return u
		}
	}
	return unwrapped{}
}

// optionValue returns the value of the option at args[i] (short or long, attached or
// not) and the index after it.
func optionValue(args []word, i int, short, long string) (string, int) {
	v := args[i].val
	switch {
	case strings.HasPrefix(v, long+"="):
		return v[len(long)+1:], i + 1
	case v == short || v == long:
		if i+1 < len(args) {
			return args[i+1].val, i + 2
		}
		return "", i + 1
	case strings.HasPrefix(v, short):
		return v[len(short):], i + 1
	}
	return "", i + 1
}

func unwrapCommand(a *analyzer, words []word) unwrapped {
	p := parseArgs(words[1:], flagSpec{stopAtOperand: true})
	if p.has("v", "V") || len(p.operands) == 0 {
		return unwrapped{} // command -v only says where a program is
	}
	start := p.operands[0] + 1
	return unwrapped{inner: words[start:], text: wordsText(words[:start])}
}

func unwrapTime(a *analyzer, words []word) unwrapped {
	spec := flagSpec{short: "fo", long: []string{"format", "output"}, stopAtOperand: true}
	args := words[1:]
	p := parseArgs(args, spec)
	if f, ok := p.get("o", "output"); ok {
		a.writes(wordsText(words), literalWord(f.value), a.dir, "writes to")
	}
	if len(p.operands) == 0 {
		return unwrapped{}
	}
	start := p.operands[0]
	return unwrapped{inner: args[start:], text: wordsText(words[:start+1])}
}

// unwrapNice strips nice, whose "-10" is an option with a number.
func unwrapNice(a *analyzer, words []word) unwrapped {
	args := words[1:]
	i := 0
	for i < len(args) && args[i].lit && strings.HasPrefix(args[i].val, "-") {
		v := args[i].val
		i++
		if v == "--" {
			break
		}
		if v == "-n" || v == "--adjustment" {
			i++
		}
	}
	if i >= len(args) {
		return unwrapped{}
	}
	return unwrapped{inner: args[i:], text: wordsText(words[:i+1])}
}

func unwrapTimeout(a *analyzer, words []word) unwrapped {
	spec := flagSpec{short: "sk", long: []string{"signal", "kill-after"}, stopAtOperand: true}
	args := words[1:]
	p := parseArgs(args, spec)
	if len(p.operands) < 2 {
		return unwrapped{}
	}
	start := p.operands[1] // after the duration
	return unwrapped{inner: args[start:], text: wordsText(words[:start+1])}
}

func unwrapTaskset(a *analyzer, words []word) unwrapped {
	args := words[1:]
	p := parseArgs(args, flagSpec{stopAtOperand: true})
	if p.has("p", "pid") || len(p.operands) < 2 {
		return unwrapped{}
	}
	start := p.operands[1]
	return unwrapped{inner: args[start:], text: wordsText(words[:start+1])}
}

// unwrapFlock strips flock FILE COMMAND, and judges flock FILE -c STRING as code.
func unwrapFlock(a *analyzer, words []word) unwrapped {
	spec := flagSpec{short: "wEc", long: []string{"timeout", "wait", "conflict-exit-code", "command"}, stopAtOperand: true}
	args := words[1:]
	p := parseArgs(args, spec)
	if f, ok := p.get("c", "command"); ok {
		a.code(wordsText(words), f.value)
		return unwrapped{handled: true}
	}
	if len(p.operands) < 2 {
		return unwrapped{}
	}
	start := p.operands[1]
	return unwrapped{inner: args[start:], text: wordsText(words[:start+1])}
}

// unwrapPrivileged strips sudo and its kind: the command runs as root (or another
// user), which is High whatever it is.
func unwrapPrivileged(name string, spec flagSpec) wrapper {
	spec.stopAtOperand = true
	return func(a *analyzer, words []word) unwrapped {
		text := wordsText(words)
		args := words[1:]
		p := parseArgs(args, spec)
		a.add(High, text, "runs a command as root or another user ("+name+")")
		if name == "sudo" && p.has("e", "edit") {
			a.add(High, text, "edits files as root (sudo -e)")
			return unwrapped{handled: true}
		}
		// sudo's own VAR=value arguments set the environment of the command.
		var env []string
		start := len(args)
		for _, i := range p.operands {
			w := args[i]
			if w.lit && envName.MatchString(w.val) {
				env = append(env, w.val)
				continue
			}
			start = i
			break
		}
		if start == len(args) {
			if !p.has("l", "list", "v", "validate", "k", "K", "reset-timestamp", "remove-timestamp", "V", "version", "h", "help") {
				a.add(High, text, "opens a shell as root or another user ("+name+")")
			}
			return unwrapped{handled: true}
		}
		inner := args[start:]
		if p.has("s", "shell", "i", "login") {
			// sudo -s CMD runs "$SHELL -c CMD": the words are code.
			a.code(text, wordsText(inner))
			return unwrapped{handled: true}
		}
		return unwrapped{inner: inner, text: wordsText(words[:start+1]), env: env}
	}
}

// unwrapXargs strips xargs: the command gets arguments read from the input, which are
// only known when it runs (and stand in for -I's replacement string).
func unwrapXargs(a *analyzer, words []word) unwrapped {
	spec := flagSpec{
		short:         "adEILnPs",
		long:          []string{"arg-file", "delimiter", "eof", "replace", "max-lines", "max-args", "max-procs", "max-chars", "process-slot-var"},
		stopAtOperand: true,
	}
	args := words[1:]
	p := parseArgs(args, spec)
	replace := ""
	if f, ok := p.get("I", "replace"); ok {
		replace = f.value
		if replace == "" {
			replace = "{}"
		}
	} else if f, ok := p.get("i"); ok {
		replace = f.value
		if replace == "" {
			replace = "{}"
		}
	}
	if len(p.operands) == 0 {
		return unwrapped{} // xargs alone runs echo
	}
	start := p.operands[0]
	inner := append([]word(nil), args[start:]...)
	if replace != "" {
		for i := 1; i < len(inner); i++ {
			if strings.Contains(inner[i].val, replace) {
				inner[i] = unknownWord(inner[i].src)
			}
		}
	}
	return unwrapped{inner: inner, text: wordsText(words[:start+1]), extraInput: replace == ""}
}

// unwrapWatch strips watch -x; without -x, watch runs its words joined as sh -c does.
func unwrapWatch(a *analyzer, words []word) unwrapped {
	spec := flagSpec{short: "nq", long: []string{"interval", "equexit"}, stopAtOperand: true}
	args := words[1:]
	p := parseArgs(args, spec)
	if len(p.operands) == 0 {
		return unwrapped{}
	}
	start := p.operands[0]
	if p.has("x", "exec") {
		return unwrapped{inner: args[start:], text: wordsText(words[:start+1])}
	}
	a.code(wordsText(words), joinValues(args[start:]))
	return unwrapped{handled: true}
}

func unwrapBusybox(a *analyzer, words []word) unwrapped {
	if len(words) < 2 || !words[1].lit || strings.HasPrefix(words[1].val, "-") {
		return unwrapped{}
	}
	return unwrapped{inner: words[1:], text: "busybox"}
}

// joinValues joins the words' values with spaces, as a program that runs its arguments
// as one shell string does.
func joinValues(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.val
	}
	return strings.Join(parts, " ")
}
