package safety

import "strings"

// flagSpec says which options of a program take a value.
type flagSpec struct {
	short string   // short options that take a value ("n" for -n 5 and -n5)
	long  []string // long options that take a value, without dashes ("max-count")
	// stopAtOperand stops option parsing at the first operand (POSIX, and programs
	// whose operands are a command: "timeout 5 cmd -x").
	stopAtOperand bool
}

// flag is one option as written.
type flag struct {
	name     string // one letter for a short option, the name without dashes for a long one
	long     bool
	value    string
	hasValue bool
	index    int // the argument it came from
	valueArg int // the argument its value came from, when a separate one; else -1
}

// valueWord returns the option's value as a word: the argument it came from (so a
// value only known at run time stays so), or its attached literal value.
func (f flag) valueWord(args []word) word {
	if f.valueArg >= 0 {
		return args[f.valueArg]
	}
	if f.index < len(args) && !args[f.index].lit {
		// -o$OUT: the value is only known when the command runs.
		return unknownWord(f.value)
	}
	return literalWord(f.value)
}

// parsedArgs is a command's arguments split into options and operands.
type parsedArgs struct {
	flags    []flag
	operands []int // indices of the operands
	// unknown is set when a word that may be an option is only known when the command
	// runs: any option may then be present.
	unknown bool
}

func (s flagSpec) takesShort(c byte) bool { return strings.IndexByte(s.short, c) >= 0 }

func (s flagSpec) takesLong(name string) bool {
	for _, l := range s.long {
		if l == name {
			return true
		}
	}
	return false
}

// parseArgs splits args the way GNU getopt does: options may follow operands (unless
// stopAtOperand), "--" ends them, "-" is an operand.
func parseArgs(args []word, spec flagSpec) parsedArgs {
	var p parsedArgs
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.lit {
			if w.canBeFlag() {
				p.unknown = true
			}
			p.operands = append(p.operands, i)
			if spec.stopAtOperand {
				return p.rest(i+1, len(args))
			}
			continue
		}
		v := w.val
		switch {
		case v == "--":
			return p.rest(i+1, len(args))
		case strings.HasPrefix(v, "--"):
			name, value, has := strings.Cut(v[2:], "=")
			f := flag{name: name, long: true, value: value, hasValue: has, index: i, valueArg: -1}
			if !has && spec.takesLong(name) && i+1 < len(args) {
				i++
				f.value, f.hasValue, f.valueArg = args[i].val, true, i
			}
			p.flags = append(p.flags, f)
		case len(v) > 1 && v[0] == '-':
			i = p.shortCluster(args, i, spec)
		default:
			p.operands = append(p.operands, i)
			if spec.stopAtOperand {
				return p.rest(i+1, len(args))
			}
		}
	}
	return p
}

func (p *parsedArgs) shortCluster(args []word, i int, spec flagSpec) int {
	v := args[i].val
	for j := 1; j < len(v); j++ {
		f := flag{name: v[j : j+1], index: i, valueArg: -1}
		if spec.takesShort(v[j]) {
			switch {
			case j+1 < len(v):
				f.value, f.hasValue = v[j+1:], true
			case i+1 < len(args):
				i++
				f.value, f.hasValue, f.valueArg = args[i].val, true, i
			}
			p.flags = append(p.flags, f)
			return i
		}
		p.flags = append(p.flags, f)
	}
	return i
}

func (p parsedArgs) rest(from, to int) parsedArgs {
	for i := from; i < to; i++ {
		p.operands = append(p.operands, i)
	}
	return p
}

// has reports whether any of names was given: one letter names a short option, a
// longer name a long one, matched also when abbreviated (GNU getopt accepts any
// unambiguous prefix, and "--rec" means "--recursive").
func (p parsedArgs) has(names ...string) bool {
	_, ok := p.get(names...)
	return ok
}

// get returns the last of the options named (see has).
func (p parsedArgs) get(names ...string) (flag, bool) {
	var found flag
	ok := false
	for _, f := range p.flags {
		for _, n := range names {
			if matchesFlag(f, n) {
				found, ok = f, true
			}
		}
	}
	return found, ok
}

func matchesFlag(f flag, name string) bool {
	if len(name) == 1 {
		return !f.long && f.name == name
	}
	return f.long && f.name != "" && strings.HasPrefix(name, f.name)
}

// operandWords returns the operands as words.
func (p parsedArgs) operandWords(args []word) []word {
	out := make([]word, 0, len(p.operands))
	for _, i := range p.operands {
		out = append(out, args[i])
	}
	return out
}
