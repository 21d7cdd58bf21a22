package safety

import "strings"

// readerSpec describes a program that only reads: which options take values, and
// how many leading operands are not files (grep's pattern).
type readerSpec struct {
	spec    flagSpec
	pattern int
}

var readerTable = map[string]readerSpec{
	"cat": {}, "tac": {}, "nl": {spec: flagSpec{short: "bdfhilnsvw"}}, "head": {spec: flagSpec{short: "nc", long: []string{"lines", "bytes"}}},
	"tail": {spec: flagSpec{short: "ncs", long: []string{"lines", "bytes", "pid", "sleep-interval", "max-unchanged-stats"}}},
	"less": {spec: flagSpec{short: "bhjkoOpPtTxXyz"}}, "more": {}, "wc": {}, "file": {spec: flagSpec{short: "mfFeP"}},
	"stat": {spec: flagSpec{short: "ct", long: []string{"format", "printf"}}}, "du": {spec: flagSpec{short: "dBtX", long: []string{"max-depth", "block-size", "threshold", "exclude", "exclude-from", "time-style", "files0-from"}}},
	"ls":  {spec: flagSpec{short: "IwT", long: []string{"ignore", "hide", "width", "tabsize", "format", "sort", "time", "time-style", "block-size", "quoting-style", "indicator-style"}}},
	"dir": {}, "vdir": {}, "diff": {spec: flagSpec{short: "CUxXIFDL", long: []string{"label", "exclude", "exclude-from", "ignore-matching-lines", "show-function-line", "from-file", "to-file", "horizon-lines", "width"}}},
	"cmp": {spec: flagSpec{short: "in"}}, "md5sum": {}, "sha1sum": {}, "sha224sum": {}, "sha256sum": {}, "sha384sum": {}, "sha512sum": {}, "b2sum": {}, "cksum": {}, "sum": {}, "shasum": {spec: flagSpec{short: "a"}},
	"xxd": {spec: flagSpec{short: "clgosn"}}, "od": {spec: flagSpec{short: "AjNSstw"}}, "hexdump": {spec: flagSpec{short: "efns"}}, "strings": {spec: flagSpec{short: "ntTe"}},
	"realpath": {}, "readlink": {}, "uniq": {spec: flagSpec{short: "fsw"}}, "cut": {spec: flagSpec{short: "bcdf", long: []string{"bytes", "characters", "delimiter", "fields", "output-delimiter"}}},
	"paste": {spec: flagSpec{short: "d"}}, "comm": {}, "join": {spec: flagSpec{short: "aejot12"}}, "fold": {spec: flagSpec{short: "w"}}, "fmt": {spec: flagSpec{short: "pw"}},
	"column": {spec: flagSpec{short: "cstoN"}}, "rev": {}, "expand": {spec: flagSpec{short: "t"}}, "unexpand": {spec: flagSpec{short: "t"}},
	"tree": {spec: flagSpec{short: "LPIH", long: []string{"filelimit", "timefmt", "sort", "charset"}}}, "bat": {spec: flagSpec{short: "lHr", long: []string{"language", "highlight-line", "line-range", "theme", "style"}}},
	"zcat": {}, "bzcat": {}, "xzcat": {}, "zless": {}, "zmore": {},
	"grep":  {spec: flagSpec{short: "efmABCdD", long: []string{"regexp", "file", "max-count", "after-context", "before-context", "context", "include", "exclude", "exclude-dir", "binary-files", "devices", "directories", "label", "color", "colour"}}, pattern: 1},
	"egrep": {spec: flagSpec{short: "efmABC"}, pattern: 1}, "fgrep": {spec: flagSpec{short: "efmABC"}, pattern: 1}, "zgrep": {spec: flagSpec{short: "efmABC"}, pattern: 1},
	"rg": {spec: flagSpec{short: "efgtTmABCMjE", long: []string{"regexp", "file", "glob", "iglob", "type", "type-not", "max-count", "after-context", "before-context", "context", "max-columns", "threads", "encoding", "max-depth", "color", "colors", "sort", "sortr", "type-add", "replace"}}, pattern: 1},
	"ag": {spec: flagSpec{short: "ABCGgm"}, pattern: 1}, "ack": {spec: flagSpec{short: "ABCm"}, pattern: 1},
	"jq": {spec: flagSpec{long: []string{"arg", "argjson", "slurpfile", "rawfile", "indent", "from-file"}}, pattern: 1},
	"yq": {pattern: 1}, "basename": {}, "dirname": {},
}

// reader judges a read-only program: reads outside the workspace are Medium, and the
// file arguments inside it may differ in a remembered decision.
func reader(a *analyzer, c *call) {
	r := readerTable[c.name]
	p := parseArgs(c.args, r.spec)
	operands := p.operandWords(c.args)
	skip := r.pattern
	if c.name == "grep" || c.name == "rg" || c.name == "egrep" || c.name == "fgrep" || c.name == "zgrep" {
		if p.has("e", "regexp", "f", "file") {
			skip = 0
		}
		if c.name == "rg" && p.has("files") {
			skip = 0
		}
		if _, ok := p.get("pre"); ok && c.name == "rg" {
			a.add(High, c.text, "makes rg run a program on every file (--pre)")
		}
	}
	if c.name == "jq" && p.has("f", "from-file") {
		skip = 0
	}
	if skip > len(operands) {
		skip = len(operands)
	}
	for _, w := range operands[skip:] {
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
}

// sortProgram is a reader whose -o writes.
func sortProgram(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "kotST", long: []string{"key", "output", "field-separator", "buffer-size", "temporary-directory", "parallel", "files0-from", "random-source", "sort", "batch-size", "compress-program"}})
	if f, ok := p.get("o", "output"); ok {
		a.writes(c.text, f.valueWord(c.args), a.dir, "writes to")
	}
	if _, ok := p.get("compress-program"); ok {
		a.add(High, c.text, "makes sort run a program (--compress-program)")
	}
	for _, w := range p.operandWords(c.args) {
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
}

// find judges find's actions: -delete, -exec and its kind (the command runs nested,
// with {} only known at run time), -fprint and its kind (they write files), and where
// it starts.
func find(a *analyzer, c *call) {
	var starts []word
	i := 0
	for ; i < len(c.args); i++ {
		v := c.args[i].val
		if c.args[i].lit && (strings.HasPrefix(v, "-") && v != "-" || v == "(" || v == "!") {
			if v == "-H" || v == "-L" || v == "-P" {
				continue
			}
			break
		}
		starts = append(starts, c.args[i])
	}
	if len(starts) == 0 {
		starts = []word{literalWord(".")}
	}
	for ; i < len(c.args); i++ {
		w := c.args[i]
		if !w.lit {
			continue
		}
		switch w.val {
		case "-delete":
			for _, s := range starts {
				a.deletes(c.text, s, a.dir, true)
			}
		case "-exec", "-execdir", "-ok", "-okdir":
			end := i + 1
			for end < len(c.args) && !(c.args[end].lit && (c.args[end].val == ";" || c.args[end].val == "+")) {
				end++
			}
			inner := append([]word(nil), c.args[i+1:end]...)
			for j := range inner {
				if strings.Contains(inner[j].val, "{}") {
					inner[j] = unknownWord(inner[j].src)
				}
			}
			a.nestedRun(c.text, inner)
			for _, s := range starts {
				a.reads(c.text, s, a.dir)
			}
			i = end
		case "-fprint", "-fprint0", "-fprintf", "-fls":
			if i+1 < len(c.args) {
				a.writes(c.text, c.args[i+1], a.dir, "writes to")
			}
		}
	}
	for _, s := range starts {
		a.reads(c.text, s, a.dir)
		a.openFile(s)
	}
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

// fd judges fd, whose -x/-X run a command for its results.
func fd(a *analyzer, c *call) {
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
