package safety

import (
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/lazy"
)

// wrapperTable maps the programs that start another program to how to strip them.
var (
	wrapperTable     map[string]wrapper
	wrapperTableOnce sync.Once
)

// wrapperTableOf returns wrapperTable, made on first use.
func wrapperTableOf() map[string]wrapper {
	wrapperTableOnce.Do(func() {
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
			"toybox":   unwrapBusybox,
			"script":   unwrapScript,
			"parallel": unwrapParallel,
			"entr":     unwrapEntr,
			"sg":       unwrapSg,
			"chroot":   outsideTracking("chroot", "runs a command in another root directory (chroot)", 1, flagSpec{long: []string{"userspec", "groups"}}),
			"systemd-run": outsideTracking("systemd-run", "runs a command as a service of its own, outside parley's tracking and any sandbox (systemd-run)", 0,
				flagSpec{short: "pEHMu", long: []string{"property", "unit", "description", "slice", "uid", "gid", "nice", "setenv", "working-directory", "on-active", "on-boot",
					"on-startup", "on-unit-active", "on-unit-inactive", "on-calendar", "on-clock-change", "on-timezone-change", "path-property", "socket-property",
					"timer-property", "service-type", "machine", "host", "background", "slice-inherit"}}),
			"unshare":          unwrapSimple(flagSpec{short: "SGRw", long: []string{"setuid", "setgid", "root", "wd", "propagation", "map-user", "map-group", "map-users", "map-groups"}}),
			"nsenter":          unwrapSimple(flagSpec{short: "tSGrw", long: []string{"target", "setuid", "setgid", "root", "wd"}}),
			"firejail":         unwrapSimple(flagSpec{}),
			"fakeroot":         unwrapSimple(flagSpec{short: "lsi", long: []string{"lib", "faked"}}),
			"fakechroot":       unwrapSimple(flagSpec{short: "lsce", long: []string{"lib", "config-dir", "environment"}}),
			"strace":           unwrapTracer(flagSpec{short: "eoOpPuIsSbXaE", long: []string{"output", "trace", "signal", "status", "user", "string-limit"}}),
			"ltrace":           unwrapTracer(flagSpec{short: "eoOpPusnaADL", long: []string{"output", "library"}}),
			"valgrind":         unwrapSimple(flagSpec{}),
			"numactl":          unwrapSimple(flagSpec{short: "NmCpPi", long: []string{"cpunodebind", "membind", "physcpubind", "preferred", "interleave"}}),
			"xvfb-run":         unwrapSimple(flagSpec{short: "nsfepw", long: []string{"server-num", "server-args", "auth-file", "error-file", "xauth-protocol", "wait"}}),
			"dbus-run-session": unwrapSimple(flagSpec{long: []string{"config-file", "dbus-daemon"}}),
			"catchsegv":        unwrapSimple(flagSpec{}),
			"caffeinate":       unwrapSimple(flagSpec{short: "t", long: nil}),
			"systemd-inhibit":  unwrapSimple(flagSpec{long: []string{"what", "who", "why", "mode"}}),
			"prlimit":          unwrapSimple(flagSpec{short: "p", long: []string{"pid", "output"}}),
			"setpriv":          unwrapSimple(flagSpec{long: []string{"reuid", "regid", "groups", "inh-caps", "ambient-caps", "bounding-set", "securebits", "selinux-label", "apparmor-profile", "pdeathsig"}}),
			"runcon":           unwrapSimple(flagSpec{short: "turl", long: []string{"type", "user", "role", "range"}}),
			"cgexec":           unwrapSimple(flagSpec{short: "g", long: []string{"sticky"}}),
			"proxychains":      unwrapSimple(flagSpec{short: "f"}),
			"proxychains4":     unwrapSimple(flagSpec{short: "f"}),
			"torsocks":         unwrapSimple(flagSpec{short: "uapP", long: []string{"user", "pass", "address", "port"}}),
			"daemonize":        outsideTracking("daemonize", "starts a daemon that outlives the command (daemonize)", 0, flagSpec{short: "acepluE"}),
		}
	})
	return wrapperTable
}

// outsideTracking strips a wrapper that starts its command somewhere parley's tracking
// and confinement do not reach (a service, another root): High, and the command is
// judged as itself.
func outsideTracking(name, why string, skip int, spec flagSpec) wrapper {
	inner := unwrapOperands(skip, spec)
	return func(a *analyzer, words []word) unwrapped {
		a.add(High, wordsText(words), why)
		return inner(a, words)
	}
}

// unwrapTracer strips strace and ltrace, whose -o writes a file.
func unwrapTracer(spec flagSpec) wrapper {
	inner := unwrapSimple(spec)
	return func(a *analyzer, words []word) unwrapped {
		p := parseArgs(words[1:], spec)
		if f, ok := p.get("o", "output"); ok {
			a.writes(wordsText(words), f.valueWord(words[1:]), a.dir, "writes its trace to")
		}
		return inner(a, words)
	}
}

// unwrapScript strips script: -c runs a shell command; the file operand (typescript by
// default) is written; without -c it starts an interactive shell.
func unwrapScript(a *analyzer, words []word) unwrapped {
	args := words[1:]
	p := parseArgs(args, flagSpec{short: "cEImOBTt", long: []string{"command", "echo", "log-in", "log-out", "log-io", "log-timing", "logging-format", "output-limit"}})
	text := wordsText(words)
	for _, w := range p.operandWords(args) {
		a.writes(text, w, a.dir, "records the session to")
	}
	if len(p.operands) == 0 {
		a.writes(text, literalWord("typescript"), a.dir, "records the session to")
	}
	for _, f := range p.flags {
		if f.name == "O" || f.name == "B" || f.name == "T" || f.long && strings.HasPrefix(f.name, "log-") {
			a.writes(text, f.valueWord(args), a.dir, "records the session to")
		}
	}
	if f, ok := p.get("c", "command"); ok {
		c := &call{cmd: &Command{}, name: "script", text: text}
		a.shellCode(c, f.valueWord(args))
		return unwrapped{handled: true}
	}
	a.add(Medium, text, "starts an interactive shell (script)")
	return unwrapped{handled: true}
}

// unwrapParallel strips GNU parallel: its command runs through a shell once per input,
// {} replaced by the input (only known when it runs).
func unwrapParallel(a *analyzer, words []word) unwrapped {
	args := words[1:]
	spec := flagSpec{short: "jSIaEnNdlLsX", long: []string{"jobs", "sshlogin", "arg-file", "delimiter", "eof", "max-args", "max-replace-args", "max-line-length", "timeout", "workdir", "joblog", "results", "halt", "delay", "tagstring", "colsep", "env", "basefile", "return", "transfer-file", "memfree", "load", "nice", "retries", "tmpdir"}, stopAtOperand: true}
	p := parseArgs(args, spec)
	if len(p.operands) == 0 {
		return unwrapped{}
	}
	start := p.operands[0]
	var command []word
	for _, w := range args[start:] {
		if w.lit && (w.val == ":::" || w.val == "::::" || w.val == ":::+" || w.val == "::::+") {
			break
		}
		command = append(command, w)
	}
	src := joinValues(command)
	if !strings.Contains(src, "{") {
		src += " {}"
	}
	c := &call{cmd: &Command{}, name: "parallel", text: wordsText(words)}
	a.shellCode(c, word{src: src, val: strings.NewReplacer("{}", "$INPUT", "{.}", "$INPUT", "{/}", "$INPUT", "{//}", "$INPUT", "{/.}", "$INPUT", "{#}", "1", "{%}", "1").Replace(src), lit: allLiteral(command)})
	return unwrapped{handled: true}
}

// unwrapEntr strips entr: -s runs its operand through a shell.
func unwrapEntr(a *analyzer, words []word) unwrapped {
	args := words[1:]
	p := parseArgs(args, flagSpec{stopAtOperand: true})
	if len(p.operands) == 0 {
		return unwrapped{}
	}
	start := p.operands[0]
	if p.has("s") {
		a.shellCode(&call{cmd: &Command{}, name: "entr", text: wordsText(words)}, args[start])
		return unwrapped{handled: true}
	}
	return unwrapped{inner: args[start:], text: wordsText(words[:start+1]), extraInput: hasWord(args[start:], "/_")}
}

// unwrapSg strips sg GROUP [-c] COMMAND: the command runs through a shell.
func unwrapSg(a *analyzer, words []word) unwrapped {
	args := words[1:]
	if len(args) < 2 {
		return unwrapped{}
	}
	rest := args[1:]
	if rest[0].lit && rest[0].val == "-c" {
		rest = rest[1:]
	}
	a.shellCode(&call{cmd: &Command{}, name: "sg", text: wordsText(words)}, word{src: wordsText(rest), val: joinValues(rest), lit: allLiteral(rest)})
	return unwrapped{handled: true}
}

// wordsText is words as written, for a wrapper's text.
func wordsText(ws []word) string {
	parts := make([]string, len(ws))
	for i, w := range ws {
		parts[i] = w.src
		if parts[i] == "" {
			parts[i] = QuoteWord(w.val)
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

var envName = lazy.Regexp(`^[A-Za-z_][A-Za-z0-9_]*=`)

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
		case strings.IndexByte(v, '=') > 0:
			u.env = append(u.env, v) // env takes any NAME=value, BASH_FUNC_f%%=… too
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
			if w.lit && envName().MatchString(w.val) {
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
