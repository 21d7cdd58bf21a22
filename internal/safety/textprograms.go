package safety

import "strings"

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
