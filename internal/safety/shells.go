package safety

import (
	"regexp"
	"strings"
)

// downloaders fetch from the network; what they print must not become code.
var downloaders = map[string]bool{
	"curl": true, "wget": true, "fetch": true, "aria2c": true, "http": true, "https": true,
	"xh": true, "xhs": true, "lwp-request": true, "lwp-download": true, "get": true, "axel": true,
	"nc": true, "ncat": true, "netcat": true, "socat": true, "tftp": true, "ftp": true,
}

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

// shellCode judges w, a string a shell runs as code.
func (a *analyzer) shellCode(c *call, w word) {
	c.cmd.carrier = w.lit
	switch {
	case w.lit:
		a.code(c.text, w.val)
	case fromNetwork(w):
		a.add(Critical, c.text, "runs code downloaded from the network")
	default:
		a.add(High, c.text, "runs shell code only known when it runs ("+w.src+")")
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

// codeFromInput judges a program that runs the code on its input (sh, sh -s, python -).
func (a *analyzer) codeFromInput(c *call, what string, interactive bool) {
	in := a.stdin
	switch {
	case in.download:
		a.add(Critical, c.text, "runs "+what+" downloaded from the network")
	case in.kind == stdinPipe:
		a.add(High, c.text, "runs the "+what+" piped into it")
	case in.kind == stdinText && in.text != "" && what == "shell commands":
		a.code(c.text, in.text)
	case in.kind == stdinText && in.text != "":
		a.inlineCode(c, what, in.text)
	case in.kind == stdinText:
		a.add(High, c.text, "runs "+what+" from a heredoc only known when it runs")
	case in.kind == stdinFile:
		a.add(Medium, c.text, "runs "+what+" from a file")
	case interactive || in.kind == stdinInherited:
		a.add(Medium, c.text, "starts an interactive interpreter")
	}
}

// scriptFile judges a program that runs the script file w.
func (a *analyzer) scriptFile(c *call, w word, what string) {
	if fromNetwork(w) {
		a.add(Critical, c.text, "runs a script downloaded from the network")
		return
	}
	if !w.lit {
		a.add(High, c.text, "runs a script only known when it runs ("+w.src+")")
		return
	}
	if w.val == "/dev/stdin" || w.val == "-" {
		a.codeFromInput(c, "commands", false)
		return
	}
	loc := a.locate(w, a.dir)
	if loc.outside() {
		a.add(Medium, c.text, "runs "+what+" "+loc.describe())
		return
	}
	a.add(Medium, c.text, "runs "+what+" "+w.val)
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

// alias defines words that a shell may later run as code.
func alias(a *analyzer, c *call) {
	for _, w := range c.args {
		if _, value, ok := strings.Cut(w.val, "="); ok {
			a.shellCode(c, word{src: w.src, val: value, lit: w.lit})
		}
	}
}

// interpreter describes a language runtime: the options that take inline code, and
// those that take a value.
type interpreter struct {
	language string
	code     []string // options whose value is code ("c", "e", "eval")
	spec     flagSpec
	module   string // the option that runs a module ("m" for python)
}

var interpreters = map[string]interpreter{
	"python":    {language: "Python", code: []string{"c"}, spec: flagSpec{short: "cmWXQ"}, module: "m"},
	"node":      {language: "JavaScript", code: []string{"e", "eval", "p", "print"}, spec: flagSpec{short: "epr", long: []string{"eval", "print", "require", "import", "loader", "input-type"}}},
	"deno":      {language: "JavaScript", code: []string{"eval"}, spec: flagSpec{}},
	"bun":       {language: "JavaScript", code: []string{"e", "eval", "p", "print"}, spec: flagSpec{short: "ep", long: []string{"eval", "print"}}},
	"perl":      {language: "Perl", code: []string{"e", "E"}, spec: flagSpec{short: "eEIMmx"}},
	"ruby":      {language: "Ruby", code: []string{"e"}, spec: flagSpec{short: "eIrC"}},
	"php":       {language: "PHP", code: []string{"r"}, spec: flagSpec{short: "rdcf"}},
	"lua":       {language: "Lua", code: []string{"e"}, spec: flagSpec{short: "el"}},
	"rscript":   {language: "R", code: []string{"e"}, spec: flagSpec{short: "e"}},
	"pwsh":      {language: "PowerShell", code: []string{"c", "command", "encodedcommand", "ec"}, spec: flagSpec{short: "c", long: []string{"command", "encodedcommand", "file"}}},
	"osascript": {language: "AppleScript", code: []string{"e"}, spec: flagSpec{short: "e"}},
}

var pythonVersion = regexp.MustCompile(`^(python|pypy)[0-9.]*$`)

// interpreterFor returns the interpreter a program name is, if any.
func interpreterFor(name string) (interpreter, bool) {
	if pythonVersion.MatchString(name) {
		return interpreters["python"], true
	}
	switch name {
	case "nodejs":
		name = "node"
	case "powershell":
		name = "pwsh"
	}
	in, ok := interpreters[name]
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
	if c.name == "deno" || c.name == "bun" {
		if len(p.operands) > 0 && c.args[p.operands[0]].val == "eval" && len(p.operands) > 1 {
			a.inlineWord(c, in.language, c.args[p.operands[1]])
			return
		}
	}
	for _, name := range in.code {
		if f, ok := p.get(name); ok {
			a.inlineWord(c, in.language, f.valueWord(c.args))
			return
		}
	}
	if in.module != "" {
		if f, ok := p.get(in.module); ok {
			a.pythonModule(c, f.value, p)
			return
		}
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
		a.add(High, c.text, "runs "+language+" code only known when it runs")
	default:
		a.inlineCode(c, language, w.val)
	}
}

var (
	codeRunsPrograms = regexp.MustCompile(`\bsystem\s*\(|\bpopen|\bsubprocess\b|\bexec[lv]?p?e?\s*\(|\bspawn|child_process|\bshell_exec|\bpassthru|` + "`" + `|\bos\.exec|Runtime\.getRuntime|\bio\.popen|\bShell\b`)
	codeDeletes      = regexp.MustCompile(`\brmtree\b|\bunlink|\bremove\s*\(|\brmSync|\brm_rf|\brmdir|\bremoveSync|\brm\s*\(|\bRemove-Item|\bdelete_file|\bos\.remove|\bFileUtils\.rm`)
	codeNetwork      = regexp.MustCompile(`\burllib|\brequests\b|\bhttp\.|\bhttps?://|\bfetch\s*\(|\bsocket\b|\bnet\.|\bInvoke-WebRequest|\bLWP\b|\bNet::HTTP|\bopen-uri`)
)

// inlineCode judges code in another language by what it visibly does.
func (a *analyzer) inlineCode(c *call, language, code string) {
	switch {
	case codeRunsPrograms.MatchString(code):
		a.add(High, c.text, "runs "+language+" code that starts other programs")
	case codeDeletes.MatchString(code):
		a.add(High, c.text, "runs "+language+" code that deletes files")
	case codeNetwork.MatchString(code):
		a.add(Medium, c.text, "runs "+language+" code that uses the network")
	default:
		a.add(Medium, c.text, "runs inline "+language+" code")
	}
}

// pythonModule judges python -m MODULE.
func (a *analyzer) pythonModule(c *call, module string, p parsedArgs) {
	rest := p.operandWords(c.args)
	switch module {
	case "pip", "pip3":
		a.program(nil, []string{c.cmd.Program + " -m"}, append([]word{literalWord("pip")}, rest...), false)
	case "pytest", "unittest", "mypy", "compileall", "json.tool", "venv", "doctest", "pydoc", "timeit", "py_compile", "tabnanny", "black", "ruff", "flake8", "pylint", "isort", "coverage", "tox", "nox":
	case "http.server", "SimpleHTTPServer", "smtpd":
		a.add(Medium, c.text, "serves files over the network")
	default:
		a.add(Medium, c.text, "runs the Python module "+module)
	}
}
