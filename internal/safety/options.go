package safety

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// opts lists the options of a program that are known to be harmless: they neither run
// code nor write anything but what the command names. An option that is not listed
// (a new one, a misspelt one, one that runs a program) makes the command at least
// Medium: "no question needed" is earned option by option, never assumed.
type opts struct {
	short    string // short options without a value: "la" for -l, -a and -la
	shortArg string // short options that take a value: "n" for -n 5 and -n5
	long     string // long options without a value, space-separated: "all reverse"
	longArg  string // long options that take a value: "lines bytes"
	// numeric accepts -NUM as an option (head -20, fmt -72).
	numeric bool
	// globSafe says that no option of the program, listed or not, runs code or writes:
	// a glob that expands to a name starting with a dash (a file called --pre=x) can
	// then do no harm. Other programs given such a glob are Medium.
	globSafe bool

	// Options that take a value and do something with it besides reading text: each
	// is known (it is judged, not refused), and what it does is judged. Names are
	// space-separated; one letter names a short option, a longer name a long one.
	writes string // the value is a file (or directory) the program writes: judged like "> value"
	reads  string // the value is a file it reads
	runs   string // the value is a program or a command line it runs: High, and judged as code
	config string // the value is a file of settings that can name programs it runs: Medium, no "always"
}

// optionKind is what an option of opts does with its value.
type optionKind int

const (
	kindPlain  optionKind = iota // listed, or not known at all
	kindWrites                   // writes the file its value names
	kindReads                    // reads the file its value names
	kindRuns                     // runs its value as a program or a command
	kindConfig                   // reads settings that can name programs from its value
)

// kinds lists the option-kind fields with what they mean.
func (o *opts) kinds() [4]struct {
	names string
	kind  optionKind
} {
	return [4]struct {
		names string
		kind  optionKind
	}{{o.writes, kindWrites}, {o.reads, kindReads}, {o.runs, kindRuns}, {o.config, kindConfig}}
}

// withValue returns the short options (letters) and long options with a value, the
// listed ones and those of a kind.
func (o *opts) withValue() (string, []string) {
	short, long := o.shortArg, strings.Fields(o.longArg)
	for _, k := range o.kinds() {
		for _, n := range strings.Fields(k.names) {
			if len(n) == 1 {
				short += n
			} else {
				long = append(long, n)
			}
		}
	}
	return short, long
}

func (o *opts) spec() flagSpec {
	short, long := o.withValue()
	return flagSpec{short: short, long: long}
}

// kindOf returns what option f does with its value. A long option that is the start
// of one of a kind (--outp for --output: GNU getopt and git take abbreviations) is
// taken for it, so that a write is never missed by abbreviating it.
func (o *opts) kindOf(f flag) (optionKind, bool) {
	for _, k := range o.kinds() {
		for _, n := range strings.Fields(k.names) {
			switch {
			case len(n) == 1 && !f.long && f.name == n, len(n) > 1 && f.long && f.name == n:
				return k.kind, true
			case len(n) > 1 && f.long && f.name != "" && strings.HasPrefix(n, f.name):
				return k.kind, false
			}
		}
	}
	return kindPlain, false
}

// knowsShort reports whether the short option letter is listed.
func (o *opts) knowsShort(c string) bool {
	short, _ := o.withValue()
	return len(c) == 1 && strings.Contains(o.short+short, c) || o.numeric && len(c) == 1 && c[0] >= '0' && c[0] <= '9'
}

// knowsLong reports whether name is a listed long option, exactly. GNU getopt takes
// abbreviations, but an abbreviation of a listed option may be, exactly, an option
// that is not listed (rg's --pre is the start of --pretty), so only whole names count.
func (o *opts) knowsLong(name string) bool {
	if name == "" {
		return false
	}
	_, long := o.withValue()
	for _, set := range []string{o.long, strings.Join(long, " ")} {
		for _, known := range strings.Fields(set) {
			if known == name {
				return true
			}
		}
	}
	return false
}

// checkOptions parses c's arguments with the options o lists and adds a Medium finding
// for each option it does not know, and for words only known when the command runs
// that may be options.
func (a *analyzer) checkOptions(c *call, o *opts) parsedArgs {
	p := parseArgs(c.args, o.spec())
	if p.unknown && !o.globSafe {
		a.add(Medium, c.text, "gives "+c.name+" words only known when it runs, which may be options (a file named -x, $VAR); write ./*.go or put -- before them")
	}

	for _, f := range p.flags {
		known := o.knowsLong(f.name)
		shown := "--" + f.name
		if !f.long {
			known = o.knowsShort(f.name)
			shown = "-" + f.name
		}
		if !known {
			a.add(Medium, c.text, "gives "+c.name+" the option "+shown+", which parley does not know to be harmless")
		}
		// A value taken from the next word could, where the program does not take one,
		// be an option itself (-m --output=x): it must be one this list knows too.
		if f.valueArg >= 0 && strings.HasPrefix(f.value, "-") && len(f.value) > 1 && !o.knowsWord(f.value) {
			a.add(Medium, c.text, "gives "+c.name+" "+f.value+", which may be an option parley does not know to be harmless")
		}
		a.optionEffect(c, o, f, shown)
	}
	return p
}

// optionEffects judges the options of a kind among c's arguments, and only them: for
// a command already judged Medium or more for what it does, where an option parley
// does not know adds nothing, but a write to a sensitive file still must.
func (a *analyzer) optionEffects(c *call, o *opts) parsedArgs {
	p := parseArgs(c.args, o.spec())
	for _, f := range p.flags {
		shown := "--" + f.name
		if !f.long {
			shown = "-" + f.name
		}
		a.optionEffect(c, o, f, shown)
	}
	return p
}

// optionEffect judges what an option of a kind does with its value: a written file
// like a redirection, a read file like an operand, a program like the command it is.
func (a *analyzer) optionEffect(c *call, o *opts, f flag, shown string) {
	kind, exact := o.kindOf(f)
	if kind == kindPlain || !exact && strings.Contains(" "+o.long+" "+o.longArg+" ", " "+f.name+" ") {
		return // a listed option whose name starts another's is itself
	}
	var value word
	switch {
	case f.hasValue:
		value = f.valueWord(c.args)
	case !exact && f.index+1 < len(c.args):
		// An abbreviation parsing did not give a value: the program takes the next word.
		value = c.args[f.index+1]
	default:
		return
	}
	switch kind {
	case kindWrites:
		a.writes(c.text, value, a.dir, "writes ("+shown+") to")
	case kindReads:
		a.reads(c.text, value, a.dir)
	case kindRuns:
		a.add(High, c.text, "makes "+c.name+" run a program of its choice ("+shown+")")
		a.commandValue(c, value)
	case kindConfig:
		a.reads(c.text, value, a.dir)
		a.add(Medium, c.text, "reads "+c.name+"'s settings from "+value.src+", which can name programs it runs ("+shown+")")
		a.codeFile(value.src)
	}
}

// commandValue judges a program or command line an option makes a program run: code
// only known when it runs is Critical; a known command that would be Critical (a
// delete of home) makes this Critical. Its other findings are what High covers.
func (a *analyzer) commandValue(c *call, w word) {
	if !w.lit {
		c.cmd.RunTime = true
		a.add(Critical, c.text, "runs a command only known when it runs ("+w.src+"), which parley cannot see")
		return
	}
	if a.depth >= maxDepth {
		a.add(Critical, c.text, "hides commands too deeply to judge")
		return
	}
	p := &analyzer{ctx: a.ctx, dir: a.dir, depth: a.depth + 1, open: map[*syntax.Word]bool{}, nested: true, budget: a.budget}
	p.code(c.text, w.val)
	if why := critical(p); why != "" {
		a.add(Critical, c.text, "runs "+QuoteWord(w.val)+", which "+why)
	}
}

// knowsWord reports whether an argument written as an option is made of listed options.
func (o *opts) knowsWord(v string) bool {
	if strings.HasPrefix(v, "--") {
		name, _, _ := strings.Cut(v[2:], "=")
		return o.knowsLong(name)
	}
	for i := 1; i < len(v); i++ {
		if !o.knowsShort(v[i : i+1]) {
			return false
		}
		if strings.IndexByte(o.shortArg, v[i]) >= 0 {
			return true // the rest is its value
		}
	}
	return true
}

// flagWord returns the word of an option's value (see flag.valueWord), or ok false
// when the option was not given.
func flagWord(p parsedArgs, args []word, names ...string) (word, bool) {
	f, ok := p.get(names...)
	if !ok {
		return word{}, false
	}
	return f.valueWord(args), true
}
