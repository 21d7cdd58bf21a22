package safety

import (
	"cmp"
	"fmt"
	"path"
	"slices"
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Finding is one reason a command is risky.
type Finding struct {
	Tier   Tier
	Reason string // for a user: "deletes / and everything in it"
	// Command is the simple command the finding is about, as shell text ("" when it is
	// about the line as a whole).
	Command string
}

// Command is one simple command that runs, with the wrappers that start it stripped:
// what a permission rule matches.
type Command struct {
	Env      []string // NAME=value assignments that precede it, env's included
	Wrappers []string // the wrappers it runs through, outermost first ("sudo", "timeout 60")
	Program  string   // the program as written, a name or a path
	Args     []string // its arguments: the value of a literal word, others as written
	// Literal is set when every word is known before the command runs (no expansion,
	// substitution or glob).
	Literal bool
	// Nested is set when another program runs it from a string or its input (sh -c,
	// eval, su -c, xargs, find -exec, a heredoc fed to a shell) rather than the line's
	// own shell.
	Nested bool
	// core holds the indices of the arguments that only say where or how the program
	// runs (git -C dir -c k=v --no-pager), left out of Core.
	core []int
	// shown is each argument as String shows it: quoted when literal, as written when
	// not (so that $f reads as a variable, not as the text "$f").
	shown          []string
	dynamicProgram bool
}

// shownWord is how a word appears in Command.String.
func shownWord(w word) string {
	if w.lit {
		return quoteWord(w.val)
	}
	if w.src != "" {
		return w.src
	}
	return w.val
}

// Name is the program's name: the last element of its path, lower-cased, without .exe.
func (c Command) Name() string { return programName(c.Program) }

// Argv is the program followed by its arguments.
func (c Command) Argv() []string { return append([]string{c.Program}, c.Args...) }

// Core is Argv without the options that only say where or how the program runs (git's
// -C, -c, --no-pager...), so that "git -C . --no-pager push" reads as "git push". A
// permission rule that asks or refuses matches it as well as the full form.
func (c Command) Core() []string {
	out := []string{c.Program}
	for i, a := range c.Args {
		if !slices.Contains(c.core, i) {
			out = append(out, a)
		}
	}
	return out
}

// String is the command as shell text, without its wrappers and assignments: literal
// words quoted as needed, the others as written.
func (c Command) String() string {
	if len(c.shown) != len(c.Args) {
		return JoinArgv(c.Argv())
	}
	prog := JoinArgv([]string{c.Program})
	if c.dynamicProgram {
		prog = c.Program
	}
	return strings.Join(append([]string{prog}, c.shown...), " ")
}

// Full is the command as shell text with its assignments and wrappers.
func (c Command) Full() string {
	parts := append([]string(nil), c.Env...)
	parts = append(parts, c.Wrappers...)
	return strings.Join(append(parts, c.String()), " ")
}

func programName(p string) string {
	name := strings.ToLower(path.Base(p))
	return strings.TrimSuffix(name, ".exe")
}

// Analysis is what Analyze found in one command line.
type Analysis struct {
	Line     string
	Tier     Tier      // the highest tier of the findings, None without any
	Findings []Finding // highest tier first, each reason once
	Commands []Command // every simple command that runs, in the order met
	// Err is set when the line cannot be parsed; the tier is then at least High.
	Err   error
	shape Shape
}

// Reason is the first (highest) finding's reason, "" when there is none.
func (a *Analysis) Reason() string {
	if len(a.Findings) == 0 {
		return ""
	}
	return a.Findings[0].Reason
}

// Shape is what an "always" answer about this command covers (see the package comment).
func (a *Analysis) Shape() Shape { return a.shape }

// maxDepth bounds how deep code hidden in strings (sh -c "sh -c '…'") is followed.
const maxDepth = 6

// maxLine bounds the length of a line the analysis reads; longer ones are High.
const maxLine = 256 << 10

var parsers = sync.Pool{New: func() any { return syntax.NewParser(syntax.Variant(syntax.LangBash)) }}

func parse(src string) (*syntax.File, error) {
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
}

// stdinSource is what a command's standard input is.
type stdinSource struct {
	kind     stdinKind
	download bool   // the input comes from the network
	text     string // a heredoc or here-string, when literal
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
	return &analyzer{ctx: ctx, dir: ctx.Dir, eval: evaluator{home: ctx.Home, pwd: ctx.Dir}, open: map[*syntax.Word]bool{}}
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
	redirs := a.redirects(s)
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
	default: // arithmetic, [[ ]], let: only their substitutions run commands
		a.substitutions(c)
	}
	_ = redirs
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
	a.stdin = stdinSource{kind: stdinPipe, download: download}
	a.stmt(c.Y)
	a.stdin = saved
	a.dir = before
}

// downloads reports whether a command recorded since start fetches from the network.
func (a *analyzer) downloads(start int) bool {
	for _, c := range a.commands[start:] {
		if downloaders[c.Name()] {
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
	a.funcs = append(a.funcs, name)
	a.scoped(func() { a.stmt(c.Body) })
	a.funcs = a.funcs[:len(a.funcs)-1]
}

func (a *analyzer) declClause(c *syntax.DeclClause) {
	for _, as := range c.Args {
		a.assign(as, true)
	}
}

// words evaluates words (running their substitutions' commands) and returns them.
func (a *analyzer) words(ws []*syntax.Word) []word {
	out := make([]word, 0, len(ws))
	for _, w := range ws {
		if w == nil {
			continue
		}
		out = append(out, a.word(w))
	}
	return out
}

func (a *analyzer) word(w *syntax.Word) word {
	start := len(a.commands)
	a.substitutions(w)
	out := a.eval.word(w)
	if out.subst && a.downloads(start) {
		out.subst = true
		a.markDownload(&out)
	}
	for _, p := range out.params {
		if a.tainted[p] {
			a.markDownload(&out)
		}
	}
	return out
}

// markDownload records that a word's value comes from the network, in its params (the
// one place words carry such a mark).
func (a *analyzer) markDownload(w *word) {
	if !slices.Contains(w.params, downloadMark) {
		w.params = append(w.params, downloadMark)
	}
}

// downloadMark stands, in a word's params, for text fetched from the network.
const downloadMark = "\x00download"

func fromNetwork(w word) bool { return slices.Contains(w.params, downloadMark) }

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
	}
	if as.Array != nil {
		a.substitutions(as.Array)
	}
	if as.Index != nil {
		a.substitutions(as.Index)
	}
	if judge {
		a.judgeVariable("", name, value)
	}
	return name + "=" + value
}

// redirects judges a statement's redirections and sets what feeds its input.
func (a *analyzer) redirects(s *syntax.Stmt) []*syntax.Redirect {
	for _, r := range s.Redirs {
		if r.Hdoc != nil {
			w := a.word(r.Hdoc)
			a.stdin = stdinSource{kind: stdinText, download: fromNetwork(w)}
			if w.lit {
				a.stdin.text = w.val
			}
			continue
		}
		if r.Word == nil {
			continue
		}
		w := a.word(r.Word)
		switch r.Op {
		case syntax.WordHdoc:
			a.stdin = stdinSource{kind: stdinText, download: fromNetwork(w)}
			if w.lit {
				a.stdin.text = w.val + "\n"
			}
		case syntax.RdrIn:
			a.stdin = stdinSource{kind: stdinFile, download: fromNetwork(w)}
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
	return s.Redirs
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
