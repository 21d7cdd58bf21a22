package safety

import (
	"strings"
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
}

func (o *opts) spec() flagSpec {
	return flagSpec{short: o.shortArg, long: strings.Fields(o.longArg)}
}

// knowsShort reports whether the short option letter is listed.
func (o *opts) knowsShort(c string) bool {
	return len(c) == 1 && strings.Contains(o.short+o.shortArg, c) || o.numeric && len(c) == 1 && c[0] >= '0' && c[0] <= '9'
}

// knowsLong reports whether name is a listed long option, exactly. GNU getopt takes
// abbreviations, but an abbreviation of a listed option may be, exactly, an option
// that is not listed (rg's --pre is the start of --pretty), so only whole names count.
func (o *opts) knowsLong(name string) bool {
	if name == "" {
		return false
	}
	for _, set := range []string{o.long, o.longArg} {
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
	}
	return p
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
