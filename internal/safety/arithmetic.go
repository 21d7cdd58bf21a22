package safety

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"github.com/parley-acp/parley/internal/lazy"
)

// Bash evaluates text as arithmetic in many places: let, (( )), $(( )), $[ ], for ((;;)),
// an indexed array's subscripts (in assignments, in ${a[…]}, in the names declare,
// local, export, readonly, typeset, printf -v, read, mapfile, unset, test -v and [[ -v ]]
// take), ${x:offset:length}, the operands of [[ -eq ]] and its kind, the values given to
// a variable declared -i, and the value of every variable read there. What it evaluates
// is the text after the shell's own expansions and quote removal, and it expands a
// subscript in that text again: `let "a[\$(rm -rf src)]=1"` looks like data to the line's
// shell, but let runs rm. So a $ or a backquote in the text that reaches arithmetic is
// code, whatever quoted it: at least High, and the commands in it are judged as what they
// are (rm -rf ~ there is Critical). Text only known when it runs (a variable, what a
// command prints) is judged by where it comes from, as the values arithmetic reads are:
// Medium, as `x=$(cat data.txt); echo $((x))` is.

// arithmetic judges an arithmetic expression (or a subscript, or an offset): every
// variable it reads is evaluated as arithmetic again, and a value like a[$(…)] runs
// the command in it. Variables the line set to known values are judged by their value;
// an operand with quotes or escapes is judged by the text it leaves (arithOperand).
func (a *analyzer) arithmetic(cmd string, n syntax.Node) {
	if n == nil {
		return
	}
	syntax.Walk(n, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			if assignment(x.Op) {
				if w, ok := x.X.(*syntax.Word); ok {
					if name := w.Lit(); plainName().MatchString(name) {
						a.arithmetic(cmd, x.Y)
						a.shell.setVar(name, "0", true)
						return false
					}
					if p := element(w); p != nil && x.Op == syntax.Assgn {
						// a[i]=… reads no element, only the subscript.
						a.arithmetic(cmd, p.Index)
						a.arithmetic(cmd, x.Y)
						return false
					}
				}
			}
		case *syntax.UnaryArithm:
			if w, ok := x.X.(*syntax.Word); ok {
				if name := w.Lit(); plainName().MatchString(name) && (x.Op == syntax.Inc || x.Op == syntax.Dec) {
					a.arithVariable(cmd, name)
					a.shell.setVar(name, "0", true)
					return false
				}
			}
		case *syntax.Word:
			if lit := x.Lit(); lit != "" && !strings.ContainsAny(lit, "\\$`") {
				a.arithLiteral(cmd, lit)
				return false
			}
			return a.arithOperand(cmd, x)
		case *syntax.ParamExp:
			if x.Param != nil && !x.Excl && !x.Length {
				a.arithVariable(cmd, x.Param.Value)
			}
			a.valueOps(cmd, x)
		case *syntax.CmdSubst:
			// What the command prints is evaluated, and a[$(…)] in it runs.
			a.add(Medium, cmd, "evaluates as arithmetic what a command prints ("+a.eval.text(x)+"), where Bash runs the $(…) a subscript like a[$(…)] hides")
			return false // its commands are judged where the words are walked
		case *syntax.ProcSubst:
			return false // a path: judged where the words are walked
		}
		return true
	})
}

// element is the array element a word names (a[i]), nil when it names none.
func element(w *syntax.Word) *syntax.ParamExp {
	if len(w.Parts) != 1 {
		return nil
	}
	p, ok := w.Parts[0].(*syntax.ParamExp)
	if !ok || !p.Short || p.Param == nil || p.Index == nil {
		return nil
	}
	return p
}

func assignment(op syntax.BinAritOperator) bool {
	switch op {
	case syntax.Assgn, syntax.AddAssgn, syntax.SubAssgn, syntax.MulAssgn, syntax.QuoAssgn, syntax.RemAssgn, syntax.AndAssgn,
		syntax.OrAssgn, syntax.XorAssgn, syntax.ShlAssgn, syntax.ShrAssgn, syntax.AndBoolAssgn, syntax.OrBoolAssgn,
		syntax.XorBoolAssgn, syntax.PowAssgn:
		return true
	}
	return false
}

// numberLike is a literal arithmetic reads as a number (42, 0x1F, 2#101, 64#_@).
var numberLike = lazy.Regexp(`^[0-9][0-9A-Za-z#@_]*$`)

// letClause judges let: each word, once the shell has expanded it and removed its
// quotes, is an expression. The words are read as the shell reads any command's (the
// parser reads let's as arithmetic, which splits a[\$\(x\ y\)] where Bash does not),
// by parsing the clause again under another name.
func (a *analyzer) letClause(c *syntax.LetClause) {
	if src, ok := strings.CutPrefix(a.eval.text(c), "let"); ok {
		src = "LET" + src
		if f, err := parse(src); err == nil && len(f.Stmts) == 1 && len(f.Stmts[0].Redirs) == 0 {
			if call, ok := f.Stmts[0].Cmd.(*syntax.CallExpr); ok && len(call.Assigns) == 0 && len(call.Args) > 0 {
				saved := a.eval
				a.eval = evaluator{src: src, home: a.ctx.Home, pwd: a.dir}
				a.letArgs("let", a.words(call.Args[1:]))
				a.eval = saved
				return
			}
		}
	}
	a.substitutions(c)
	for _, x := range c.Exprs {
		a.arithmetic("let", x)
	}
}

// letWord is let where a command's name can be.
var letWord = lazy.Regexp(`(^|[\s;&|(){}!` + "`" + `])let[ \t]`)

// parseLetAsWords parses src, which the parser refused, with each let read as a
// command's name rather than a keyword: the parser reads let's words as arithmetic and
// refuses some that Bash takes as words (let a[\$\(rm\ -rf\ ~\)]=1 is one word to
// Bash). let becomes LET, of the same length, and every piece of text the renaming
// reached is given its own text back, so that the file is src's with let run as a
// command (judged by the builtin let).
func parseLetAsWords(src string) (*syntax.File, bool) {
	locs := letWord().FindAllStringSubmatchIndex(src, -1)
	if len(locs) == 0 {
		return nil, false
	}
	renamed := []byte(src)
	for _, m := range locs {
		copy(renamed[m[3]:], "LET")
	}
	f, err := parseBash(string(renamed))
	if err != nil {
		return nil, false
	}
	restore := func(value *string, start, end int) {
		if start >= 0 && end <= len(src) && start <= end && *value == string(renamed[start:end]) {
			*value = src[start:end]
		}
	}
	syntax.Walk(f, func(n syntax.Node) bool {
		switch x := n.(type) {
		case *syntax.Lit:
			restore(&x.Value, int(x.Pos().Offset()), int(x.End().Offset()))
		case *syntax.SglQuoted:
			start := int(x.Left.Offset()) + 1
			if x.Dollar {
				start++
			}
			restore(&x.Value, start, int(x.Right.Offset()))
		}
		return true
	})
	return f, true
}

// letArgs judges the words let is given, each an arithmetic expression.
func (a *analyzer) letArgs(cmd string, args []word) {
	for _, w := range args {
		switch {
		case w.lit:
			a.arithText(cmd, w.val, "an arithmetic expression")
		case w.node != nil:
			a.arithmetic(cmd, w.node)
		default:
			a.add(Medium, cmd, "evaluates arithmetic only known when it runs")
		}
	}
}

// arithLiteral judges an unquoted operand without escapes or expansions: a variable
// read, a number, or (in a word that was not parsed as arithmetic, like [[ x+1 -eq 2 ]]
// or an integer variable's value) an expression whose variables are read.
func (a *analyzer) arithLiteral(cmd, lit string) {
	switch {
	case plainName().MatchString(lit):
		a.arithVariable(cmd, lit)
	case numberLike().MatchString(lit):
	default:
		a.arithText(cmd, lit, "arithmetic")
	}
}

// arithOperand judges an operand with quotes, escapes or expansions: Bash removes the
// quotes, expands it and evaluates the text it leaves. It reports whether the walk
// should go on into the operand's parts (its expansions, judged as values read).
func (a *analyzer) arithOperand(cmd string, w *syntax.Word) bool {
	text := literalParts(w)
	if !expands(w) {
		if text == a.arithNow {
			// Nothing was removed: a $ that no expansion starts (a lone $). Bash does not
			// expand it, but it is not a number either.
			if strings.ContainsAny(text, "$`") {
				a.add(High, cmd, "evaluates a $ or a backquote as arithmetic ("+text+"), which Bash may expand as code")
			}
			return false
		}
		a.arithText(cmd, text, "a quoted arithmetic operand")
		return false
	}
	if strings.ContainsAny(text, "$`") {
		// A $ or a backquote kept by quotes next to an expansion: "a[\$(id)$x]".
		a.arithCode(cmd, a.eval.word(w).val, "a quoted arithmetic operand")
	}
	return true
}

// expands reports whether w has an expansion (a parameter, a substitution, arithmetic).
func expands(w *syntax.Word) bool {
	found := false
	syntax.Walk(w, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.ParamExp, *syntax.CmdSubst, *syntax.ProcSubst, *syntax.ArithmExp:
			found = true
		}
		return !found
	})
	return found
}

// literalParts is the text of w's literal parts once their quotes are removed, its
// expansions left out.
func literalParts(w *syntax.Word) string {
	var b strings.Builder
	var add func(parts []syntax.WordPart, quoted bool)
	add = func(parts []syntax.WordPart, quoted bool) {
		for _, part := range parts {
			switch p := part.(type) {
			case *syntax.Lit:
				if quoted {
					b.WriteString(unescapeDouble(p.Value))
				} else {
					s, _, _ := unescapeUnquoted(p.Value)
					b.WriteString(s)
				}
			case *syntax.SglQuoted:
				if s, ok := decodeANSIC(p.Value); p.Dollar && ok {
					b.WriteString(s)
				} else {
					b.WriteString(p.Value)
				}
			case *syntax.DblQuoted:
				add(p.Parts, true)
			}
		}
	}
	add(w.Parts, false)
	return b.String()
}

// arithText judges text Bash evaluates as arithmetic once the shell's quoting and
// expansions are done with it: the commands a $ or a backquote in it runs (arithCode),
// else the variables it reads.
func (a *analyzer) arithText(cmd, text, what string) {
	if strings.ContainsAny(text, "$`") {
		a.arithCode(cmd, text, what)
		return
	}
	x, ok := parseArithmetic(text)
	if !ok || a.depth >= maxDepth {
		// Bash refuses what does not parse; a name in it may still be read first.
		for _, m := range arithNames().FindAllStringSubmatch(text, -1) {
			a.arithVariable(cmd, m[2])
		}
		return
	}
	if w, ok := x.(*syntax.Word); ok && w.Lit() == text {
		if plainName().MatchString(text) {
			a.arithVariable(cmd, text)
		}
		return // a number, or what no parse splits further
	}
	a.inArithmetic(text, func() { a.arithmetic(cmd, x) })
}

var arithNames = lazy.Regexp(`(^|[^0-9A-Za-z_#@])([A-Za-z_][A-Za-z0-9_]*)`)

// arithCode judges arithmetic text with a $ or a backquote in it: Bash expands it
// (a subscript, at least) and runs the commands in it, which the line's own shell
// showed as data. It is code: High, and each command in it is judged as what it is.
func (a *analyzer) arithCode(cmd, text, what string) {
	// Added once the commands are judged, so that what they do comes first.
	defer a.add(High, cmd, "evaluates "+what+" with a $ or a backquote in it as arithmetic ("+text+"), where Bash expands it again and runs the commands it names")
	if a.depth >= maxDepth {
		a.add(Critical, cmd, "hides commands in arithmetic too deeply to judge")
		return
	}
	if x, ok := parseArithmetic(text); ok {
		a.inArithmetic(text, func() {
			a.substitutions(x)
			a.arithmetic(cmd, x)
		})
		return
	}
	// Not an expression Bash accepts as a whole; the subscript it expands first may
	// still be: judge every substitution in it as shell code would have it.
	src, f, err := parseExpanded(text)
	if err != nil {
		a.add(High, cmd, "hides commands in arithmetic that cannot be parsed ("+text+")")
		return
	}
	a.inArithmetic(src, func() {
		for _, s := range f.Stmts {
			a.substitutions(s)
		}
	})
}

// inArithmetic runs judge with the evaluator reading src, one level deeper, as code
// Bash runs from a string (like eval).
func (a *analyzer) inArithmetic(src string, judge func()) {
	saved, savedNested, savedNow := a.eval, a.nested, a.arithNow
	a.depth++
	a.eval = evaluator{src: src, home: a.ctx.Home, pwd: a.dir}
	a.nested, a.arithNow = true, src
	judge()
	a.eval, a.nested, a.arithNow = saved, savedNested, savedNow
	a.depth--
}

// parseArithmetic parses text as one arithmetic expression, all of it.
func parseArithmetic(text string) (syntax.ArithmExpr, bool) {
	trimmed := strings.TrimRight(text, " \t\n")
	if strings.TrimSpace(trimmed) == "" {
		return nil, false
	}
	p := parsers.Get().(*syntax.Parser)
	defer parsers.Put(p)
	x, err := p.Arithmetic(strings.NewReader(trimmed))
	if err != nil || x == nil || int(x.End().Offset()) != len(trimmed) {
		return nil, false
	}
	return x, true
}

// arithVariable judges a variable read in arithmetic: its value is evaluated as
// arithmetic in turn.
func (a *analyzer) arithVariable(cmd, name string) {
	if len(name) == 1 && name[0] >= '1' && name[0] <= '9' && a.shell.bound {
		if n := int(name[0] - '0'); n <= len(a.shell.positional) {
			if w := a.shell.positional[n-1]; w.lit {
				a.arithValue(cmd, w.val)
				return
			}
		} else {
			return
		}
	} else if specialNumbers()[name] || isNumber(name) {
		return
	}
	if v, ok := a.shell.vars[name]; ok && v.known {
		if slices.Contains(a.arithVars, name) {
			return // a=b; b=a: Bash stops with an error, having run nothing
		}
		a.arithVars = append(a.arithVars, name)
		a.arithValue(cmd, v.value)
		a.arithVars = a.arithVars[:len(a.arithVars)-1]
		return
	}
	a.add(Medium, cmd, "evaluates $"+name+" as arithmetic, and Bash runs the $(…) a value like a[$(…)] hides; its value is only known when it runs")
}

// arithValue judges a known value that arithmetic reads, which Bash evaluates in turn
// (a=b; b='c[$(…)]'; echo $((a)) runs the command): followed as deep as code hidden in
// strings is.
func (a *analyzer) arithValue(cmd, value string) {
	if a.depth >= maxDepth {
		// What the values lead to could be any command.
		a.add(Critical, cmd, "evaluates variables as arithmetic through more values than parley follows")
		return
	}
	if !a.spend(cmd) { // a='b+b+b'; b='c+c+c'…: each value is followed every time it is read
		return
	}
	a.depth++
	a.arithText(cmd, value, "a value used in arithmetic")
	a.depth--
}

// nameText judges a literal variable name as read, printf -v, unset, declare, test -v
// and a nameref take it (with =value after it, for declare): Bash evaluates its
// subscript as arithmetic, and expands it again, so a $ or a backquote there is code.
func (a *analyzer) nameText(cmd, text string) {
	name, _, _ := splitAssignment(text)
	if plainName().MatchString(name) {
		return
	}
	base, sub, ok := subscript(name)
	if !ok {
		if strings.ContainsAny(name, "$`") {
			a.arithCode(cmd, name, "a variable name")
		}
		return
	}
	if a.shell.assoc[base] {
		// A key, not arithmetic; Bash still expands it.
		if strings.ContainsAny(sub, "$`") {
			a.arithCode(cmd, sub, "the key of "+base)
		}
		return
	}
	a.arithText(cmd, sub, "the subscript of "+base)
}

// subscript splits NAME[SUB] into NAME and SUB.
func subscript(name string) (base, sub string, ok bool) {
	open := strings.IndexByte(name, '[')
	if open <= 0 || !strings.HasSuffix(name, "]") {
		return "", "", false
	}
	return name[:open], name[open+1 : len(name)-1], true
}

// splitAssignment splits NAME=value, NAME[SUB]=value and NAME+=value, where a subscript
// may hold = and brackets of its own.
func splitAssignment(s string) (name, value string, ok bool) {
	depth := 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '[':
			depth++
		case ']':
			if depth > 0 {
				depth--
			}
		case '+':
			if depth == 0 && i+1 < len(s) && s[i+1] == '=' {
				return s[:i], s[i+2:], true
			}
		case '=':
			if depth == 0 {
				return s[:i], s[i+1:], true
			}
		}
	}
	return s, "", false
}

// integerValue judges a value given to name when it was declared -i (declare -i,
// local -i…) or a nameref (declare -n): Bash evaluates an integer's value as arithmetic,
// and takes a nameref's as a variable name, subscript included.
func (a *analyzer) integerValue(cmd, name string, value *word) {
	switch {
	case a.shell.integer[name] && value.lit:
		a.arithText(cmd, value.val, "the value of the integer variable "+name)
	case a.shell.integer[name]:
		if value.node != nil {
			a.arithmetic(cmd, value.node)
		} else {
			a.add(Medium, cmd, "gives the integer variable "+name+" a value only known when it runs, which Bash evaluates as arithmetic")
		}
	}
	if a.shell.nameref[name] {
		a.shellName(cmd, *value)
	}
}

// arrayElements judges name=(…): an indexed array's subscripts are arithmetic, and an
// integer array's values too.
func (a *analyzer) arrayElements(name string, array *syntax.ArrayExpr) {
	for _, e := range array.Elems {
		if e.Index != nil && !a.shell.assoc[name] {
			a.arithmetic("", e.Index)
		}
		if e.Value != nil {
			v := a.eval.word(e.Value)
			a.integerValue("", name, &v)
		}
	}
}

// literalInput is the text on the input when the line gives it (a here-string, a
// heredoc without expansions, what echo prints into a pipe).
func (a *analyzer) literalInput() (string, bool) {
	in := a.stdin
	return in.text, (in.kind == stdinText || in.kind == stdinPipe) && !in.unseen
}

// readLine is the value read NAME gives one name when the line gives its input: the
// first line, without the blanks around it. Not known with options that read otherwise
// (-d, -n, -N, -u, -a), a backslash that read without -r would remove, or IFS changed.
func (a *analyzer) readLine(c *call, p parsedArgs) (string, bool) {
	text, ok := a.literalInput()
	if !ok || p.has("d", "n", "N", "u", "a") || !p.has("r") && strings.Contains(text, "\\") {
		return "", false
	}
	if _, set := a.shell.vars["IFS"]; set || slices.ContainsFunc(c.cmd.Env, func(e string) bool { return strings.HasPrefix(e, "IFS=") }) {
		return "", false
	}
	line, _, _ := strings.Cut(text, "\n")
	return strings.Trim(line, " \t"), true
}

// readsInto judges a builtin that stores what it reads or prints (read, mapfile, printf
// -v) in name: an integer variable's value is evaluated as arithmetic, a nameref's is a
// name. Input the line gives is judged as that text.
func (a *analyzer) readsInto(cmd, name string) {
	if !a.shell.integer[name] && !a.shell.nameref[name] {
		return
	}
	if text, ok := a.literalInput(); ok {
		for _, line := range strings.Split(strings.TrimSuffix(text, "\n"), "\n") {
			w := literalWord(strings.TrimSpace(line))
			a.integerValue(cmd, name, &w)
		}
		return
	}
	a.unknownInto(cmd, name)
}

// unknownInto judges a value only known when it runs stored in name.
func (a *analyzer) unknownInto(cmd, name string) {
	if a.shell.integer[name] {
		a.add(Medium, cmd, "stores a value only known when it runs in the integer variable "+name+", which Bash evaluates as arithmetic")
	}
	if a.shell.nameref[name] {
		a.add(Medium, cmd, "stores a value only known when it runs in the nameref "+name+", which Bash takes as a variable name")
	}
}

// printsInto judges printf -v name: what it prints becomes an integer's value (or a
// nameref's name), so a $ or a backquote in a literal argument is code; a backslash
// escape (\x24 is $) or an expansion makes it text only known when it runs.
func (a *analyzer) printsInto(c *call, name string, args []word) {
	if !a.shell.integer[name] && !a.shell.nameref[name] {
		return
	}
	for _, w := range args {
		switch {
		case !w.lit || strings.Contains(w.val, "\\"):
			a.unknownInto(c.text, name)
		case strings.ContainsAny(w.val, "$`"):
			a.arithCode(c.text, w.val, "what printf stores in "+name)
		}
	}
}

// attributes records the names a declaration (declare, local, export…) gives the
// attributes of flags (-i, -n; export's -n takes the export away).
func (a *analyzer) attributes(variant, flags, name string) {
	if variant == "export" {
		return
	}
	if strings.Contains(flags, "i") {
		if a.shell.integer == nil {
			a.shell.integer = map[string]bool{}
		}
		a.shell.integer[name] = true
	}
	if strings.Contains(flags, "n") {
		if a.shell.nameref == nil {
			a.shell.nameref = map[string]bool{}
		}
		a.shell.nameref[name] = true
	}
}
