package safety

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// call is one simple command being judged, after its wrappers were stripped.
type call struct {
	cmd  *Command // its record in the analysis
	name string   // programName of the program
	args []word   // the arguments (the program not included)
	text string   // cmd.String(), for findings
	// extraInput is set when more arguments come at run time (xargs).
	extraInput bool
}

func (c *call) argValues() []string {
	out := make([]string, len(c.args))
	for i, w := range c.args {
		out[i] = w.val
	}
	return out
}

func (a *analyzer) callExpr(ce *syntax.CallExpr) {
	var env []string
	for _, as := range ce.Assigns {
		// Assignments before a command are judged with it (in program); alone, they
		// set the variable for the rest of the line.
		if e := a.assign(as, len(ce.Args) == 0); e != "" {
			env = append(env, e)
		}
	}
	if len(ce.Args) == 0 {
		return
	}
	a.run(env, nil, a.words(ce.Args), false)
}

// unwrapped is what a wrapper (env, sudo, timeout...) starts.
type unwrapped struct {
	inner []word   // the command it runs; nil when it runs none (it is then the program)
	text  string   // the wrapper's own words as shell text ("timeout 60")
	env   []string // NAME=value assignments it makes (env)
	// extraInput is set when the wrapper adds arguments read at run time (xargs).
	extraInput bool
	// handled is set when the wrapper judged everything itself (watch "cmd").
	handled bool
	// chdir is set when the command runs in dir ("" when only known at run time).
	chdir bool
	dir   string
}

// wrapper strips one wrapper off words (words[0] is the wrapper).
type wrapper func(a *analyzer, words []word) unwrapped

// run judges words as a command: wrappers are stripped (each adding its own findings)
// until the program they start is reached, which is recorded and judged.
func (a *analyzer) run(env, wrappers []string, words []word, extraInput bool) {
	savedDir, moved := a.dir, false
	defer func() {
		if moved {
			a.dir = savedDir
		}
	}()
	for len(words) > 0 {
		prog := words[0]
		if !prog.lit {
			a.dynamicProgram(env, wrappers, words)
			return
		}
		w, ok := wrapperTableOf()[programName(prog.val)]
		if !ok {
			break
		}
		u := w(a, words)
		if u.handled {
			return
		}
		if u.inner == nil {
			break // the wrapper runs nothing else: judge it as a program
		}
		env = append(env, u.env...)
		if u.text != "" {
			wrappers = append(wrappers, u.text)
		}
		extraInput = extraInput || u.extraInput
		if u.chdir {
			a.dir, moved = u.dir, true
		}
		words = u.inner
	}
	if len(words) == 0 {
		return
	}
	a.program(env, wrappers, words, extraInput)
}

// program records and judges the program words[0] with its arguments.
func (a *analyzer) program(env, wrappers []string, words []word, extraInput bool) {
	if !a.spend(shownWord(words[0])) {
		return
	}
	cmd := Command{Env: env, Wrappers: wrappers, Program: words[0].val, Literal: true, Nested: a.nested}
	for _, w := range words[1:] {
		cmd.Args = append(cmd.Args, w.val)
		cmd.shown = append(cmd.shown, shownWord(w))
		if !w.lit {
			cmd.Literal = false
		}
	}
	if extraInput {
		cmd.Literal = false
		cmd.RunTime, cmd.input = true, true // what the input holds may be options, or a subcommand
	}
	a.commands = append(a.commands, cmd)
	c := &call{cmd: &a.commands[len(a.commands)-1], name: programName(words[0].val), args: words[1:], extraInput: extraInput}
	c.text = c.cmd.String()
	for _, e := range env {
		name, value, _ := strings.Cut(e, "=")
		a.judgeVariable(c.text, name, value)
	}
	if slices.Contains(a.funcs, words[0].val) {
		a.add(Critical, c.text, "defines a function that runs itself (a fork bomb)")
		return
	}
	name := words[0].val
	if fn, ok := a.shell.funcs[name]; ok {
		a.callFunction(fn, words[1:])
		return
	}
	if v, ok := a.shell.aliases[name]; ok && len(env) == 0 && len(wrappers) == 0 {
		// An alias expands to its text followed by the rest of the words.
		if !v.lit {
			c.cmd.RunTime, c.cmd.anything = true, true
			a.add(Critical, c.text, "runs an alias only known when it runs, which parley cannot see")
			return
		}
		delete(a.shell.aliases, name) // an alias is not expanded in its own text
		a.code(c.text, v.val+" "+wordsText(words[1:]))
		a.shell.aliases[name] = v
		return
	}
	if path, ok := a.shell.rebound[name]; ok {
		a.commands = a.commands[:len(a.commands)-1]
		a.program(env, wrappers, append([]word{path}, words[1:]...), extraInput)
		return
	}
	if name == "shift" && a.shell.bound {
		n := 1
		if len(words) > 1 && isNumber(words[1].val) && len(words[1].val) < 3 {
			n = int(words[1].val[0] - '0')
			if len(words[1].val) == 2 {
				n = n*10 + int(words[1].val[1]-'0')
			}
		}
		a.shell.positional = a.shell.positional[min(n, len(a.shell.positional)):]
		return
	}
	if j, ok := programs()[c.name]; ok {
		j(a, c)
		return
	}
	if strings.HasPrefix(c.name, "mkfs.") || strings.HasPrefix(c.name, "mkfs_") {
		a.add(Critical, c.text, "formats a disk ("+c.name+")")
		return
	}
	if _, ok := interpreterFor(c.name); ok {
		runInterpreter(a, c)
		return
	}
	a.unknownProgram(c)
}

// dynamicProgram records a command whose program is only known when it runs.
func (a *analyzer) dynamicProgram(env, wrappers []string, words []word) {
	if !a.spend(words[0].src) {
		return
	}
	cmd := Command{Env: env, Wrappers: wrappers, Program: words[0].src, Nested: a.nested, dynamicProgram: true}
	for _, w := range words[1:] {
		cmd.Args = append(cmd.Args, w.val)
		cmd.shown = append(cmd.shown, shownWord(w))
	}
	cmd.RunTime = true
	a.commands = append(a.commands, cmd)
	if len(a.funcs) > 0 && !a.shell.bound && positional(words[0].src) {
		// "$@" in a function's body: each call is judged with its own words.
		return
	}
	if fromNetwork(words[0]) {
		a.add(Critical, cmd.String(), "runs a command downloaded from the network")
		return
	}
	// The program may be rm, a shell, an interpreter: arguments that would make one of
	// them critical make this critical.
	for _, as := range []string{"rm", "sh", "python3", "find"} {
		if why := a.probe(as, words[1:]); why != "" {
			a.add(Critical, cmd.String(), "runs a command only known when it runs ("+words[0].src+"), with arguments that, given to "+as+", "+why)
			return
		}
	}
	a.add(High, cmd.String(), "runs a command only known when it runs ("+words[0].src+")")
}

// positional reports whether src is only a positional parameter: "$@", $1, "${2}"…
func positional(src string) bool {
	s := strings.Trim(src, `"`)
	s = strings.TrimPrefix(s, "$")
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	return s == "@" || s == "*" || len(s) == 1 && s[0] >= '1' && s[0] <= '9'
}

// probe judges args as the arguments of the program as, apart from the analysis, and
// returns the reason of a Critical finding ("" without one).
func (a *analyzer) probe(as string, args []word) string {
	if a.depth >= maxDepth {
		return "hides commands too deeply to judge"
	}
	p := &analyzer{ctx: a.ctx, dir: a.dir, eval: a.eval, depth: a.depth + 1, open: map[*syntax.Word]bool{}, stdin: a.stdin, nested: true, budget: a.budget}
	p.program(nil, nil, append([]word{literalWord(as)}, args...), false)
	for _, f := range p.findings {
		if f.Tier == Critical {
			return f.Reason
		}
	}
	return ""
}

// unknownProgram judges a program parley has no entry for: Medium, and what it may run
// is looked for in its arguments. Any program may start another (a wrapper parley does
// not know: script -c, a test runner's --exec), so an argument that is shell code, or
// arguments that start with a known program, are judged as the command they would be;
// a Critical one makes the call Critical. A program from the workspace is code the
// agent can change.
func (a *analyzer) unknownProgram(c *call) {
	prog := c.cmd.Program
	a.mayRun(c)
	if versionQuery(c.args) {
		return
	}
	if strings.Contains(prog, "/") {
		loc := a.locate(literalWord(prog), a.dir)
		if loc.place == placeInside || loc.place == placeRoot || loc.place == placeUnknown {
			a.add(Medium, c.text, "runs "+prog+", a program from the workspace, which the agent can change")
			a.codeFile(prog)
			return
		}
	}
	a.add(Medium, c.text, "runs "+prog+", a program parley does not know")
}

// mayRun judges what a program parley does not know may run with these arguments: each
// literal argument as shell code, and the words from each known program name on as a
// command. Only Critical findings count: the rest is what the program's Medium covers.
func (a *analyzer) mayRun(c *call) {
	if a.depth >= maxDepth {
		return
	}
	for i, w := range c.args {
		if !w.lit {
			continue
		}
		if strings.ContainsAny(w.val, " ;|&") {
			p := &analyzer{ctx: a.ctx, dir: a.dir, depth: a.depth + 1, open: map[*syntax.Word]bool{}, nested: true, budget: a.budget}
			p.code(c.text, w.val)
			if why := critical(p); why != "" {
				a.add(Critical, c.text, "may run "+QuoteWord(w.val)+", which "+why)
				return
			}
		}
		name := programName(w.val)
		_, known := programs()[name]
		_, wraps := wrapperTableOf()[name]
		if known || wraps {
			if why := a.probe(w.val, c.args[i+1:]); why != "" {
				a.add(Critical, c.text, "may run "+wordsText(c.args[i:])+", which "+why)
				return
			}
		}
	}
}

// critical returns the reason of p's first Critical finding, "" without one.
func critical(p *analyzer) string {
	for _, f := range p.findings {
		if f.Tier == Critical {
			return f.Reason
		}
	}
	return ""
}

// versionQuery reports whether args only ask a program for its version or help.
func versionQuery(args []word) bool {
	if len(args) != 1 || !args[0].lit {
		return false
	}
	switch args[0].val {
	case "--version", "-version", "--help", "-help", "-h", "-V", "version":
		return true
	}
	return false
}

// judgeVariable judges NAME=value set for a command or the rest of the line.
func (a *analyzer) judgeVariable(cmd, name, value string) {
	if name == "PATH" {
		if !strings.Contains(value, "$PATH") && !strings.Contains(value, "${PATH}") {
			a.add(Medium, cmd, "replaces PATH, which changes which programs run")
		} else {
			a.add(Medium, cmd, "changes PATH, which changes which programs run")
		}
		return
	}
	if name == "GOFLAGS" {
		if strings.Contains(value, "exec") {
			a.add(High, cmd, "sets GOFLAGS with -exec or -toolexec, which makes go run a program")
		}
		return
	}
	if strings.HasPrefix(name, "BASH_FUNC_") {
		// An exported function: bash defines it from the environment.
		a.add(Medium, cmd, "defines a shell function through the environment ("+name+")")
		a.code(cmd, "f"+value)
		return
	}
	if name == "IFS" {
		return // before a command it changes only this shell's splitting of that line
	}
	if why, ok := CodeVariable(name); ok {
		a.add(High, cmd, "sets "+name+", which "+why)
		switch {
		case commandVariables()[name]:
			a.code(cmd, value)
		case name == "PS4" || name == "PROMPT_COMMAND":
			a.hiddenCode(cmd, value, "the value of "+name)
			if name == "PROMPT_COMMAND" {
				a.code(cmd, value)
			}
		}
	}
}
