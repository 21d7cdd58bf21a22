package safety

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// maxDepth bounds how deep code hidden in strings (sh -c "sh -c '…'") is followed.
const maxDepth = 6

// maxLine bounds the length of a line the analysis reads; longer ones are High.
const maxLine = 256 << 10

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func parse(src string) (*syntax.File, error) {
	f, err := parseBash(src)
	if err != nil {
		if g, ok := parseLetAsWords(src); ok {
			return g, nil
		}
	}
	return f, err
}

func parseBash(src string) (*syntax.File, error) {
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	return p.Parse(strings.NewReader(src), "")
}

// Analyze parses line as Bash and judges every command it runs, in ctx.
func Analyze(line string, ctx Context) *Analysis {
	a := newAnalyzer(ctx)
	out := &Analysis{Line: line}
	var file *syntax.File
	if len(line) > maxLine {
		a.add(High, "", fmt.Sprintf("is too long to judge (%d bytes)", len(line)))
	} else if f, err := parse(line); err != nil {
		out.Err = err
		a.add(High, "", "cannot be parsed as a shell command: "+err.Error())
	} else {
		file = f
		a.script(line, f.Stmts, false)
	}
	out.Commands = a.commands
	out.CodeFiles = a.codeFiles
	out.Findings = a.sorted()
	if len(out.Findings) > 0 {
		out.Tier = out.Findings[0].Tier
	}
	out.shape = a.shapeOf(out, file)
	return out
}

// AnalyzeArgv judges a command run without a shell (as ACP's terminal/create runs
// command and args): argv[0] is the program. A NUL byte, which no argument can hold,
// makes it High.
func AnalyzeArgv(argv []string, ctx Context) *Analysis {
	if len(argv) == 0 {
		return &Analysis{}
	}
	for _, a := range argv {
		if strings.IndexByte(a, 0) >= 0 {
			out := Analyze(JoinArgv(argv), ctx)
			out.Findings = append([]Finding{{Tier: High, Reason: "has a NUL byte in an argument"}}, out.Findings...)
			out.Tier = max(out.Tier, High)
			return out
		}
	}
	return Analyze(JoinArgv(argv), ctx)
}

// analyzer walks one line. It is used once, by one goroutine.
type analyzer struct {
	ctx      Context
	eval     evaluator
	depth    int
	dir      string // the current directory, "" once it is only known when the command runs
	findings []Finding
	commands []Command
	nested   bool            // walking code another program runs
	stdin    stdinSource     // what feeds the commands being walked
	funcs    []string        // the functions being defined, innermost last
	tainted  map[string]bool // variables holding something downloaded
	// open marks the words that may differ in a command remembered with its files
	// open: file arguments, inside the workspace, of read-only programs.
	open map[*syntax.Word]bool
	// codeFiles are the files of code the line runs that the agent can change.
	codeFiles []string
	// arithNow is the text arithmetic is being judged in (arithText), to see that an
	// operand in it leaves nothing new.
	arithNow string
	// arithVars are the variables whose values arithmetic is following, innermost last.
	arithVars []string
	// shell is what the line's own shell knows: functions, aliases, rebound names and
	// variables set in the line.
	shell shellState
	// budget counts the programs judged, probes included, shared by every analyzer
	// working on the line: code nested in strings, each judged as what several programs
	// would run, could otherwise take exponential time.
	budget *int
}

// maxPrograms bounds the programs judged for one line (see budget).
const maxPrograms = 20000

// spend counts one program judged; past maxPrograms the line is too complex to judge.
func (a *analyzer) spend(cmd string) bool {
	*a.budget++
	if *a.budget == maxPrograms {
		a.add(Critical, cmd, "is too complex to judge")
	}
	return *a.budget < maxPrograms
}

// stdinSource is what a command's standard input is.
type stdinSource struct {
	kind     stdinKind
	download bool   // the input comes from the network
	text     string // a heredoc, a here-string or what echo prints, when literal
	// unseen is set when the text is only known when the command runs: what another
	// program prints, a heredoc with expansions.
	unseen bool
	file   word // the file of < file, or of cat FILE piped in
}

type stdinKind int

const (
	stdinInherited stdinKind = iota
	stdinPipe                // another command's output
	stdinText                // a heredoc or here-string
	stdinFile                // < file
)

func newAnalyzer(ctx Context) *analyzer {
	ctx = ctx.normalized()
	return &analyzer{ctx: ctx, dir: ctx.Dir, eval: evaluator{home: ctx.Home, pwd: ctx.Dir}, open: map[*syntax.Word]bool{}, budget: new(int)}
}

// codeFile records that the line runs code from what, which the agent can change.
func (a *analyzer) codeFile(what string) {
	for _, f := range a.codeFiles {
		if f == what {
			return
		}
	}
	a.codeFiles = append(a.codeFiles, what)
}

// add records a finding about the command cmd (shell text, "" for the whole line).
func (a *analyzer) add(t Tier, cmd, reason string) {
	a.findings = append(a.findings, Finding{Tier: t, Reason: reason, Command: cmd})
}

// sorted returns the findings, highest tier first, each reason once.
func (a *analyzer) sorted() []Finding {
	out := slices.Clone(a.findings)
	slices.SortStableFunc(out, func(x, y Finding) int { return cmp.Compare(y.Tier, x.Tier) })
	seen := map[string]bool{}
	return slices.DeleteFunc(out, func(f Finding) bool {
		key := f.Reason + "\x00" + f.Command
		if seen[key] {
			return true
		}
		seen[key] = true
		return false
	})
}

// script walks statements parsed from src. nested says another program runs them.
func (a *analyzer) script(src string, stmts []*syntax.Stmt, nested bool) {
	saved := a.eval
	savedNested := a.nested
	a.eval = evaluator{src: src, home: a.ctx.Home, pwd: a.dir}
	a.nested = a.nested || nested
	a.stmts(stmts)
	a.eval = saved
	a.nested = savedNested
}

// code judges src, a string another program runs as shell code (sh -c, eval...).
func (a *analyzer) code(cmd, src string) {
	if a.depth >= maxDepth {
		// Nothing legitimate nests this deep; what is hidden there may be anything.
		a.add(Critical, cmd, "hides commands in strings too deeply to judge")
		return
	}
	f, err := parse(src)
	if err != nil {
		a.add(High, cmd, "runs shell code that cannot be parsed: "+err.Error())
		return
	}
	a.depth++
	savedDir := a.dir
	a.script(src, f.Stmts, true)
	a.dir = savedDir
	a.depth--
}

func (a *analyzer) stmts(list []*syntax.Stmt) {
	for _, s := range list {
		a.stmt(s)
	}
}

func (a *analyzer) stmt(s *syntax.Stmt) {
	saved := a.stdin
	a.redirects(s)
	if s.Background {
		a.add(Medium, "", "runs a command in the background, where it keeps running")
	}
	switch c := s.Cmd.(type) {
	case nil:
	case *syntax.CallExpr:
		a.callExpr(c)
	case *syntax.BinaryCmd:
		a.binary(c)
	case *syntax.Subshell:
		a.scoped(func() { a.stmts(c.Stmts) })
	case *syntax.Block:
		a.stmts(c.Stmts)
	case *syntax.IfClause:
		a.scoped(func() { a.ifClause(c) })
	case *syntax.WhileClause:
		a.scoped(func() { a.stmts(c.Cond); a.stmts(c.Do) })
	case *syntax.ForClause:
		a.substitutions(c.Loop)
		a.forLoop(c.Loop)
		a.scoped(func() { a.stmts(c.Do) })
	case *syntax.CaseClause:
		a.words([]*syntax.Word{c.Word})
		a.scoped(func() {
			for _, item := range c.Items {
				a.words(item.Patterns)
				a.stmts(item.Stmts)
			}
		})
	case *syntax.FuncDecl:
		a.funcDecl(c)
	case *syntax.DeclClause:
		a.declClause(c)
	case *syntax.TimeClause:
		if c.Stmt != nil {
			a.stmt(c.Stmt)
		}
	case *syntax.CoprocClause:
		a.add(Medium, "", "starts a coprocess, which keeps running")
		a.stmt(c.Stmt)
	case *syntax.TestDecl:
		a.stmt(c.Body)
	case *syntax.ArithmCmd:
		a.substitutions(c)
		a.arithmetic("", c.X)
	case *syntax.LetClause:
		a.letClause(c)
	case *syntax.TestClause:
		a.substitutions(c)
		a.testClause(c.X)
	default:
		a.substitutions(c)
	}
	a.stdin = saved
}

// scoped walks code whose directory changes do not reliably reach what follows: after
// it, the directory is unchanged if it did not change inside, else unknown.
func (a *analyzer) scoped(walk func()) {
	before := a.dir
	walk()
	if a.dir != before {
		a.dir = ""
	}
}

// forLoop records what the loop variable holds: the words of a for-in loop, when all are
// known; a number in a C-style loop.
func (a *analyzer) forLoop(loop syntax.Loop) {
	switch l := loop.(type) {
	case *syntax.WordIter:
		known := true
		for _, w := range l.Items {
			known = known && a.eval.word(w).lit
			a.paramCode("", w)
		}
		value := ""
		if len(l.Items) > 0 {
			value = a.eval.word(l.Items[0]).val
		}
		known = known && l.InPos.IsValid() && len(l.Items) > 0
		a.shell.setVar(l.Name.Value, value, known)
		for _, w := range l.Items {
			v := a.eval.word(w)
			a.integerValue("", l.Name.Value, &v) // an integer's values are arithmetic
		}
		if known {
			for _, w := range l.Items {
				a.hiddenCode("", a.eval.word(w).val, "a loop value")
			}
		}
	case *syntax.CStyleLoop:
		a.arithmetic("", l.Init)
		a.arithmetic("", l.Cond)
		a.arithmetic("", l.Post)
	}
}

// testClause judges [[ ]]: arithmetic comparisons (-eq, -lt…) evaluate their operands
// as arithmetic, and -v evaluates a subscript.
func (a *analyzer) testClause(x syntax.TestExpr) {
	syntax.Walk(x, func(n syntax.Node) bool {
		switch t := n.(type) {
		case *syntax.BinaryTest:
			if t.Op >= syntax.TsEql && t.Op <= syntax.TsGtr {
				for _, side := range []syntax.TestExpr{t.X, t.Y} {
					if w, ok := side.(*syntax.Word); ok {
						a.arithmetic("[[", w) // what the word leaves once expanded
					}
				}
			}
		case *syntax.UnaryTest:
			if t.Op == syntax.TsVarSet || t.Op == syntax.TsRefVar {
				if w, ok := t.X.(*syntax.Word); ok {
					a.shellName("[[", a.eval.word(w))
				}
			}
		}
		return true
	})
}

func (a *analyzer) ifClause(c *syntax.IfClause) {
	for ; c != nil; c = c.Else {
		a.stmts(c.Cond)
		a.stmts(c.Then)
	}
}

// binary walks a && b, a || b and pipelines. Each side of a pipe runs in a subshell;
// what the left side prints feeds the right side.
func (a *analyzer) binary(c *syntax.BinaryCmd) {
	switch c.Op {
	case syntax.AndStmt, syntax.OrStmt:
		a.stmt(c.X)
		if c.Op == syntax.OrStmt {
			a.scoped(func() { a.stmt(c.Y) })
		} else {
			a.stmt(c.Y)
		}
		return
	}
	before := a.dir
	start := len(a.commands)
	a.stmt(c.X)
	download := a.downloads(start) || a.stdin.download && a.stdin.kind == stdinPipe
	a.dir = before
	saved := a.stdin
	a.stdin = a.printed(c.X)
	a.stdin.download = download
	a.stmt(c.Y)
	a.stdin = saved
	a.dir = before
}

// downloads reports whether a command recorded since start fetches from the network.
func (a *analyzer) downloads(start int) bool {
	for _, c := range a.commands[start:] {
		if downloaders()[c.Name()] {
			return true
		}
	}
	return false
}

func (a *analyzer) funcDecl(c *syntax.FuncDecl) {
	name := ""
	if c.Name != nil {
		name = c.Name.Value
	}
	a.defineFunction(c)
	a.funcs = append(a.funcs, name)
	saved, savedBound := a.shell.positional, a.shell.bound
	a.shell.positional, a.shell.bound = nil, false // "$@" is the call's, not known here
	a.scoped(func() { a.stmt(c.Body) })
	a.shell.positional, a.shell.bound = saved, savedBound
	a.funcs = a.funcs[:len(a.funcs)-1]
}

// words evaluates words (running their substitutions' commands) and returns them.
// While a function defined in the line is judged for a call, "$@" and "$1"… are the
// call's words.
func (a *analyzer) words(ws []*syntax.Word) []word {
	out := make([]word, 0, len(ws))
	for _, w := range ws {
		if w == nil {
			continue
		}
		if pos, ok := a.positionalWords(w); ok {
			out = append(out, pos...)
			continue
		}
		out = append(out, a.word(w))
	}
	return out
}

func (a *analyzer) word(w *syntax.Word) word {
	start := len(a.commands)
	a.substitutions(w)
	a.paramCode("", w)
	out := a.eval.word(w)
	out.download = out.subst && a.downloads(start)
	for _, p := range out.params {
		out.download = out.download || a.tainted[p]
	}
	return out
}

func fromNetwork(w word) bool { return w.download }

// substitutions walks the commands of every $(...), `...` and <(...) in n, in order.
func (a *analyzer) substitutions(n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch s := n.(type) {
		case *syntax.CmdSubst:
			a.scoped(func() { a.stmts(s.Stmts) })
			return false
		case *syntax.ProcSubst:
			a.scoped(func() { a.stmts(s.Stmts) })
			return false
		}
		return true
	})
}

// assign evaluates NAME=value (before a command, or in export/declare/local) and, if
// judge, judges it.
func (a *analyzer) assign(as *syntax.Assign, judge bool) string {
	if as == nil || as.Name == nil {
		return ""
	}
	name := as.Name.Value
	value := ""
	if as.Value != nil {
		w := a.word(as.Value)
		value = w.val
		if fromNetwork(w) {
			if a.tainted == nil {
				a.tainted = map[string]bool{}
			}
			a.tainted[name] = true
		}
		a.integerValue("", name, &w)
	}
	if as.Array != nil {
		a.substitutions(as.Array)
		a.arrayElements(name, as.Array)
	}
	if as.Index != nil {
		a.substitutions(as.Index)
		if !a.shell.assoc[name] {
			a.arithmetic("", as.Index)
		}
	}
	known := as.Value == nil || a.eval.word(as.Value).lit
	if as.Value != nil && as.Array == nil {
		if _, arith := onlyArithmetic(as.Value); arith {
			value, known = "0", true
		}
	}
	a.shell.setVar(name, value, known && as.Array == nil)
	if judge {
		a.judgeVariable("", name, value)
	}
	return name + "=" + value
}

// onlyArithmetic reports whether w is one $((…)): its value is a number.
func onlyArithmetic(w *syntax.Word) (*syntax.ArithmExp, bool) {
	if len(w.Parts) != 1 {
		return nil, false
	}
	x, ok := w.Parts[0].(*syntax.ArithmExp)
	return x, ok
}

// redirects judges a statement's redirections and sets what feeds its input.
func (a *analyzer) redirects(s *syntax.Stmt) {
	for _, r := range s.Redirs {
		if r.Hdoc != nil {
			w := a.word(r.Hdoc)
			a.stdin = stdinSource{kind: stdinText, download: fromNetwork(w), text: w.val, unseen: !w.lit}
			continue
		}
		if r.Word == nil {
			continue
		}
		w := a.word(r.Word)
		switch r.Op {
		case syntax.WordHdoc:
			a.stdin = stdinSource{kind: stdinText, download: fromNetwork(w), text: w.val + "\n", unseen: !w.lit}
		case syntax.RdrIn:
			a.stdin = stdinSource{kind: stdinFile, download: fromNetwork(w), file: w}
			a.reads("", w, a.dir)
		case syntax.DplIn:
		case syntax.DplOut:
			if w.lit && (w.val == "-" || isNumber(w.val)) {
				continue
			}
			a.writes("", w, a.dir, "redirects output to")
		case syntax.RdrInOut:
			a.writes("", w, a.dir, "opens for writing")
		default:
			a.writes("", w, a.dir, "writes to")
		}
	}
}

func isNumber(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return false
		}
	}
	return true
}
