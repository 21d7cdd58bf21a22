package safety

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"

	"github.com/parley-acp/parley/internal/lazy"
)

// shellState is what the line's shell learns as it runs: functions, aliases and names
// rebound to other programs, and the variables the line sets to known values. A
// function defined in the line is judged again at each call, with "$@" and "$1"… bound
// to the call's words, so `f() { "$@"; }; f rm -rf ~` is the rm it runs.
type shellState struct {
	funcs   map[string]*syntax.FuncDecl
	aliases map[string]word
	rebound map[string]word // hash -p PATH NAME: NAME runs PATH
	// vars are the variables the line set, with their values: known (a literal, or a
	// number from arithmetic) or not (only known when it runs).
	vars map[string]variable
	// positional are "$@" while a function is judged for a call; bound says they are.
	positional []word
	bound      bool
	// assoc are the associative arrays the line declares (declare -A): their
	// subscripts are strings, not arithmetic.
	assoc map[string]bool
	// integer are the variables declared -i, whose values Bash evaluates as arithmetic;
	// nameref those declared -n, whose values it takes as variable names.
	integer map[string]bool
	nameref map[string]bool
}

type variable struct {
	value string
	known bool
}

func (s *shellState) setVar(name, value string, known bool) {
	if s.vars == nil {
		s.vars = map[string]variable{}
	}
	s.vars[name] = variable{value, known}
}

// specialNumbers are parameters that always hold a number.
var specialNumbers = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"#": true, "?": true, "$": true, "!": true, "RANDOM": true, "LINENO": true, "SECONDS": true, "BASHPID": true,
		"PPID": true, "UID": true, "EUID": true, "SHLVL": true, "OPTIND": true, "HISTCMD": true, "EPOCHSECONDS": true,
		"SRANDOM": true, "COLUMNS": true, "LINES": true, "0": true,
	}
})

// shadowed are names that, defined as a function or alias, replace what the analysis
// takes them for.
func shadowed(name string) bool {
	if _, ok := programs()[name]; ok {
		return true
	}
	if _, ok := wrapperTableOf()[name]; ok {
		return true
	}
	_, builtin := builtinTable[name]
	return builtin || name == "command_not_found_handle"
}

// defineFunction records a function the line defines.
func (a *analyzer) defineFunction(c *syntax.FuncDecl) {
	if c.Name == nil {
		return
	}
	name := c.Name.Value
	if a.shell.funcs == nil {
		a.shell.funcs = map[string]*syntax.FuncDecl{}
	}
	a.shell.funcs[name] = c
	if shadowed(name) {
		a.add(Medium, "", "defines a function named "+name+", which replaces what "+name+" runs in what follows")
	}
}

// callFunction judges a call of a function defined in the line: its body again, with
// the call's words as "$@".
func (a *analyzer) callFunction(fn *syntax.FuncDecl, args []word) {
	if a.depth >= maxDepth {
		a.add(Critical, "", "calls functions too deeply to judge")
		return
	}
	saved := a.shell.positional
	savedBound := a.shell.bound
	a.shell.positional, a.shell.bound = args, true
	a.depth++
	a.funcs = append(a.funcs, fn.Name.Value)
	a.scoped(func() { a.stmt(fn.Body) })
	a.funcs = a.funcs[:len(a.funcs)-1]
	a.depth--
	a.shell.positional, a.shell.bound = saved, savedBound
}

// positionalWords expands a word that is only "$@", "$*" or "$N" (quoted or not) while
// a function's call is judged. ok is false for any other word.
func (a *analyzer) positionalWords(w *syntax.Word) ([]word, bool) {
	if !a.shell.bound || len(w.Parts) != 1 {
		return nil, false
	}
	part := w.Parts[0]
	quoted := false
	if dq, ok := part.(*syntax.DblQuoted); ok && len(dq.Parts) == 1 {
		part, quoted = dq.Parts[0], true
	}
	p, ok := part.(*syntax.ParamExp)
	if !ok || p.Param == nil || p.Excl || p.Length || p.Index != nil || p.Slice != nil || p.Repl != nil || p.Exp != nil {
		return nil, false
	}
	args := a.shell.positional
	switch name := p.Param.Value; {
	case name == "@":
		return args, true
	case name == "*":
		if quoted {
			return []word{joinWords(args)}, true
		}
		return args, true
	case len(name) == 1 && name[0] >= '1' && name[0] <= '9':
		n := int(name[0] - '0')
		if n <= len(args) {
			return []word{args[n-1]}, true
		}
		if quoted {
			return []word{literalWord("")}, true
		}
		return []word{}, true
	}
	return nil, false
}

// joinWords is "$*": the words joined by spaces, literal when they all are.
func joinWords(ws []word) word {
	out := word{src: wordsText(ws), val: joinValues(ws), lit: true}
	for _, w := range ws {
		out.lit = out.lit && w.lit
	}
	out.prefix = out.val
	if !out.lit {
		out.prefix, out.split = "", true
	}
	return out
}

// shellName is a word naming a variable, as read, printf -v, unset, declare, test -v
// and ${!x} take it: Bash evaluates a subscript there (a[$(id)] runs id). A name only
// known when the command runs may hold one.
func (a *analyzer) shellName(cmd string, w word) {
	if !w.lit {
		a.add(Medium, cmd, "names a variable only known when it runs ("+w.src+"), where Bash runs the $(…) a subscript like a[$(…)] hides")
		return
	}
	a.nameText(cmd, w.val)
}

var plainName = lazy.Regexp(`^[A-Za-z_][A-Za-z0-9_]*$`)

// hiddenCode judges text Bash will expand again (a subscript, a prompt, a value used
// in arithmetic): command substitutions in it run.
func (a *analyzer) hiddenCode(cmd, text, what string) {
	if plainName().MatchString(text) || !strings.ContainsAny(text, "$`[") {
		return
	}
	if !strings.Contains(text, "$(") && !strings.Contains(text, "`") && !strings.Contains(text, "<(") && !strings.Contains(text, ">(") {
		if strings.Contains(text, "$") {
			a.add(Medium, cmd, "uses "+what+" ("+text+") that Bash expands again when it runs")
		}
		return
	}
	a.add(Medium, cmd, "hides commands in "+what+" that Bash expands ("+text+")")
	src, f, err := parseExpanded(text)
	if err != nil {
		a.add(High, cmd, "hides commands in "+what+" that cannot be parsed")
		return
	}
	if a.depth >= maxDepth {
		a.add(Critical, cmd, "hides commands too deeply to judge")
		return
	}
	a.depth++
	saved := a.eval
	a.eval = evaluator{src: src, home: a.ctx.Home, pwd: a.dir}
	for _, s := range f.Stmts {
		a.substitutions(s)
	}
	a.eval = saved
	a.depth--
}

// paramCode judges the parameter expansions of a word that expand a value again:
// subscripts and offsets (arithmetic), ${x@P} (a prompt: it runs $(…)), ${!x}
// (indirection: the value names a variable, subscript included).
func (a *analyzer) paramCode(cmd string, w *syntax.Word) {
	syntax.Walk(w, func(n syntax.Node) bool {
		p, ok := n.(*syntax.ParamExp)
		if !ok {
			switch x := n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				return false
			case *syntax.ArithmExp:
				a.arithmetic(cmd, x.X)
				return false
			}
			return true
		}
		if p.Index != nil && !(p.Param != nil && a.shell.assoc[p.Param.Value]) {
			a.arithmetic(cmd, p.Index)
		}
		if p.Slice != nil {
			a.arithmetic(cmd, p.Slice.Offset)
			a.arithmetic(cmd, p.Slice.Length)
		}
		a.valueOps(cmd, p)
		return true
	})
}

// valueOps judges the expansions of p that expand its variable's value again: ${x@P}
// (a prompt: it runs $(…)), ${!x} (indirection: the value names a variable, subscript
// included).
func (a *analyzer) valueOps(cmd string, p *syntax.ParamExp) {
	if p.Param == nil {
		return
	}
	name := p.Param.Value
	if p.Exp != nil && p.Exp.Op == syntax.OtherParamOps && p.Exp.Word != nil && p.Exp.Word.Lit() == "P" {
		a.valueExpanded(cmd, name, "expands $"+name+" as a prompt (${"+name+"@P}), which runs the $(…) in it", func(v string) {
			a.hiddenCode(cmd, v, "the value of $"+name)
		})
	}
	if p.Excl && p.Index == nil && p.Names == 0 {
		a.valueExpanded(cmd, name, "uses the variable $"+name+" names (${!"+name+"}), and a name like a[$(…)] runs a command", func(v string) {
			a.nameText(cmd, v)
		})
	}
}

// valueExpanded judges a variable whose value Bash expands again: a known value with
// judge, another by why.
func (a *analyzer) valueExpanded(cmd, name, why string, judge func(value string)) {
	if v, ok := a.shell.vars[name]; ok && v.known {
		judge(v.value)
		return
	}
	if specialNumbers()[name] {
		return
	}
	a.add(Medium, cmd, why+"; its value is only known when it runs")
}

// builtinTable are the shell builtins that take variable names or code in their
// arguments.
var builtinTable map[string]judge

// builtins returns builtinTable's judges (a function: they refer, through the walk of
// code they judge, back to the table).
func builtins() map[string]judge {
	return map[string]judge{
		"read": func(a *analyzer, c *call) {
			o := opts{short: "ers", shortArg: "adinNptu"}
			p := a.checkOptions(c, &o)
			if w, ok := flagWord(p, c.args, "a"); ok {
				a.shellName(c.text, w)
				a.readsInto(c.text, w.val)
				a.shell.setVar(w.val, "", false)
			}
			names := p.operandWords(c.args)
			line, known := a.readLine(c, p)
			for _, w := range names {
				a.shellName(c.text, w)
				a.readsInto(c.text, w.val)
				a.shell.setVar(w.val, line, known && len(names) == 1)
			}
		},
		"mapfile": mapfile, "readarray": mapfile,
		"wait": func(a *analyzer, c *call) {
			o := opts{short: "fn", shortArg: "p"}
			p := a.checkOptions(c, &o)
			if w, ok := flagWord(p, c.args, "p"); ok { // the job's pid is stored in a name
				a.shellName(c.text, w)
				a.shell.setVar(w.val, "", false)
			}
		},
		"printf": func(a *analyzer, c *call) {
			p := parseArgs(c.args, flagSpec{short: "v", stopAtOperand: true})
			if w, ok := flagWord(p, c.args, "v"); ok {
				a.shellName(c.text, w)
				a.printsInto(c, w.val, p.operandWords(c.args))
				a.shell.setVar(w.val, "", false)
			}
			for _, f := range p.flags {
				if f.name != "v" {
					a.add(Medium, c.text, "gives printf the option -"+f.name+", which parley does not know to be harmless")
				}
			}
		},
		"unset": func(a *analyzer, c *call) {
			o := opts{short: "fvn"}
			p := a.checkOptions(c, &o)
			for _, w := range p.operandWords(c.args) {
				a.shellName(c.text, w)
			}
		},
		"test": testBuiltin, "[": testBuiltin,
		"getopts": func(a *analyzer, c *call) {
			if len(c.args) >= 2 {
				a.shellName(c.text, c.args[1])
				a.shell.setVar(c.args[1].val, "", false)
			}
		},
		"declare": declareBuiltin, "typeset": declareBuiltin, "local": declareBuiltin, "export": declareBuiltin, "readonly": declareBuiltin,
		"let": func(a *analyzer, c *call) { a.letArgs(c.text, c.args) },
		"set": func(a *analyzer, c *call) {
			o := opts{short: "abefhkmnptuvxBCEHPT", shortArg: "o"}
			for _, w := range c.args {
				if w.lit && w.val == "--" {
					return // the rest sets "$@"
				}
			}
			args := make([]word, 0, len(c.args))
			for _, w := range c.args {
				if w.lit && strings.HasPrefix(w.val, "+") && len(w.val) > 1 {
					w = literalWord("-" + w.val[1:])
				}
				args = append(args, w)
			}
			a.checkOptions(&call{cmd: c.cmd, name: c.name, args: args, text: c.text}, &o)
		},
		"shopt": func(a *analyzer, c *call) {
			o := opts{short: "psuqo"}
			p := a.checkOptions(c, &o)
			for _, w := range p.operandWords(c.args) {
				if w.val == "expand_aliases" && p.has("s") {
					a.add(Medium, c.text, "turns on alias expansion, which rebinds names to other commands")
				}
			}
		},
		"hash": func(a *analyzer, c *call) {
			p := parseArgs(c.args, flagSpec{short: "pt"})
			if f, ok := p.get("p"); ok {
				path := f.valueWord(c.args)
				a.add(Medium, c.text, "rebinds a command name to another program (hash -p)")
				if a.shell.rebound == nil {
					a.shell.rebound = map[string]word{}
				}
				for _, w := range p.operandWords(c.args) {
					if w.lit {
						a.shell.rebound[w.val] = path
					}
				}
			}
		},
		"enable": func(a *analyzer, c *call) {
			p := parseArgs(c.args, flagSpec{short: "fd"})
			switch {
			case p.has("f"):
				a.add(High, c.text, "loads a library into the shell (enable -f)")
			case p.has("n") || p.has("d") || len(p.operands) > 0 && !p.has("p", "a", "s"):
				a.add(Medium, c.text, "turns builtins on or off, which changes what a name runs")
			}
		},
		"unalias": func(*analyzer, *call) {},
		"compgen": completion, "complete": completion,
		"bind": func(a *analyzer, c *call) {
			p := parseArgs(c.args, flagSpec{short: "mqufrxX"})
			if f, ok := p.get("x"); ok {
				a.add(Medium, c.text, "binds a key to a shell command")
				if _, cmd, ok := strings.Cut(f.value, ":"); ok {
					a.shellCode(c, literalWord(strings.Trim(strings.TrimSpace(cmd), `"'`)))
				}
				return
			}
			a.add(Medium, c.text, "changes key bindings")
		},
		"umask": func(a *analyzer, c *call) {
			p := parseArgs(c.args, flagSpec{})
			if len(p.operands) > 0 {
				a.add(Medium, c.text, "changes the permissions new files get (umask)")
			}
		},
	}
}

// testBuiltin judges test and [: -v NAME evaluates a subscript in NAME.
func testBuiltin(a *analyzer, c *call) {
	for i, w := range c.args {
		if w.lit && (w.val == "-v" || w.val == "-R") && i+1 < len(c.args) {
			a.shellName(c.text, c.args[i+1])
		}
	}
}

// mapfile judges mapfile/readarray: -C runs its callback as code.
func mapfile(a *analyzer, c *call) {
	o := opts{short: "t", shortArg: "dnOsucC"}
	p := a.checkOptions(c, &o)
	if w, ok := flagWord(p, c.args, "C"); ok {
		a.add(Medium, c.text, "runs a callback for the lines it reads (mapfile -C)")
		a.shellCode(c, w)
	}
	for _, w := range p.operandWords(c.args) {
		a.shellName(c.text, w)
		a.readsInto(c.text, w.val)
	}
}

// completion judges compgen/complete: -C runs a command, -F a function.
func completion(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "oAGWFCXPSc", stopAtOperand: false})
	if w, ok := flagWord(p, c.args, "C"); ok {
		a.add(Medium, c.text, "runs a command to complete words ("+c.name+" -C)")
		a.shellCode(c, w)
	}
	if w, ok := flagWord(p, c.args, "F"); ok && c.name == "compgen" {
		a.nestedRun(c.text, []word{w})
	}
}

// declareBuiltin judges declare and its kind run as a command (builtin declare …):
// names with subscripts run their $(…); -n makes a name refer to another, -i makes
// values arithmetic.
func declareBuiltin(a *analyzer, c *call) {
	flags := ""
	for _, w := range c.args {
		if w.lit && strings.HasPrefix(w.val, "-") || w.lit && strings.HasPrefix(w.val, "+") {
			if strings.ContainsAny(w.val, "in") {
				a.add(Medium, c.text, "declares integer variables or references (declare -i/-n), whose values Bash evaluates again")
			}
			if strings.HasPrefix(w.val, "-") {
				flags += w.val[1:]
			}
			continue
		}
		if !w.lit {
			a.shellName(c.text, w)
			if _, value, ok := splitAssignment(w.val); ok && c.name != "export" {
				a.compoundValue(c.text, "a", word{src: w.src, val: value})
			}
			continue
		}
		a.declared(c.text, c.name, flags, w.val)
	}
}

// declared judges NAME or NAME=value given as one word to a declaration (variant:
// declare, local, export…) with flags.
func (a *analyzer) declared(cmd, variant, flags, text string) {
	name, value, hasValue := splitAssignment(text)
	a.nameText(cmd, name)
	base := name
	if b, _, ok := subscript(name); ok {
		base = b
	}
	a.attributes(variant, flags, base)
	if hasValue {
		v := literalWord(value)
		a.integerValue(cmd, base, &v)
		a.compoundValue(cmd, base, v)
	}
	a.shell.setVar(name, value, true)
}

// declClause judges declare/local/export… parsed as declarations.
func (a *analyzer) declClause(c *syntax.DeclClause) {
	variant := ""
	if c.Variant != nil {
		variant = c.Variant.Value
	}
	assoc := false
	flags := ""
	for _, as := range c.Args {
		if assoc && as.Name != nil {
			if a.shell.assoc == nil {
				a.shell.assoc = map[string]bool{}
			}
			a.shell.assoc[as.Name.Value] = true
		}
		if as.Naked && as.Name == nil && as.Value != nil {
			w := a.word(as.Value)
			if w.lit && strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "A") {
				assoc = true
			}
			if w.lit && (strings.HasPrefix(w.val, "-") || strings.HasPrefix(w.val, "+")) {
				if strings.ContainsAny(w.val, "in") {
					a.add(Medium, variant, "declares integer variables or references ("+variant+" "+w.val+"), whose values Bash evaluates again")
				}
				if strings.HasPrefix(w.val, "-") {
					flags += w.val[1:]
				}
				continue
			}
			if w.lit {
				a.declared(variant, variant, flags, w.val)
				continue
			}
			a.shellName(variant, w)
			if _, value, ok := splitAssignment(w.val); ok && variant != "export" {
				a.compoundValue(variant, "a", word{src: w.src, val: value})
			}
			continue
		}
		if as.Name != nil {
			a.attributes(variant, flags, as.Name.Value)
		}
		if as.Index != nil && !a.shell.assoc[as.Name.Value] {
			a.arithmetic(variant, as.Index)
		}
		if as.Name != nil && as.Value != nil && as.Array == nil && variant != "export" {
			a.compoundValue(variant, as.Name.Value, a.eval.word(as.Value))
		}
		a.assign(as, true)
	}
}

// alias defines words that a shell may later run as code: the value is judged as code,
// and a later command that starts with the name is judged as what it expands to.
func alias(a *analyzer, c *call) {
	for _, w := range c.args {
		name, value, ok := strings.Cut(w.val, "=")
		if !ok {
			continue
		}
		a.add(Medium, c.text, "defines the alias "+name+", which rebinds a name to other commands")
		v := word{src: w.src, val: value, lit: w.lit}
		a.shellCode(c, v)
		if a.shell.aliases == nil {
			a.shell.aliases = map[string]word{}
		}
		a.shell.aliases[name] = v
	}
}

// parseExpanded parses text that Bash expands again (a subscript, a value it evaluates) as
// the argument of a command, double-quoted as Bash reads it, else as bare words: the
// substitutions in it are then the file's. src is what was parsed.
func parseExpanded(text string) (src string, f *syntax.File, err error) {
	src = ": \"" + strings.ReplaceAll(text, `"`, `\"`) + "\""
	if f, err = parse(src); err == nil {
		return src, f, nil
	}
	src = ": " + text
	f, err = parse(src)
	return src, f, err
}
