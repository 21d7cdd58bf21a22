package safety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// printed is what x prints into a pipe, as far as the analysis can tell: the text of an
// echo or printf whose words are all literal, the file of a plain cat FILE, and
// otherwise text only known when it runs. A program that runs code from its input is
// judged by it (echo 'ls' | sh runs ls; some-program | sh runs what nobody has seen).
func (a *analyzer) printed(x *syntax.Stmt) stdinSource {
	unseen := stdinSource{kind: stdinPipe, unseen: true}
	call, ok := x.Cmd.(*syntax.CallExpr)
	if !ok || len(x.Redirs) > 0 || len(call.Assigns) > 0 || len(call.Args) == 0 {
		return unseen
	}
	words := make([]word, len(call.Args))
	for i, w := range call.Args {
		words[i] = a.eval.word(w)
	}
	for _, w := range words[1:] {
		if !w.lit {
			if words[0].lit && programName(words[0].val) == "cat" && len(words) == 2 {
				return stdinSource{kind: stdinFile, file: w}
			}
			return unseen
		}
	}
	if !words[0].lit {
		return unseen
	}
	args := valuesOf(words[1:])
	switch programName(words[0].val) {
	case "echo":
		if text, ok := echoText(args); ok {
			return stdinSource{kind: stdinPipe, text: text}
		}
	case "printf":
		if text, ok := printfText(args); ok {
			return stdinSource{kind: stdinPipe, text: text}
		}
	case "cat":
		if len(args) == 1 && !strings.HasPrefix(args[0], "-") {
			return stdinSource{kind: stdinFile, file: words[1]}
		}
	}
	return unseen
}

// echoText is what echo prints for args: -n, -e and -E as Bash's echo reads them.
func echoText(args []string) (string, bool) {
	newline, escapes := true, false
	for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
		for _, c := range args[0][1:] {
			switch c {
			case 'n':
				newline = false
			case 'e':
				escapes = true
			case 'E':
				escapes = false
			}
		}
		args = args[1:]
	}
	text := strings.Join(args, " ")
	if escapes {
		decoded, ok := decodeANSIC(text)
		if !ok {
			return "", false
		}
		text = decoded
	}
	if newline {
		text += "\n"
	}
	return text, true
}

// printfText is what printf prints for a format with only %s and %% in it (and its
// backslash escapes); other formats are only known when it runs.
func printfText(args []string) (string, bool) {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") {
		return "", false
	}
	format, ok := decodeANSIC(args[0])
	if !ok {
		return "", false
	}
	values := args[1:]
	var b strings.Builder
	for round := 0; round == 0 || len(values) > 0; round++ {
		used := 0
		for i := 0; i < len(format); i++ {
			if format[i] != '%' {
				b.WriteByte(format[i])
				continue
			}
			if i+1 >= len(format) {
				return "", false
			}
			i++
			switch format[i] {
			case '%':
				b.WriteByte('%')
			case 's':
				if used < len(values) {
					b.WriteString(values[used])
				}
				used++
			default:
				return "", false
			}
		}
		if used == 0 {
			break
		}
		values = values[min(used, len(values)):]
	}
	return b.String(), true
}
