package safety

import "strings"

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
