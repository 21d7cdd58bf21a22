package safety

import (
	"strings"
	"sync"
)

// reads judges reading the path w: outside the workspace it is Medium (secrets live
// there: ~/.ssh, ~/.aws).
func (a *analyzer) reads(cmd string, w word, dir string) {
	loc := a.locate(w, dir)
	if networkDevice(loc.path) {
		a.add(Medium, cmd, "reads from the network ("+loc.shown+")")
		return
	}
	if harmlessDevices()[loc.path] {
		return
	}
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
	if networkDevice(loc.path) {
		a.add(Medium, cmd, "sends data over the network ("+loc.shown+")")
		return
	}
	if harmlessDevices()[loc.path] || strings.HasPrefix(loc.path, "/dev/fd/") {
		return
	}
	if a.protected(cmd, loc, verb+" "+loc.shown) {
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

// protected rates a change inside one of parley's protected directories Critical (or the
// recursive delete of one of their parents: that is Critical already as a delete outside
// the workspace or of the workspace itself).
func (a *analyzer) protected(cmd string, loc location, what string) bool {
	dir := a.ctx.protects(loc.path)
	if dir == "" {
		return false
	}
	a.add(Critical, cmd, what+" in "+dir+", where parley keeps its own settings and decisions")
	return true
}

// networkDevice reports whether p is one of Bash's /dev/tcp and /dev/udp names, which
// open a connection rather than a file.
func networkDevice(p string) bool {
	return strings.HasPrefix(p, "/dev/tcp/") || strings.HasPrefix(p, "/dev/udp/")
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
	if a.protected(cmd, loc, "deletes "+loc.shown) {
		return
	}
	if recursive {
		switch {
		case loc.place != placeInside && loc.place != placeUnknown && a.vital(loc.path):
			a.add(Critical, cmd, "deletes "+loc.describe()+" and everything in it")
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
var vitalDirs = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"/": true, "/bin": true, "/boot": true, "/dev": true, "/etc": true, "/home": true, "/lib": true, "/lib64": true,
		"/opt": true, "/proc": true, "/root": true, "/sbin": true, "/srv": true, "/sys": true, "/usr": true, "/var": true,
		"/Users": true, "/System": true, "/Library": true, "/Applications": true,
	}
})

// vital reports whether p is a system directory, the home directory, or a directory
// that holds the workspace or the home directory.
func (a *analyzer) vital(p string) bool {
	if p == "" || vitalDirs()[p] {
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
	if c.name != "mv" {
		for _, w := range operands {
			a.reads(c.text, w, a.dir) // copying a secret in is reading it
		}
	}
}

// touchMkdir judges programs that create files or directories: nothing to ask inside
// the workspace, unless the file is sensitive.
func touchMkdir(a *analyzer, c *call) {
	o := createOptions()[c.name]
	p := a.checkOptions(c, &o)
	for _, w := range p.operandWords(c.args) {
		a.writesAt(c.text, w, a.dir, "creates", None)
	}
}

// createOptions are the options of touch, mkdir and mkfifo known to be harmless
// (touch -r reads the file whose times it copies).
var createOptions = sync.OnceValue(func() map[string]opts {
	return map[string]opts{
		"touch":  {globSafe: true, short: "acfhm", shortArg: "dt", long: "no-create no-dereference help version", longArg: "date time", reads: "r reference"},
		"mkdir":  {globSafe: true, short: "pvZ", shortArg: "m", long: "parents verbose help version", longArg: "mode context"},
		"mkfifo": {globSafe: true, short: "Z", shortArg: "m", long: "help version", longArg: "mode context"},
	}
})

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
