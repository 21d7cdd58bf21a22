package safety

import "strings"

// sedOptions are GNU sed's options (-i edits in place: judged as writes).
var sedOptions = opts{short: "nrsEuzbi", shortArg: "efl",
	long:    "quiet silent regexp-extended separate unbuffered null-data posix sandbox debug follow-symlinks binary help version in-place",
	longArg: "expression file line-length"}

// sed judges sed: its script is parsed (sedEffects) and judged by what it does besides
// editing text: e and s///e run commands, w writes a file, r reads one. A script from a
// file is code the agent can change; one only known when it runs could do anything
// but under --sandbox. -i edits the files in place.
func sed(a *analyzer, c *call) {
	p := a.checkOptions(c, &sedOptions)
	operands := p.operandWords(c.args)
	sandbox := p.has("sandbox")
	var scripts []word
	for _, f := range p.flags {
		switch {
		case f.name == "e" || f.long && f.name == "expression":
			scripts = append(scripts, f.valueWord(c.args))
		case f.name == "f" || f.long && f.name == "file":
			w := f.valueWord(c.args)
			if w.lit && (w.val == "-" || w.val == "/dev/stdin") {
				a.add(High, c.text, "runs a sed script from its input")
				continue
			}
			a.reads(c.text, w, a.dir)
			if !sandbox {
				a.add(Medium, c.text, "runs the sed script in "+w.src+", which the agent can change (and which can run commands with e)")
				a.codeFile(w.src)
			}
		}
	}
	if len(scripts) == 0 && !p.has("f", "file") && len(operands) > 0 {
		scripts, operands = operands[:1], operands[1:]
	}
	for _, w := range scripts {
		a.sedScript(c, w, sandbox)
	}
	inPlace := p.has("i", "in-place") || hasClusterLetter(c.args, 'i')
	if c.extraInput {
		operands = append(operands, unknownWord("(its input)"))
	}
	for _, w := range operands {
		if inPlace {
			a.writes(c.text, w, a.dir, "edits")
			continue
		}
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
}

// sedScript judges one script given on the command line.
func (a *analyzer) sedScript(c *call, w word, sandbox bool) {
	if !w.lit {
		if sandbox {
			return
		}
		c.cmd.RunTime = true
		a.add(Critical, c.text, "runs a sed script only known when it runs ("+w.src+"), which could run commands (e); --sandbox would rule that out")
		return
	}
	effects, ok := sedEffects(w.val)
	if !ok {
		a.add(High, c.text, "runs a sed script parley cannot parse")
		return
	}
	for _, e := range effects {
		switch e.kind {
		case "run":
			if e.arg == "" {
				a.add(Critical, c.text, "runs the text it edits as commands (sed's e), which parley cannot see")
				continue
			}
			a.add(High, c.text, "runs a command from its sed script (e)")
			a.code(c.text, e.arg)
		case "write":
			a.writes(c.text, literalWord(e.arg), a.dir, "writes to")
		case "read":
			a.reads(c.text, literalWord(e.arg), a.dir)
		}
	}
}

// hasClusterLetter reports whether a short option cluster (-ni) holds letter.
func hasClusterLetter(args []word, letter byte) bool {
	for _, w := range args {
		if w.lit && len(w.val) > 1 && w.val[0] == '-' && w.val[1] != '-' && strings.IndexByte(w.val[1:], letter) >= 0 {
			return true
		}
	}
	return false
}

// awkOptions are the options of awk, gawk and mawk known to be harmless (-f and -E read
// the program from a file; gawk's --load, --include, --profile, --pretty-print and
// --dump-variables are not listed: they load code or write files).
var awkOptions = opts{short: "bcCnNOPrsStVhge", shortArg: "FvfEW",
	long:    "characters-as-bytes traditional posix re-interval sandbox lint optimize no-optimize non-decimal-data use-lc-numeric help version copyright gen-pot",
	longArg: "field-separator assign file exec source"}

// awk judges awk: the program (given or from a file) is scanned for what it does
// besides printing: system() and pipes run commands, print > file writes, getline <
// file reads (awkEffects).
func awk(a *analyzer, c *call) {
	p := a.checkOptions(c, &awkOptions)
	operands := p.operandWords(c.args)
	sandbox := p.has("S", "sandbox")
	for _, f := range p.flags {
		// gawk's --profile=FILE, --pretty-print=FILE, --dump-variables=FILE (their
		// value is optional: only attached with =).
		for _, name := range []string{"profile", "pretty-print", "dump-variables"} {
			if f.long && f.hasValue && f.valueArg < 0 && strings.HasPrefix(name, f.name) {
				a.writes(c.text, f.valueWord(c.args), a.dir, "writes (--"+name+") to")
			}
		}
	}
	fromFile := false
	for _, f := range p.flags {
		switch {
		case f.name == "f" || f.name == "E" || f.long && (f.name == "file" || f.name == "exec"):
			w := f.valueWord(c.args)
			a.reads(c.text, w, a.dir)
			fromFile = true
			if !sandbox {
				a.add(Medium, c.text, "runs the awk program in "+w.src+", which the agent can change")
				a.codeFile(w.src)
			}
		case f.name == "e" || f.long && f.name == "source":
			a.awkProgram(c, f.valueWord(c.args), sandbox)
			fromFile = true
		case f.name == "W" && strings.HasPrefix(f.value, "e") && len(operands) > 0:
			// mawk -W exec FILE: the program is in FILE.
			a.reads(c.text, operands[0], a.dir)
			a.add(Medium, c.text, "runs the awk program in "+operands[0].src+", which the agent can change")
			a.codeFile(operands[0].src)
			operands, fromFile = operands[1:], true
		}
	}
	if !fromFile && len(operands) > 0 {
		a.awkProgram(c, operands[0], sandbox)
		operands = operands[1:]
	}
	for _, w := range operands {
		if w.lit && strings.Contains(w.val, "=") {
			continue // var=value
		}
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
}

// awkProgram judges an awk program given on the command line.
func (a *analyzer) awkProgram(c *call, w word, sandbox bool) {
	if !w.lit {
		if sandbox {
			return
		}
		c.cmd.RunTime = true
		a.add(Critical, c.text, "runs an awk program only known when it runs ("+w.src+"), which could run commands (system)")
		return
	}
	if sandbox {
		return
	}
	for _, e := range awkEffects(w.val) {
		switch {
		case e.kind == "run" && e.arg == "":
			a.add(Critical, c.text, "runs a command built when the awk program runs, which parley cannot see")
		case e.kind == "run":
			a.add(High, c.text, "runs a command from its awk program")
			a.code(c.text, e.arg)
		case e.kind == "write" && e.arg == "":
			a.add(High, c.text, "writes files named when the awk program runs")
		case e.kind == "write":
			a.writes(c.text, literalWord(e.arg), a.dir, "writes to")
		case e.kind == "read" && e.arg == "":
			a.add(Medium, c.text, "reads files named when the awk program runs")
		case e.kind == "read":
			a.reads(c.text, literalWord(e.arg), a.dir)
		case e.kind == "code":
			a.add(High, c.text, "loads awk code or a library ("+e.arg+")")
		}
	}
}

// tarListOptions are tar's options that keep listing an archive harmless.
var tarListOptions = opts{short: "tvzjJaOwkp", shortArg: "fCTXbHgKLMNV", long: "list verbose gzip gunzip bzip2 xz zstd lzma auto-compress to-stdout wildcards no-wildcards numeric-owner full-time utc help version",
	longArg: "file directory files-from exclude-from exclude transform owner group mode format blocking-factor"}

// archive judges tar, unzip and the like: extracting writes files (where -C says).
func archive(a *analyzer, c *call) {
	switch c.name {
	case "tar", "bsdtar", "gtar":
		p := parseArgs(c.args, flagSpec{short: "fCTXbHgKLMNV", long: []string{"file", "directory", "files-from", "exclude-from", "exclude", "transform", "use-compress-program", "to-command", "owner", "group", "mode"}})
		first := ""
		if len(c.args) > 0 && c.args[0].lit && !strings.HasPrefix(c.args[0].val, "-") {
			first = c.args[0].val // old style: tar xzf file
		}
		extract := p.has("x", "extract", "get") || strings.ContainsAny(first, "x")
		create := p.has("c", "create", "r", "append", "u", "update") || strings.ContainsAny(first, "cru")
		for _, f := range p.flags {
			if f.name == "I" || f.name == "F" || f.long && (f.name == "to-command" || f.name == "use-compress-program" || strings.HasPrefix(f.name, "checkpoint-action") ||
				f.name == "info-script" || f.name == "new-volume-script" || f.name == "rsh-command") {
				a.add(High, c.text, "makes tar run a program")
				value := f.valueWord(c.args)
				value.val = strings.TrimPrefix(value.val, "exec=")
				a.shellCode(c, value)
			}
		}
		if !extract && !create {
			// Listing (tar -tf) reads: its options must be known.
			a.checkOptions(c, &tarListOptions)
		}
		if f, ok := p.get("f", "file"); ok && !hasWord(c.args, "--force-local") {
			// HOST:FILE is an archive on another machine, reached through rsh.
			if host, _, remote := strings.Cut(f.value, ":"); remote && !strings.Contains(host, "/") {
				a.add(Medium, c.text, "reaches another machine for the archive ("+f.value+"), through rsh")
			}
		}
		dir := literalWord(".")
		if f, ok := p.get("C", "directory"); ok {
			dir = f.valueWord(c.args)
		}
		switch {
		case extract:
			a.writes(c.text, dir, a.dir, "extracts files into")
		case create:
			if f, ok := p.get("f", "file"); ok {
				a.writes(c.text, f.valueWord(c.args), a.dir, "writes the archive")
			}
		}
	case "unzip":
		p := parseArgs(c.args, flagSpec{short: "dxP"})
		if p.has("l", "t", "v", "Z") {
			return
		}
		dir := literalWord(".")
		if f, ok := p.get("d"); ok {
			dir = f.valueWord(c.args)
		}
		a.writes(c.text, dir, a.dir, "extracts files into")
	default: // zip, gzip, gunzip, bzip2, xz, 7z: they write next to their inputs
		a.add(Medium, c.text, "creates or replaces compressed files")
	}
}
