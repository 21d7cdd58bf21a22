package safety

import (
	"strings"
	"sync"

	"mvdan.cc/sh/v3/syntax"
)

// Shape is what an "always" decision about a command covers (see the package
// comment for the rule). The zero Shape is an empty command.
type Shape struct {
	key     string
	command string // the canonical command, file arguments left open shown as <files>
	example string // the canonical command as given
	open    bool
}

// openFiles stands for file arguments left open in a shape.
const openFiles = "<files>"

// Key is the string a decision is stored under: the tier, a space and the canonical
// command ("none cat <files>", "medium rm -f build.log").
func (s Shape) Key() string { return s.key }

// Command is the canonical command the shape covers, "<files>" standing for the file
// arguments left open.
func (s Shape) Command() string { return s.command }

// Open reports whether file arguments may differ.
func (s Shape) Open() bool { return s.open }

// IsZero reports whether the shape is of an empty command.
func (s Shape) IsZero() bool { return s.key == "" }

// Describe says in words what the shape covers, for the question that offers "always".
func (s Shape) Describe() string {
	if s.open {
		return "`" + s.example + "` and the same command with other files in the workspace"
	}
	return "exactly `" + s.command + "`"
}

// shapeOf builds the shape of an analysed line from its syntax tree (nil when the line
// could not be parsed: the shape is then the line itself, exactly).
func (a *analyzer) shapeOf(out *Analysis, file *syntax.File) Shape {
	line := strings.TrimSpace(out.Line)
	if line == "" {
		return Shape{}
	}
	if file == nil {
		return Shape{key: out.Tier.String() + " " + line, command: line, example: line}
	}
	a.canonicalWords(file)
	example := printSingleLine(file)
	s := Shape{command: example, example: example}
	if out.Tier == None && len(a.open) > 0 {
		a.openArguments(file)
		s.command, s.open = printSingleLine(file), true
	}
	if s.command == "" {
		return Shape{}
	}
	s.key = out.Tier.String() + " " + s.command
	return s
}

// canonicalWords rewrites every literal word as one literal, quoted only as needed, so
// that 'ls' and ls, or "a b" and 'a b', print alike. ~, $HOME and $PWD stay as written.
func (a *analyzer) canonicalWords(file *syntax.File) {
	var e evaluator
	programs := map[*syntax.Word]bool{}
	syntax.Walk(file, func(n syntax.Node) bool {
		if call, ok := n.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			programs[call.Args[0]] = true
		}
		return true
	})
	syntax.Walk(file, func(n syntax.Node) bool {
		w, ok := n.(*syntax.Word)
		if !ok || len(w.Parts) == 0 {
			return true
		}
		v := e.word(w)
		if !v.lit {
			return true
		}
		q := QuoteWord(v.val)
		if programs[w] {
			q = JoinArgv([]string{v.val})
		}
		w.Parts = []syntax.WordPart{&syntax.Lit{Value: q}}
		return false
	})
}

// openArguments replaces the words marked open with <files>, a run of them with one.
func (a *analyzer) openArguments(file *syntax.File) {
	syntax.Walk(file, func(n syntax.Node) bool {
		call, ok := n.(*syntax.CallExpr)
		if !ok {
			return true
		}
		args := call.Args[:0:0]
		for _, w := range call.Args {
			if !a.open[w] {
				args = append(args, w)
				continue
			}
			if len(args) > 0 && isOpenPlaceholder(args[len(args)-1]) {
				continue
			}
			args = append(args, &syntax.Word{Parts: []syntax.WordPart{&syntax.Lit{Value: openFiles}}})
		}
		call.Args = args
		return true
	})
}

func isOpenPlaceholder(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	l, ok := w.Parts[0].(*syntax.Lit)
	return ok && l.Value == openFiles
}

// printers are reused: a new one allocates its buffers.
var printers = sync.Pool{New: func() any { return syntax.NewPrinter(syntax.SingleLine(true)) }}

func printSingleLine(file *syntax.File) string {
	p := printers.Get().(*syntax.Printer)
	defer printers.Put(p)
	var b strings.Builder
	if err := p.Print(&b, file); err != nil {
		return ""
	}
	return strings.TrimRight(b.String(), "\n")
}
