package safety

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is one shell word as the analysis sees it: its value when the shell would hand
// it over unchanged, or what is known of it when it is only known when it runs.
type word struct {
	node *syntax.Word // nil for words made up by the analysis (xargs input, find's {})
	src  string       // as written
	// val is the value a program receives when lit; otherwise the literal parts with
	// each expansion kept as written (for display and for conservative checks).
	val string
	lit bool
	// prefix is the literal value before the first expansion or glob (val when lit).
	prefix string
	glob   bool     // an unquoted glob or brace expansion: may become several paths
	brace  bool     // an unquoted brace expansion: val holds it, to expand
	split  bool     // an unquoted expansion: may become any number of words
	params []string // the parameters it expands ($HOME, $f...)
	subst  bool     // a command or process substitution
	// download is set when the value comes from the network: a substitution that
	// downloads, or a variable assigned one.
	download bool
}

// canBeFlag reports whether the word may start with a dash when the command runs.
func (w word) canBeFlag() bool {
	if w.lit {
		return strings.HasPrefix(w.val, "-")
	}
	return w.prefix == "" || strings.HasPrefix(w.prefix, "-")
}

// literalWord makes a word the analysis knows the value of.
func literalWord(s string) word { return word{src: s, val: s, lit: true, prefix: s} }

// unknownWord makes a word only known when the command runs (xargs input, find's {}).
func unknownWord(src string) word { return word{src: src, val: src, split: true} }

// evaluator turns syntax words into words. home and pwd expand ~, $HOME and $PWD when
// known ("" when not).
type evaluator struct {
	src  string
	home string
	pwd  string
}

func (e *evaluator) word(w *syntax.Word) word {
	out := word{node: w, src: e.text(w), lit: true}
	var val strings.Builder
	literal := func(s string) {
		val.WriteString(s)
		if out.lit && !out.glob {
			out.prefix += s
		}
	}
	dynamic := func(src string) {
		val.WriteString(src)
		out.lit = false
	}
	for i, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			v := p.Value
			if i == 0 && strings.HasPrefix(v, "~") {
				v = e.tilde(&out, v)
				if !out.lit {
					dynamic(v)
					continue
				}
			}
			s, globAt, brace := unescapeUnquoted(v)
			if globAt < 0 {
				literal(s)
				continue
			}
			literal(s[:globAt])
			val.WriteString(s[globAt:])
			out.glob, out.lit = true, false
			out.brace = out.brace || brace
		case *syntax.SglQuoted:
			if p.Dollar {
				s, ok := decodeANSIC(p.Value)
				if !ok {
					dynamic("$'" + p.Value + "'")
					continue
				}
				literal(s)
			} else {
				literal(p.Value)
			}
		case *syntax.DblQuoted:
			for _, dp := range p.Parts {
				if l, ok := dp.(*syntax.Lit); ok {
					literal(unescapeDouble(l.Value))
					continue
				}
				e.expansion(&out, dp, false, literal, dynamic)
			}
		default:
			e.expansion(&out, part, true, literal, dynamic)
		}
	}
	out.val = val.String()
	if out.lit {
		out.prefix = out.val
	}
	return out
}

// expansion handles a part that expands: $HOME and $PWD become their values when known,
// everything else is only known when the command runs.
func (e *evaluator) expansion(out *word, part syntax.WordPart, unquoted bool, literal, dynamic func(string)) {
	src := e.text(part)
	switch p := part.(type) {
	case *syntax.ParamExp:
		if p.Param != nil {
			out.params = append(out.params, p.Param.Value)
		}
		if v, ok := e.knownParam(p); ok {
			literal(v)
			return
		}
	case *syntax.CmdSubst, *syntax.ProcSubst:
		out.subst = true
	case *syntax.ExtGlob, *syntax.BraceExp:
		out.glob = true
	}
	if unquoted {
		if _, arith := part.(*syntax.ArithmExp); !arith {
			out.split = true
		}
	}
	dynamic(src)
}

// knownParam expands a plain $HOME or $PWD the analysis knows.
func (e *evaluator) knownParam(p *syntax.ParamExp) (string, bool) {
	plain := p.Param != nil && !p.Excl && !p.Length && !p.Width && p.Index == nil &&
		p.Slice == nil && p.Repl == nil && p.Exp == nil && p.Names == 0 && len(p.Modifiers) == 0
	if !plain {
		return "", false
	}
	switch p.Param.Value {
	case "HOME":
		return e.home, e.home != ""
	case "PWD":
		return e.pwd, e.pwd != ""
	}
	return "", false
}

// tilde expands a leading ~ (alone or before a slash) to the home directory when it is
// known; ~user, ~+ and ~- (and ~ with no known home) leave the word only known when it
// runs.
func (e *evaluator) tilde(out *word, v string) string {
	name, _, _ := strings.Cut(v, "/")
	if name == "~" && e.home != "" {
		return e.home + v[1:]
	}
	out.lit = false
	out.params = append(out.params, name)
	return v
}

func (e *evaluator) text(n syntax.Node) string {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if start < 0 || end > len(e.src) || start > end {
		return ""
	}
	return e.src[start:end]
}

// unescapeUnquoted removes the backslashes of an unquoted literal. globAt is where, in
// the result, the first unescaped glob (* ? [...]) or brace expansion ({a,b} {1..3})
// starts (-1 without one); brace reports a brace expansion.
func unescapeUnquoted(s string) (out string, globAt int, brace bool) {
	globAt = -1
	if !strings.ContainsAny(s, `\*?[{`) {
		return s, -1, false
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		meta := false
		switch {
		case c == '\\' && i+1 < len(s):
			i++
			if s[i] != '\n' {
				b.WriteByte(s[i])
			}
			continue
		case c == '*' || c == '?' || c == '[' && strings.IndexByte(s[i+1:], ']') >= 0:
			meta = true
		case c == '{' && braceExpands(s[i:]):
			meta, brace = true, true
		}
		if meta && globAt < 0 {
			globAt = b.Len()
		}
		b.WriteByte(c)
	}
	return b.String(), globAt, brace
}

// braceExpands reports whether s, starting with {, opens a brace expansion: a closing }
// with a comma or .. before it.
func braceExpands(s string) bool {
	end := strings.IndexByte(s, '}')
	if end < 0 {
		return false
	}
	inner := s[1:end]
	return strings.Contains(inner, ",") || strings.Contains(inner, "..")
}

// unescapeDouble removes the backslashes that mean something inside double quotes.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			switch s[i+1] {
			case '$', '`', '"', '\\':
				i++
			case '\n':
				i++
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of a Bash $'...' string.
func decodeANSIC(s string) (string, bool) {
	if !strings.Contains(s, `\`) {
		return s, true
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 == len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch c = s[i]; c {
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'n':
			b.WriteByte('\n')
		case 'r':
			b.WriteByte('\r')
		case 't':
			b.WriteByte('\t')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(c)
		case 'c':
			if i+1 == len(s) {
				return "", false
			}
			i++
			b.WriteByte(s[i] & 0x1f)
		case 'x', 'u', 'U':
			max := map[byte]int{'x': 2, 'u': 4, 'U': 8}[c]
			n := hexRun(s[i+1:], max)
			if n == 0 {
				return "", false
			}
			v, _ := strconv.ParseUint(s[i+1:i+1+n], 16, 32)
			i += n
			if c == 'x' {
				b.WriteByte(byte(v))
			} else {
				if v > utf8.MaxRune {
					return "", false
				}
				b.WriteRune(rune(v))
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			n := 1
			for n < 3 && i+n < len(s) && s[i+n] >= '0' && s[i+n] <= '7' {
				n++
			}
			v, _ := strconv.ParseUint(s[i:i+n], 8, 16)
			b.WriteByte(byte(v))
			i += n - 1
		default:
			b.WriteByte('\\')
			b.WriteByte(c)
		}
	}
	return b.String(), true
}

func hexRun(s string, max int) int {
	n := 0
	for n < max && n < len(s) && strings.IndexByte("0123456789abcdefABCDEF", s[n]) >= 0 {
		n++
	}
	return n
}

// QuoteWord quotes s for display and for shape keys: as is when it needs no quoting,
// single-quoted, or $'...' with escapes for control characters. A NUL byte (which no
// shell word can hold) is shown as $'\0'. It is parley's one shell quoter (with
// JoinArgv): every command line shown to a person, whichever view shows it, is quoted
// here, the way the judge reads it back.
func QuoteWord(s string) string {
	if plainWord(s) {
		return s
	}
	q, err := syntax.Quote(s, syntax.LangBash)
	if err == nil {
		return q
	}
	q, err = syntax.Quote(strings.ReplaceAll(s, "\x00", ""), syntax.LangBash)
	if err != nil {
		return strconv.Quote(s)
	}
	return q + `$'\0'`
}

// plainWord reports whether s reads the same unquoted in an argument's place: letters,
// digits and the punctuation the shell gives no meaning there (= too, which only
// means something before the program's name; JoinArgv quotes it there).
func plainWord(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' {
			continue
		}
		if strings.IndexByte("_-+=:,./@%^", c) < 0 {
			return false
		}
	}
	return s[0] != '~'
}

// JoinArgv returns argv as one shell line, each word quoted when it needs quoting, the
// way the question shows a command and the way AnalyzeArgv parses it.
func JoinArgv(argv []string) string {
	var b strings.Builder
	for i, a := range argv {
		if i > 0 {
			b.WriteByte(' ')
		}
		q := QuoteWord(a)
		if i == 0 && q == a && strings.Contains(a, "=") {
			q = "'" + a + "'" // NAME=value first would be an assignment
		}
		b.WriteString(q)
	}
	return b.String()
}
