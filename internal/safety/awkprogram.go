package safety

import (
	"strings"
)

// awkEffect is something an awk program does besides reading its input and printing:
// kind is "run" (a command), "write" or "read" (a file), "code" (@include, @load); arg
// is the command or file when literal, "" when built at run time.
type awkEffect struct{ kind, arg string }

// awkToken is one token of an awk program.
type awkToken struct {
	kind byte   // 's' string, 'r' regex, 'i' identifier, 'n' number, 'p' punctuation, '\n' newline
	text string // a string's value, an identifier, the punctuation
}

// awkEffects scans an awk program for system(), pipes (print | "cmd", "cmd" | getline,
// |&), output redirections of print and printf (> and >> outside parentheses),
// getline < file, and gawk's @include and @load.
func awkEffects(prog string) []awkEffect {
	toks := awkTokens(prog)
	var out []awkEffect
	inPrint, depth := false, 0
	str := func(i int) (string, bool) {
		if i >= 0 && i < len(toks) && toks[i].kind == 's' {
			return toks[i].text, true
		}
		return "", false
	}
	for i, t := range toks {
		switch {
		case t.kind == 'i' && (t.text == "print" || t.text == "printf"):
			inPrint, depth = true, 0
		case t.kind == '\n' || t.kind == 'p' && (t.text == ";" || t.text == "}" || t.text == "{"):
			inPrint = false
		case t.kind == 'p' && t.text == "(":
			depth++
		case t.kind == 'p' && t.text == ")":
			depth--
		case t.kind == 'i' && t.text == "system":
			arg := ""
			if i+3 < len(toks) && toks[i+1].text == "(" && toks[i+3].text == ")" {
				arg, _ = str(i + 2)
			}
			out = append(out, awkEffect{"run", arg})
		case t.kind == 'p' && (t.text == "|" || t.text == "|&"):
			arg := ""
			if i+1 < len(toks) && toks[i+1].kind == 'i' && toks[i+1].text == "getline" {
				if s, ok := str(i - 1); ok && (i < 2 || toks[i-2].kind == 'p' || toks[i-2].kind == '\n') {
					arg = s
				}
			} else if s, ok := str(i + 1); ok {
				arg = s
			}
			out = append(out, awkEffect{"run", arg})
		case t.kind == 'p' && (t.text == ">" || t.text == ">>") && inPrint && depth <= 0:
			arg, _ := str(i + 1)
			if arg != "" && i+2 < len(toks) && toks[i+2].kind != 'p' && toks[i+2].kind != '\n' {
				arg = "" // "out" x: a name built when it runs
			}
			out = append(out, awkEffect{"write", arg})
		case t.kind == 'i' && t.text == "getline":
			if i+1 < len(toks) && toks[i+1].text == "<" || i+2 < len(toks) && toks[i+1].kind == 'i' && toks[i+2].text == "<" {
				j := i + 2
				if toks[i+1].text != "<" {
					j = i + 3
				}
				arg, _ := str(j)
				out = append(out, awkEffect{"read", arg})
			}
		case t.kind == 'p' && t.text == "@":
			if i+1 < len(toks) && (toks[i+1].text == "include" || toks[i+1].text == "load") {
				arg, _ := str(i + 2)
				out = append(out, awkEffect{"code", "@" + toks[i+1].text + " " + arg})
			}
		}
	}
	return out
}

// awkTokens splits an awk program into tokens. A slash starts a regular expression
// where an operand is expected (after an operator, an opening bracket, a comma…), and
// is division after an operand.
func awkTokens(prog string) []awkToken {
	var out []awkToken
	operandExpected := func() bool {
		if len(out) == 0 {
			return true
		}
		last := out[len(out)-1]
		switch last.kind {
		case 's', 'r', 'n':
			return false
		case 'i':
			return last.text == "print" || last.text == "printf" || last.text == "return" || last.text == "in"
		case 'p':
			return last.text != ")" && last.text != "]" && last.text != "$"
		}
		return true
	}
	for i := 0; i < len(prog); {
		c := prog[i]
		switch {
		case c == '\n':
			out = append(out, awkToken{'\n', "\n"})
			i++
		case c == ' ' || c == '\t' || c == '\r':
			i++
		case c == '\\' && i+1 < len(prog) && prog[i+1] == '\n':
			i += 2
		case c == '#':
			for i < len(prog) && prog[i] != '\n' {
				i++
			}
		case c == '"':
			j := i + 1
			var b strings.Builder
			for j < len(prog) && prog[j] != '"' {
				if prog[j] == '\\' && j+1 < len(prog) {
					switch prog[j+1] {
					case 'n':
						b.WriteByte('\n')
					case 't':
						b.WriteByte('\t')
					default:
						b.WriteByte(prog[j+1])
					}
					j += 2
					continue
				}
				b.WriteByte(prog[j])
				j++
			}
			out = append(out, awkToken{'s', b.String()})
			i = j + 1
		case c == '/' && operandExpected():
			j := i + 1
			for j < len(prog) && prog[j] != '/' && prog[j] != '\n' {
				if prog[j] == '\\' {
					j++
				} else if prog[j] == '[' { // a bracket expression may hold a slash
					for j < len(prog) && prog[j] != ']' && prog[j] != '\n' {
						j++
					}
				}
				j++
			}
			out = append(out, awkToken{'r', ""})
			i = j + 1
		case isIdentByte(c) && !(c >= '0' && c <= '9'):
			j := i
			for j < len(prog) && isIdentByte(prog[j]) {
				j++
			}
			out = append(out, awkToken{'i', prog[i:j]})
			i = j
		case c >= '0' && c <= '9' || c == '.' && i+1 < len(prog) && prog[i+1] >= '0' && prog[i+1] <= '9':
			j := i
			for j < len(prog) && (isIdentByte(prog[j]) || prog[j] == '.') {
				j++
			}
			out = append(out, awkToken{'n', prog[i:j]})
			i = j
		default:
			op := string(c)
			if i+1 < len(prog) {
				switch two := prog[i : i+2]; two {
				case "||", "&&", "|&", ">>", ">=", "<=", "==", "!=", "!~", "++", "--", "+=", "-=", "*=", "/=", "%=", "^=", "**":
					op = two
				}
			}
			out = append(out, awkToken{'p', op})
			i += len(op)
		}
	}
	return out
}
