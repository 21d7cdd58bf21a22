package safety

import (
	"slices"
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/lazy"
)

// downloaders fetch from the network; what they print must not become code.
var downloaders = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true,
		"xh": true, "xhs": true, "lwp-request": true, "lwp-download": true, "get": true, "axel": true,
		"nc": true, "ncat": true, "netcat": true, "socat": true, "tftp": true, "ftp": true,
	}
})

var shellNames = []string{"sh", "bash", "dash", "zsh", "ksh", "mksh", "ash", "yash", "posh", "fish", "csh", "tcsh", "rbash", "ksh93", "pdksh", "oksh", "loksh"}

// shell judges sh, bash and the like: -c runs its operand as code, a file operand is a
// script, and no operand (or -s) reads the commands from the input.
func shell(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	spec := flagSpec{short: "oO", long: []string{"rcfile", "init-file"}, stopAtOperand: true}
	// Bash's "+o name" and "+O name" turn options off: the same shape as -o.
	args := make([]word, len(c.args))
	copy(args, c.args)
	for i, w := range args {
		if w.lit && strings.HasPrefix(w.val, "+") && len(w.val) > 1 {
			args[i] = literalWord("-" + w.val[1:])
		}
	}
	p := parseArgs(args, spec)
	if p.unknown {
		a.add(High, c.text, "starts a shell with options only known when it runs")
	}
	if p.has("c", "command") {
		if len(p.operands) == 0 {
			if c.extraInput && a.stdin.download {
				a.add(Critical, c.text, "runs shell code downloaded from the network")
				return
			}
			a.add(High, c.text, "runs shell code given by its input")
			return
		}
		a.shellCode(c, c.args[p.operands[0]])
		return
	}
	if p.has("s") || len(p.operands) == 0 {
		a.codeFromInput(c, "shell commands", p.has("i"))
		return
	}
	a.scriptFile(c, c.args[p.operands[0]], "the shell script")
}

// shellCode judges w, a string a shell runs as code. Code only known when it runs is
// Critical: nobody has seen it, and it could delete the workspace.
func (a *analyzer) shellCode(c *call, w word) {
	c.cmd.carrier = w.lit
	switch {
	case w.lit:
		a.code(c.text, w.val)
	case fromNetwork(w):
		a.add(Critical, c.text, "runs code downloaded from the network")
	default:
		c.cmd.RunTime = true
		// Recorded as what runs, so that rules know something they cannot see runs.
		a.commands = append(a.commands, Command{Program: w.src, Nested: true, dynamicProgram: true, RunTime: true, anything: true})
		a.add(Critical, c.text, "runs shell code only known when it runs ("+w.src+"), which parley cannot see")
		// What can be seen of it is still judged: sh -c "rm -rf $DIR".
		if f, err := parse(w.val); err == nil && a.depth < maxDepth {
			a.depth++
			saved := a.dir
			a.script(w.val, f.Stmts, true)
			a.dir = saved
			a.depth--
		}
	}
}

// codeFromInput judges a program that runs the code on its input (sh, sh -s, python -):
// code another program prints, or a heredoc with expansions, is only known when it
// runs (Critical); literal text is judged as the code it is; a file is a script.
func (a *analyzer) codeFromInput(c *call, what string, interactive bool) {
	in := a.stdin
	shellCode := what == "shell commands"
	switch {
	case in.download:
		a.add(Critical, c.text, "runs "+what+" downloaded from the network")
	case in.kind == stdinPipe && in.unseen:
		c.cmd.RunTime, c.cmd.anything = true, true
		a.add(Critical, c.text, "runs the "+what+" another program prints, which parley cannot see")
	case in.kind == stdinText && in.unseen:
		c.cmd.RunTime, c.cmd.anything = true, true
		a.add(Critical, c.text, "runs "+what+" from a heredoc only known when it runs")
		if shellCode {
			if f, err := parse(in.text); err == nil && a.depth < maxDepth {
				a.depth++
				a.script(in.text, f.Stmts, true)
				a.depth--
			}
		}
	case in.kind == stdinPipe || in.kind == stdinText:
		if strings.TrimSpace(in.text) == "" {
			return
		}
		if shellCode {
			a.add(Medium, c.text, "runs the "+what+" it is given")
			a.code(c.text, in.text)
			return
		}
		a.inlineCode(c, strings.TrimSuffix(what, " code"), in.text)
	case in.kind == stdinFile:
		// The file is the code, not where its input comes from: sh - < - reads a file
		// named -, and would otherwise be followed back here for ever.
		a.stdin = stdinSource{}
		a.scriptFile(c, in.file, "the "+what+" in")
		a.stdin = in
	case interactive || in.kind == stdinInherited:
		a.add(Medium, c.text, "starts an interactive interpreter")
	}
}

// scriptFile judges a program that runs the script file w: Medium, and, for a file the
// agent can change (in the workspace, or only known when it runs), no "always".
func (a *analyzer) scriptFile(c *call, w word, what string) {
	if fromNetwork(w) {
		a.add(Critical, c.text, "runs a script downloaded from the network")
		return
	}
	if !w.lit {
		a.add(High, c.text, "runs a script only known when it runs ("+w.src+")")
		a.codeFile(w.src)
		return
	}
	if w.val == "/dev/stdin" || w.val == "-" || w.val == "/dev/fd/0" {
		if strings.Contains(what, "shell") {
			a.codeFromInput(c, "shell commands", false)
		} else {
			a.codeFromInput(c, strings.TrimSuffix(strings.TrimPrefix(what, "the "), " program")+" code", false)
		}
		return
	}
	loc := a.locate(w, a.dir)
	if loc.outside() && loc.place != placeUnknown {
		a.add(Medium, c.text, "runs "+what+" "+loc.describe())
		return
	}
	a.add(Medium, c.text, "runs "+what+" "+w.val+", which the agent can change")
	a.codeFile(w.val)
}

// su runs its -c string as code, as another user.
func su(a *analyzer, c *call) {
	a.add(High, c.text, "runs a command as another user (su)")
	p := parseArgs(c.args, flagSpec{short: "csgG", long: []string{"command", "shell", "group", "supp-group", "session-command", "whitelist-environment"}})
	if f, ok := p.get("c", "command", "session-command"); ok {
		a.shellCode(c, f.valueWord(c.args))
		return
	}
	a.add(High, c.text, "opens a shell as another user (su)")
}

// eval runs its arguments, joined by spaces, as code.
func eval(a *analyzer, c *call) {
	for _, w := range c.args {
		if fromNetwork(w) {
			a.add(Critical, c.text, "evaluates code downloaded from the network")
			return
		}
	}
	joined := word{src: wordsText(c.args), val: joinValues(c.args), lit: true}
	for _, w := range c.args {
		joined.lit = joined.lit && w.lit
	}
	a.shellCode(c, joined)
}

// source runs a file in the current shell.
func source(a *analyzer, c *call) {
	if len(c.args) == 0 {
		return
	}
	a.scriptFile(c, c.args[0], "the shell script")
}

// trap runs its first operand as code when a signal comes.
func trap(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{stopAtOperand: true})
	if p.has("l", "p") || len(p.operands) < 2 {
		return
	}
	a.shellCode(c, c.args[p.operands[0]])
}

// interpreter describes a language runtime: the options that take inline code, and
// those that take a value.
type interpreter struct {
	language string
	code     []string // options whose value is code ("c", "e", "eval")
	spec     flagSpec
	module   string // the option that runs a module ("m" for python)
}

var interpreters = sync.OnceValue(func() map[string]interpreter {
	return map[string]interpreter{
		"python":    {language: "Python", code: []string{"c"}, spec: flagSpec{short: "cmWXQ"}, module: "m"},
		"node":      {language: "JavaScript", code: []string{"e", "eval", "p", "print"}, spec: flagSpec{short: "eprC", long: []string{"eval", "print", "require", "import", "loader", "input-type", "experimental-loader", "conditions"}}},
		"deno":      {language: "JavaScript", code: []string{"eval"}, spec: flagSpec{}},
		"bun":       {language: "JavaScript", code: []string{"e", "eval", "p", "print"}, spec: flagSpec{short: "ep", long: []string{"eval", "print"}}},
		"perl":      {language: "Perl", code: []string{"e", "E"}, spec: flagSpec{short: "eEIMmxd"}},
		"ruby":      {language: "Ruby", code: []string{"e"}, spec: flagSpec{short: "eIrC"}},
		"php":       {language: "PHP", code: []string{"r"}, spec: flagSpec{short: "rdcfBRFEz"}},
		"lua":       {language: "Lua", code: []string{"e"}, spec: flagSpec{short: "el"}},
		"luajit":    {language: "Lua", code: []string{"e"}, spec: flagSpec{short: "elbjO"}},
		"rscript":   {language: "R", code: []string{"e"}, spec: flagSpec{short: "e"}},
		"r":         {language: "R", code: []string{"e"}, spec: flagSpec{short: "e"}},
		"pwsh":      {language: "PowerShell", code: []string{"c", "command", "encodedcommand", "ec"}, spec: flagSpec{short: "c", long: []string{"command", "encodedcommand", "file"}}},
		"osascript": {language: "AppleScript", code: []string{"e"}, spec: flagSpec{short: "e"}},
		"tclsh":     {language: "Tcl", spec: flagSpec{}},
		"wish":      {language: "Tcl", spec: flagSpec{}},
		"expect":    {language: "Tcl", code: []string{"c"}, spec: flagSpec{short: "cf"}},
		"julia":     {language: "Julia", code: []string{"e", "eval", "E", "print"}, spec: flagSpec{short: "eEpLJ", long: []string{"eval", "print", "load", "project"}}},
		"octave":    {language: "Octave", code: []string{"eval"}, spec: flagSpec{long: []string{"eval"}}},
		"erl":       {language: "Erlang", code: []string{"eval"}, spec: flagSpec{long: []string{"eval"}}},
		"elixir":    {language: "Elixir", code: []string{"e", "eval"}, spec: flagSpec{short: "er", long: []string{"eval"}}},
		"groovy":    {language: "Groovy", code: []string{"e"}, spec: flagSpec{short: "e"}},
		"scala":     {language: "Scala", code: []string{"e"}, spec: flagSpec{short: "e"}},
		"kotlin":    {language: "Kotlin", code: []string{"e"}, spec: flagSpec{short: "e"}},
		"guile":     {language: "Scheme", code: []string{"c"}, spec: flagSpec{short: "cels"}},
		"racket":    {language: "Racket", code: []string{"e"}, spec: flagSpec{short: "efrl", long: []string{"eval"}}},
		"sbcl":      {language: "Lisp", code: []string{"eval"}, spec: flagSpec{long: []string{"eval", "load", "script"}}},
		"emacs":     {language: "Emacs Lisp", code: []string{"eval"}, spec: flagSpec{long: []string{"eval", "load", "script"}}},
		"swift":     {language: "Swift", code: []string{"e"}, spec: flagSpec{short: "e"}},
		"dart":      {language: "Dart", spec: flagSpec{}},
		"jshell":    {language: "Java", spec: flagSpec{}},
		"pypy":      {language: "Python", code: []string{"c"}, spec: flagSpec{short: "cmWXQ"}, module: "m"},
		"gdb":       {language: "GDB commands", code: []string{"ex", "eval-command", "iex", "init-eval-command"}, spec: flagSpec{long: []string{"ex", "eval-command", "iex", "init-eval-command", "x", "command", "ix", "init-command", "batch"}}},
		"vim":       {language: "Vim script", code: []string{"c", "cmd"}, spec: flagSpec{short: "cSsuUTwW", long: []string{"cmd"}}},
		"nvim":      {language: "Vim script", code: []string{"c", "cmd"}, spec: flagSpec{short: "cSsuUwW", long: []string{"cmd"}}},
		"vi":        {language: "Vim script", code: []string{"c", "cmd"}, spec: flagSpec{short: "cSsuUwW", long: []string{"cmd"}}},
		"ex":        {language: "Vim script", code: []string{"c", "cmd"}, spec: flagSpec{short: "cSsuUwW", long: []string{"cmd"}}},
		"sqlite3":   {language: "SQLite commands", code: []string{"cmd"}, spec: flagSpec{long: []string{"cmd", "init", "separator", "newline", "nullvalue"}}},
	}
})

var pythonVersion = lazy.Regexp(`^(python|pypy)[0-9.]*$`)

// interpreterFor returns the interpreter a program name is, if any.
func interpreterFor(name string) (interpreter, bool) {
	if pythonVersion().MatchString(name) {
		return interpreters()["python"], true
	}
	switch name {
	case "nodejs":
		name = "node"
	case "powershell":
		name = "pwsh"
	case "gawk", "awk":
		return interpreter{}, false
	}
	in, ok := interpreters()[name]
	return in, ok
}

// runInterpreter judges a language runtime: inline code, a module, a script file or
// code read from the input.
func runInterpreter(a *analyzer, c *call) {
	in, _ := interpreterFor(c.name)
	if versionQuery(c.args) {
		return
	}
	spec := in.spec
	spec.stopAtOperand = true
	p := parseArgs(c.args, spec)
	if p.unknown {
		a.add(High, c.text, "starts "+c.name+" with options only known when it runs")
	}
	if c.name == "deno" || c.name == "bun" {
		if len(p.operands) > 0 && c.args[p.operands[0]].val == "eval" && len(p.operands) > 1 {
			a.inlineWord(c, in.language, c.args[p.operands[1]])
			return
		}
	}
	handled := false
	if c.name == "gdb" || c.name == "erl" {
		// Their long options have one dash: -ex, -eval.
		for i, w := range c.args {
			v := strings.TrimLeft(w.val, "-")
			name, value, has := strings.Cut(v, "=")
			if !w.lit || !strings.HasPrefix(w.val, "-") || !slices.Contains(in.code, name) {
				continue
			}
			if !has && i+1 < len(c.args) {
				a.inlineWord(c, in.language, c.args[i+1])
			} else {
				a.inlineWord(c, in.language, literalWord(value))
			}
			handled = true
		}
	}
	for _, f := range p.flags {
		for _, name := range in.code {
			if matchesFlag(f, name) || f.name == name {
				a.inlineWord(c, in.language, f.valueWord(c.args))
				handled = true
			}
		}
	}
	if handled {
		if (c.name == "perl" || c.name == "ruby") && (hasClusterLetter(c.args, 'i') || p.has("i")) {
			// perl -pi -e CODE FILES edits the files in place.
			for _, w := range p.operandWords(c.args) {
				a.writes(c.text, w, a.dir, "edits")
			}
		}
		return
	}
	if in.module != "" {
		if f, ok := p.get(in.module); ok {
			a.pythonModule(c, f.value, p)
			return
		}
	}
	switch c.name {
	case "sqlite3":
		sqlite(a, c, p)
		return
	case "gdb", "vim", "nvim", "vi", "ex", "emacs":
		a.add(Medium, c.text, "starts "+c.name)
		return
	}
	if len(p.operands) == 0 || c.args[p.operands[0]].val == "-" {
		a.codeFromInput(c, in.language+" code", false)
		return
	}
	a.scriptFile(c, c.args[p.operands[0]], "the "+in.language+" program")
}

func (a *analyzer) inlineWord(c *call, language string, w word) {
	switch {
	case fromNetwork(w):
		a.add(Critical, c.text, "runs "+language+" code downloaded from the network")
	case !w.lit:
		c.cmd.RunTime, c.cmd.anything = true, true
		a.add(Critical, c.text, "runs "+language+" code only known when it runs, which parley cannot see")
	default:
		a.inlineCode(c, language, w.val)
	}
}

// sqlite judges sqlite3: its dot-commands .shell and .system run shell commands,
// .output and .once write files, .load loads a library.
func sqlite(a *analyzer, c *call, p parsedArgs) {
	operands := p.operandWords(c.args)
	if len(operands) > 0 {
		a.writes(c.text, operands[0], a.dir, "opens the database")
	}
	for _, w := range operands[min(1, len(operands)):] {
		a.sqliteText(c, w)
	}
	for _, f := range p.flags {
		if f.name == "cmd" {
			a.sqliteText(c, f.valueWord(c.args))
		}
		if f.name == "init" {
			a.add(Medium, c.text, "runs the SQLite commands of "+f.value)
			a.codeFile(f.value)
		}
	}
	if len(operands) <= 1 && a.stdin.kind != stdinInherited {
		a.sqliteText(c, word{val: a.stdin.text, lit: !a.stdin.unseen && a.stdin.kind != stdinFile})
	}
}

func (a *analyzer) sqliteText(c *call, w word) {
	if !w.lit {
		a.add(Critical, c.text, "runs SQLite commands only known when they run, which can run any program (.shell)")
		return
	}
	for _, line := range strings.Split(w.val, "\n") {
		line = strings.TrimSpace(line)
		cmd, rest, _ := strings.Cut(line, " ")
		switch cmd {
		case ".shell", ".system":
			a.add(High, c.text, "runs a shell command from SQLite ("+cmd+")")
			a.code(c.text, rest)
		case ".output", ".once", ".save", ".backup", ".excel":
			a.writes(c.text, literalWord(strings.Trim(strings.TrimSpace(rest), `'"`)), a.dir, "writes to")
		case ".load", ".read", ".import":
			a.add(High, c.text, "loads or runs what "+strings.TrimSpace(rest)+" holds ("+cmd+")")
		}
	}
	if strings.Contains(strings.ToLower(w.val), "attach") {
		a.add(Medium, c.text, "attaches another database file")
	}
}

// pythonModule judges python -m MODULE: the module is found on a path that starts with
// the current directory, so any module may be the workspace's own code.
func (a *analyzer) pythonModule(c *call, module string, p parsedArgs) {
	rest := p.operandWords(c.args)
	switch module {
	case "pip", "pip3":
		a.program(nil, []string{c.cmd.Program + " -m"}, append([]word{literalWord("pip")}, rest...), false)
	case "http.server", "SimpleHTTPServer", "smtpd":
		a.add(Medium, c.text, "serves files over the network")
	default:
		a.add(Medium, c.text, "runs the Python module "+module+", which may be the workspace's own code")
		a.codeFile("the Python module " + module)
	}
}
