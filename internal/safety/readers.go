package safety

import (
	"strings"
	"sync"
)

// sortOptions are sort's options: -o writes its output, -T its temporary files,
// --compress-program runs a program.
var sortOptions = opts{short: "bdfghiMnrRsuVzcCm", shortArg: "kt",
	long:    "ignore-leading-blanks dictionary-order ignore-case general-numeric-sort ignore-nonprinting month-sort human-numeric-sort numeric-sort random-sort reverse version-sort check merge stable unique zero-terminated debug help version",
	longArg: "key field-separator buffer-size parallel sort batch-size",
	writes:  "o output T temporary-directory", reads: "files0-from random-source", runs: "compress-program"}

// sortProgram is a reader whose -o writes.
func sortProgram(a *analyzer, c *call) {
	p := a.checkOptions(c, &sortOptions)
	for _, w := range p.operandWords(c.args) {
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
}

// findTests are find's tests and options known to be harmless, and how many words
// each takes.
var findTests = sync.OnceValue(func() map[string]int {
	return map[string]int{
		"-name": 1, "-iname": 1, "-path": 1, "-ipath": 1, "-wholename": 1, "-iwholename": 1, "-regex": 1, "-iregex": 1,
		"-lname": 1, "-ilname": 1, "-type": 1, "-xtype": 1, "-size": 1, "-mtime": 1, "-mmin": 1, "-atime": 1, "-amin": 1,
		"-ctime": 1, "-cmin": 1, "-newer": 1, "-anewer": 1, "-cnewer": 1, "-newerXY": 1, "-user": 1, "-group": 1, "-uid": 1,
		"-gid": 1, "-perm": 1, "-links": 1, "-inum": 1, "-samefile": 1, "-maxdepth": 1, "-mindepth": 1, "-regextype": 1,
		"-fstype": 1, "-used": 1, "-printf": 1, "-context": 1, "-empty": 0, "-readable": 0, "-writable": 0, "-executable": 0,
		"-depth": 0, "-prune": 0, "-print": 0, "-print0": 0, "-ls": 0, "-quit": 0, "-true": 0, "-false": 0, "-not": 0, "!": 0,
		"-a": 0, "-and": 0, "-o": 0, "-or": 0, "(": 0, ")": 0, ",": 0, "-follow": 0, "-xdev": 0, "-mount": 0, "-noleaf": 0,
		"-daystart": 0, "-ignore_readdir_race": 0, "-noignore_readdir_race": 0, "-nouser": 0, "-nogroup": 0, "-nowarn": 0,
		"-warn": 0, "-help": 0, "--help": 0, "-version": 0, "--version": 0,
	}
})

// findNames are the tests that narrow what find matches by name.
var findNames = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"-name": true, "-iname": true, "-path": true, "-ipath": true, "-wholename": true, "-iwholename": true, "-regex": true, "-iregex": true}
})

// find judges find: its tests must be known; -delete is a recursive delete of where it
// starts (narrowed by a name test, it deletes what matches: High inside the workspace);
// -exec and its kind run their command with {} only known at run time; -fprint and
// its kind write files.
func find(a *analyzer, c *call) {
	var starts []word
	i := 0
	for ; i < len(c.args); i++ {
		v := c.args[i].val
		if c.args[i].lit && (strings.HasPrefix(v, "-") && v != "-" || v == "(" || v == "!") {
			if v == "-H" || v == "-L" || v == "-P" || strings.HasPrefix(v, "-O") || v == "-D" {
				if v == "-D" {
					i++
				}
				continue
			}
			break
		}
		starts = append(starts, c.args[i])
	}
	if len(starts) == 0 {
		starts = []word{literalWord(".")}
	}
	narrowed, alternatives, deletes := false, false, false
	for ; i < len(c.args); i++ {
		w := c.args[i]
		if !w.lit {
			a.add(Medium, c.text, "gives find an expression only known when it runs ("+w.src+")")
			continue
		}
		switch w.val {
		case "-delete":
			deletes = true
			continue
		case "-exec", "-execdir", "-ok", "-okdir":
			end := i + 1
			for end < len(c.args) && !(c.args[end].lit && (c.args[end].val == ";" || c.args[end].val == "+")) {
				end++
			}
			inner := append([]word(nil), c.args[i+1:end]...)
			for j := range inner {
				if strings.Contains(inner[j].val, "{}") {
					inner[j] = unknownWord(inner[j].src)
					if inner[j].src == "{}" && startsPlain(starts) {
						// What find finds starts with where it started: never a dash.
						inner[j].prefix = "./"
					}
				}
			}
			a.nestedRun(c.text, inner)
			for _, s := range starts {
				a.reads(c.text, s, a.dir)
			}
			i = end
			continue
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(c.args) {
				a.writes(c.text, c.args[i+1], a.dir, "writes to")
				i++
			}
			if w.val == "-fprintf" {
				i++
			}
			continue
		case "-o", "-or", ",", "-not", "!":
			alternatives = true
		}
		n, known := findTests()[w.val]
		if !known {
			if strings.HasPrefix(w.val, "-newer") {
				n, known = 1, true
			} else {
				a.add(Medium, c.text, "gives find "+w.val+", which parley does not know to be harmless")
				continue
			}
		}
		if findNames()[w.val] && i+1 < len(c.args) && strings.Trim(c.args[i+1].val, "*?.") != "" {
			narrowed = true
		}
		i += n
	}
	if deletes {
		for _, s := range starts {
			if narrowed && !alternatives {
				loc := a.locate(s, a.dir)
				if loc.place == placeInside || loc.place == placeRoot {
					a.add(High, c.text, "deletes the files it finds under "+loc.describe())
					continue
				}
			}
			a.deletes(c.text, s, a.dir, true)
		}
	}
	for _, s := range starts {
		a.reads(c.text, s, a.dir)
		a.openFile(s)
	}
}

// startsPlain reports whether every place find starts from is a literal path that does
// not start with a dash.
func startsPlain(starts []word) bool {
	for _, s := range starts {
		if !s.lit || strings.HasPrefix(s.val, "-") {
			return false
		}
	}
	return true
}

// nestedRun judges words another program runs as a command (find -exec, fd -x).
func (a *analyzer) nestedRun(cmd string, words []word) {
	if len(words) == 0 {
		return
	}
	if a.depth >= maxDepth {
		a.add(Critical, cmd, "hides commands too deeply to judge")
		return
	}
	saved := a.nested
	a.nested = true
	a.depth++
	a.run(nil, nil, words, false)
	a.depth--
	a.nested = saved
}

// fdOptions are fd's options before an -x/-X command.
var fdOptions = opts{short: "HIusigFalLpq0", shortArg: "dteESjco",
	long: `hidden no-hidden no-ignore ignore unrestricted case-sensitive ignore-case glob regex fixed-strings absolute-path
		relative-path list-details follow full-path print0 quiet show-errors one-file-system prune no-ignore-vcs no-ignore-parent
		no-require-git no-global-ignore-file strip-cwd-prefix help version`,
	longArg: `max-depth min-depth exact-depth type extension exclude size changed-within changed-before newer older owner
		color threads max-results path-separator format hyperlink and`,
	reads: "base-directory search-path ignore-file"}

// fd judges fd, whose -x/-X run a command for its results; its other options must be
// known.
func fd(a *analyzer, c *call) {
	before := c.args
	for i, w := range c.args {
		if w.lit && (w.val == "-x" || w.val == "--exec" || w.val == "-X" || w.val == "--exec-batch") {
			before = c.args[:i]
			break
		}
	}
	p := a.checkOptions(&call{cmd: c.cmd, name: c.name, args: before, text: c.text}, &fdOptions)
	if ops := p.operandWords(before); len(ops) > 1 {
		for _, w := range ops[1:] {
			a.reads(c.text, w, a.dir) // the directories it searches
		}
	}
	for i, w := range c.args {
		if w.lit && (w.val == "-x" || w.val == "--exec" || w.val == "-X" || w.val == "--exec-batch") {
			inner := append([]word(nil), c.args[i+1:]...)
			for j := range inner {
				if strings.Contains(inner[j].val, "{") {
					inner[j] = unknownWord(inner[j].src)
				}
			}
			if len(inner) > 0 {
				inner = append(inner, unknownWord("(its results)"))
			}
			a.nestedRun(c.text, inner)
			return
		}
	}
}

// cd changes the directory the rest of the line runs in.
func cd(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{})
	operands := p.operandWords(c.args)
	switch {
	case len(operands) == 0:
		a.dir = a.ctx.Home
	case !operands[0].lit || operands[0].val == "-":
		a.dir = ""
	default:
		if a.dir == "" && !strings.HasPrefix(operands[0].val, "/") {
			return
		}
		a.dir = a.locate(operands[0], a.dir).path
	}
}
