package safety

import (
	"strings"
)

// reads judges reading the path w: outside the workspace it is Medium (secrets live
// there: ~/.ssh, ~/.aws).
func (a *analyzer) reads(cmd string, w word, dir string) {
	loc := a.locate(w, dir)
	switch loc.place {
	case placeOutside, placeUnknown:
		a.add(Medium, cmd, "reads "+loc.describe())
	case placeDevice:
		a.add(Medium, cmd, "reads the device "+loc.shown)
	}
}

// writes judges writing the path w (creating or replacing it): Medium inside the
// workspace, High for a sensitive file or outside it, Critical for a device.
func (a *analyzer) writes(cmd string, w word, dir, verb string) {
	a.writesAt(cmd, w, dir, verb, Medium)
}

// writesAt is writes with the tier of a plain write inside the workspace.
func (a *analyzer) writesAt(cmd string, w word, dir, verb string, inside Tier) {
	loc := a.locate(w, dir)
	if harmlessDevices[loc.path] || strings.HasPrefix(loc.path, "/dev/fd/") {
		return
	}
	switch loc.place {
	case placeDevice:
		a.add(Critical, cmd, verb+" "+loc.shown+", a device: this can destroy a disk")
	case placeOutside:
		if t, why := systemPath(loc.path); t > High {
			a.add(t, cmd, verb+" "+loc.shown+" ("+why+")")
			return
		}
		a.add(High, cmd, verb+" "+loc.describe())
	case placeUnknown:
		a.add(High, cmd, verb+" "+loc.describe())
	case placeTemp:
		a.add(Medium, cmd, verb+" "+loc.shown+" (a temporary directory)")
	case placeRoot:
		a.add(max(inside, Medium), cmd, verb+" "+loc.describe())
	case placeInside:
		if rule, ok := a.ctx.Files.Match(loc.rel); ok && rule.Action == Ask {
			a.add(High, cmd, verb+" "+loc.shown+", a sensitive file")
			return
		}
		if inside > None {
			a.add(inside, cmd, verb+" "+loc.shown)
		}
	}
}

// systemPath rates the paths whose change harms the machine itself.
func systemPath(p string) (Tier, string) {
	switch {
	case p == "/proc/sysrq-trigger":
		return Critical, "it can crash or restart the machine"
	case strings.HasPrefix(p, "/boot/") || p == "/boot":
		return Critical, "the machine's boot files"
	case p == "/etc/passwd" || p == "/etc/shadow" || p == "/etc/sudoers" || strings.HasPrefix(p, "/etc/sudoers.d"):
		return Critical, "who may log in and as whom"
	}
	return High, ""
}

// deletes judges deleting w. A recursive delete of anything not strictly inside the
// workspace (/, ~, the workspace itself, a parent, outside, a path only known when it
// runs) is Critical.
func (a *analyzer) deletes(cmd string, w word, dir string, recursive bool) {
	loc := a.locate(w, dir)
	if recursive {
		switch {
		case loc.place == placeInside && loc.whole:
			a.add(High, cmd, "deletes everything in "+loc.shown)
		case loc.place == placeInside:
			a.deleteInside(cmd, loc, "deletes "+loc.shown+" and everything in it", High)
		case loc.place == placeTemp:
			a.add(High, cmd, "deletes "+loc.shown+" and everything in it (a temporary directory)")
		default:
			a.add(Critical, cmd, "deletes "+loc.describe()+" and everything in it")
		}
		return
	}
	switch loc.place {
	case placeInside:
		a.deleteInside(cmd, loc, "deletes "+loc.shown, Medium)
	case placeTemp:
		a.add(Medium, cmd, "deletes "+loc.shown+" (a temporary directory)")
	case placeRoot:
		a.add(Medium, cmd, "deletes "+loc.describe())
	case placeDevice:
		a.add(Critical, cmd, "deletes the device "+loc.shown)
	default:
		a.add(High, cmd, "deletes "+loc.describe())
	}
}

func (a *analyzer) deleteInside(cmd string, loc location, reason string, tier Tier) {
	if rule, ok := a.ctx.Files.Match(loc.rel); ok && rule.Action == Ask {
		a.add(High, cmd, reason+", a sensitive file")
		return
	}
	a.add(tier, cmd, reason)
}

// vitalDirs hold the system: moving or deleting them breaks the machine.
var vitalDirs = map[string]bool{
	"/": true, "/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true, "/lib64": true,
	"/opt": true, "/proc": true, "/root": true, "/sbin": true, "/srv": true, "/sys": true, "/usr": true, "/var": true,
	"/Users": true, "/System": true, "/Library": true, "/Applications": true,
}

// vital reports whether p is a system directory, the home directory, or a directory
// that holds the workspace or the home directory.
func (a *analyzer) vital(p string) bool {
	if p == "" || vitalDirs[p] {
		return true
	}
	holds := func(dir string) bool { return dir != "" && relativeTo(p, dir) != "" }
	if holds(a.ctx.Home) {
		return true
	}
	for _, r := range a.ctx.Workspace {
		if holds(r) {
			return true
		}
	}
	return false
}

// open marks w as a file argument a remembered decision may leave open (see Shape):
// a literal path strictly inside the workspace, in the line itself.
func (a *analyzer) openFile(w word) {
	if w.node == nil || !w.lit || a.nested || a.depth > 0 {
		return
	}
	if a.locate(w, a.dir).place == placeInside {
		a.open[w.node] = true
	}
}

// rm judges rm: -r/-R/--recursive (in any spelling, split or clustered, abbreviated
// long options too), --no-preserve-root, and each operand's place.
func rm(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{})
	if p.has("no-preserve-root") {
		a.add(Critical, c.text, "turns off rm's protection of / (--no-preserve-root)")
	}
	operands := p.operandWords(c.args)
	// An argument only known at run time may be -r, and then delete the others.
	recursive := p.has("r", "R", "recursive") || p.unknown && len(operands) > 1
	if c.extraInput {
		operands = append(operands, unknownWord("(its input)"))
	}
	for _, w := range operands {
		a.deletes(c.text, w, a.dir, recursive)
	}
}

func rmdir(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{})
	for _, w := range p.operandWords(c.args) {
		a.deletes(c.text, w, a.dir, false)
	}
}

func shred(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "nsx", long: []string{"iterations", "size", "random-source"}})
	for _, w := range p.operandWords(c.args) {
		loc := a.locate(w, a.dir)
		if loc.place == placeDevice || loc.outside() {
			a.add(Critical, c.text, "overwrites "+loc.describe()+" beyond recovery")
			continue
		}
		a.add(High, c.text, "overwrites "+loc.shown+" beyond recovery")
	}
}

// copyMove judges cp, mv, ln, install: the last operand (or -t DIR) is written; mv
// also deletes its sources.
func copyMove(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "tSmogb", long: []string{"target-directory", "suffix", "mode", "owner", "group", "backup", "reply", "sparse", "reflink", "context"}})
	operands := p.operandWords(c.args)
	if c.extraInput {
		operands = append(operands, unknownWord("(its input)"))
	}
	verb := map[string]string{"mv": "moves files to", "cp": "copies files to", "ln": "makes a link at", "install": "installs files to"}[c.name]
	var target word
	if f, ok := p.get("t", "target-directory"); ok {
		target = f.valueWord(c.args)
	} else if len(operands) > 0 {
		target, operands = operands[len(operands)-1], operands[:len(operands)-1]
	} else {
		return
	}
	a.writes(c.text, target, a.dir, verb)
	if c.name == "mv" {
		for _, w := range operands {
			loc := a.locate(w, a.dir)
			switch {
			case loc.place == placeRoot || loc.place == placeUnknown || a.vital(loc.path):
				a.add(Critical, c.text, "moves away "+loc.describe())
			case loc.outside():
				a.add(High, c.text, "moves away "+loc.describe())
			}
		}
	}
	if c.name == "cp" && p.has("r", "R", "a", "recursive", "archive") {
		for _, w := range operands {
			if loc := a.locate(w, a.dir); loc.place == placeRoot || loc.outside() {
				a.reads(c.text, w, a.dir)
			}
		}
	}
}

// touchMkdir judges programs that create files or directories: nothing to ask inside
// the workspace, unless the file is sensitive.
func touchMkdir(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "mdrtZ", long: []string{"mode", "date", "reference", "time", "context"}})
	for _, w := range p.operandWords(c.args) {
		a.writesAt(c.text, w, a.dir, "creates", None)
	}
}

// chmod judges permission changes: world-writable modes, recursion, and where.
func chmod(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{long: []string{"reference"}})
	operands := p.operandWords(c.args)
	if len(operands) == 0 {
		return
	}
	mode := operands[0]
	if _, ok := p.get("reference"); !ok {
		operands = operands[1:]
	}
	recursive := p.has("R", "recursive")
	open := !mode.lit || worldWritable(mode.val)
	for _, w := range operands {
		loc := a.locate(w, a.dir)
		switch {
		case recursive && (loc.place == placeRoot || loc.outside()) && loc.place != placeTemp:
			a.add(Critical, c.text, "changes the permissions of "+loc.describe()+" and everything in it")
		case open:
			a.add(High, c.text, "lets everyone write "+loc.shown+" (mode "+mode.val+")")
		case loc.outside():
			a.add(High, c.text, "changes the permissions of "+loc.describe())
		case recursive:
			a.add(Medium, c.text, "changes the permissions of "+loc.shown+" and everything in it")
		default:
			a.add(Medium, c.text, "changes the permissions of "+loc.shown)
		}
	}
}

// worldWritable reports whether a chmod mode gives others write access (777, 666,
// o+w, a+rwx, +w...).
func worldWritable(mode string) bool {
	if isOctal(mode) {
		last := mode[len(mode)-1]
		return last == '2' || last == '3' || last == '6' || last == '7'
	}
	for _, clause := range strings.Split(mode, ",") {
		i := strings.IndexAny(clause, "+=")
		if i < 0 {
			continue
		}
		who, perms := clause[:i], clause[i+1:]
		if (who == "" || strings.ContainsAny(who, "oa")) && strings.Contains(perms, "w") {
			return true
		}
	}
	return false
}

func isOctal(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '7' {
			return false
		}
	}
	return true
}

// chown judges ownership changes, which mostly need root and outlive the session.
func chown(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{long: []string{"reference", "from"}})
	operands := p.operandWords(c.args)
	if len(operands) == 0 {
		return
	}
	if _, ok := p.get("reference"); !ok {
		operands = operands[1:]
	}
	recursive := p.has("R", "recursive")
	for _, w := range operands {
		loc := a.locate(w, a.dir)
		switch {
		case recursive && (loc.place == placeRoot || loc.outside()):
			a.add(Critical, c.text, "changes the owner of "+loc.describe()+" and everything in it")
		case recursive || loc.outside():
			a.add(High, c.text, "changes the owner of "+loc.describe())
		default:
			a.add(Medium, c.text, "changes the owner of "+loc.shown)
		}
	}
}

// dd judges dd's of= (a device is Critical) and if=.
func dd(a *analyzer, c *call) {
	for _, w := range c.args {
		key, value, ok := strings.Cut(w.val, "=")
		if !ok {
			continue
		}
		v := w
		v.val, v.prefix, v.src = value, strings.TrimPrefix(w.prefix, key+"="), value
		switch key {
		case "of":
			a.writes(c.text, v, a.dir, "writes to")
		case "if":
			a.reads(c.text, v, a.dir)
		}
	}
}

// tee writes each operand.
func tee(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{long: []string{"output-error"}})
	for _, w := range p.operandWords(c.args) {
		a.writes(c.text, w, a.dir, "writes to")
	}
}

func truncate(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "sro", long: []string{"size", "reference", "io-blocks"}})
	for _, w := range p.operandWords(c.args) {
		a.writes(c.text, w, a.dir, "truncates")
	}
}

// sed judges sed: -i edits files in place; a script can also write files (w) and run
// commands (e) with GNU sed.
func sed(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "efl", long: []string{"expression", "file", "line-length"}})
	operands := p.operandWords(c.args)
	var scripts []word
	for _, f := range p.flags {
		if f.name == "e" || matchesFlag(f, "expression") {
			scripts = append(scripts, f.valueWord(c.args))
		}
	}
	if len(scripts) == 0 && !p.has("f", "file") && len(operands) > 0 {
		scripts, operands = operands[:1], operands[1:]
	}
	for _, s := range scripts {
		if !s.lit || sedRunsOrWrites(s.val) {
			a.add(High, c.text, "runs a sed script that can run commands or write files")
		}
	}
	if p.has("i", "in-place") || hasClusterLetter(c.args, 'i') {
		for _, w := range operands {
			a.writes(c.text, w, a.dir, "edits")
		}
		return
	}
	for _, w := range operands {
		a.reads(c.text, w, a.dir)
		a.openFile(w)
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

// sedRunsOrWrites looks for the GNU sed commands e, w and W and the s///e and s///w
// flags. It errs on the side of yes.
func sedRunsOrWrites(script string) bool {
	for _, line := range strings.FieldsFunc(script, func(r rune) bool { return r == '\n' || r == ';' }) {
		line = strings.TrimSpace(line)
		line = strings.TrimLeft(line, "0123456789,$/!^ ")
		if line == "" {
			continue
		}
		switch line[0] {
		case 'e', 'w', 'W':
			return true
		case 's':
			if len(line) > 1 {
				d := line[1]
				parts := strings.Split(line, string(d))
				if len(parts) >= 4 && strings.ContainsAny(parts[len(parts)-1], "ew") {
					return true
				}
			}
		}
	}
	return false
}

// awk judges awk programs that run commands (system, pipes) or write files.
func awk(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "fvFE", long: []string{"file", "assign", "field-separator", "exec", "include", "load"}, stopAtOperand: true})
	operands := p.operandWords(c.args)
	if !p.has("f", "file", "E", "exec") && len(operands) > 0 {
		prog := operands[0]
		operands = operands[1:]
		if !prog.lit || strings.Contains(prog.val, "system") || strings.Contains(prog.val, "|") || strings.Contains(prog.val, ">") {
			a.add(High, c.text, "runs an awk program that can run commands or write files")
		}
	} else {
		a.add(Medium, c.text, "runs an awk program from a file")
	}
	for _, w := range operands {
		if strings.Contains(w.val, "=") {
			continue
		}
		a.reads(c.text, w, a.dir)
	}
}

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
		if _, ok := p.get("to-command", "use-compress-program", "I", "checkpoint-action", "info-script", "new-volume-script", "F", "rsh-command"); ok {
			a.add(High, c.text, "makes tar run a program")
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
