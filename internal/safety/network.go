package safety

import (
	"strings"
)

// curl judges curl: uploads (files above all) are High, output files are writes, and
// fetching is Medium (what it fetches may be piped into a shell: see binary).
func curl(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	p := parseArgs(c.args, flagSpec{
		short: "dFTXoHAeEKuUxwbcCmrYyzQ",
		long:  []string{"data", "data-binary", "data-raw", "data-urlencode", "data-ascii", "form", "form-string", "upload-file", "json", "request", "output", "header", "user-agent", "referer", "config", "user", "proxy", "write-out", "cookie", "cookie-jar", "max-time", "connect-timeout", "output-dir", "retry", "range", "cert", "key", "cacert", "resolve", "connect-to", "url", "dump-header", "trace", "trace-ascii", "stderr", "netrc-file", "unix-socket", "interface", "local-port", "quote", "limit-rate", "etag-save", "etag-compare", "hsts", "alt-svc", "libcurl", "cookie"},
	})
	for _, f := range p.flags {
		switch {
		case f.name == "d" || f.name == "F" || matchesFlag(f, "data") || matchesFlag(f, "data-binary") || matchesFlag(f, "data-raw") ||
			matchesFlag(f, "data-urlencode") || matchesFlag(f, "form") || matchesFlag(f, "json"):
			if strings.Contains(f.value, "@") {
				at := f.value[strings.IndexByte(f.value, '@')+1:]
				a.add(High, c.text, "uploads the file "+at+" to a server")
			} else {
				a.add(Medium, c.text, "sends data to a server")
			}
		case f.name == "T" || matchesFlag(f, "upload-file"):
			a.add(High, c.text, "uploads the file "+f.value+" to a server")
		case f.name == "o" || matchesFlag(f, "output") || f.name == "c" || matchesFlag(f, "cookie-jar") ||
			matchesFlag(f, "dump-header") || matchesFlag(f, "trace") || matchesFlag(f, "trace-ascii") || matchesFlag(f, "stderr") ||
			matchesFlag(f, "output-dir") || matchesFlag(f, "etag-save") || matchesFlag(f, "hsts") || matchesFlag(f, "alt-svc") || matchesFlag(f, "libcurl"):
			// The caches --hsts and --alt-svc name are rewritten when curl ends.
			if f.value != "-" {
				a.writes(c.text, f.valueWord(c.args), a.dir, "downloads to")
			}
		case f.name == "w" || matchesFlag(f, "write-out"):
			// %output{file} switches the rest of the output to file (>> with %output{>>file}).
			for rest := f.value; strings.Contains(rest, "%output{"); {
				_, rest, _ = strings.Cut(rest, "%output{")
				file, after, _ := strings.Cut(rest, "}")
				a.writes(c.text, literalWord(strings.TrimPrefix(file, ">>")), a.dir, "writes (--write-out %output) to")
				rest = after
			}
		case f.name == "K" || matchesFlag(f, "config"):
			a.add(High, c.text, "reads curl options from a file, which can upload or write anything")
		}
	}
	a.add(Medium, c.text, "fetches from the network ("+c.name+")")
}

func wget(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	p := parseArgs(c.args, flagSpec{
		short: "OoaPieUTtwQDlABXIRl",
		long:  []string{"output-document", "output-file", "append-output", "warc-file", "rejected-log", "use-askpass", "save-headers", "directory-prefix", "input-file", "post-data", "post-file", "body-data", "body-file", "method", "header", "user-agent", "execute", "config", "user", "password", "tries", "timeout", "wait", "quota", "level", "accept", "reject", "domains", "include-directories", "exclude-directories", "referer", "load-cookies", "save-cookies"},
	})
	for _, f := range p.flags {
		switch {
		case matchesFlag(f, "post-file") || matchesFlag(f, "body-file"):
			a.add(High, c.text, "uploads the file "+f.value+" to a server")
		case matchesFlag(f, "post-data") || matchesFlag(f, "body-data"):
			a.add(Medium, c.text, "sends data to a server")
		case f.name == "O" || matchesFlag(f, "output-document"):
			if f.value != "-" {
				a.writes(c.text, f.valueWord(c.args), a.dir, "downloads to")
			}
		case f.name == "P" || matchesFlag(f, "directory-prefix"):
			a.writes(c.text, f.valueWord(c.args), a.dir, "downloads into")
		case f.name == "o" || f.name == "a" || matchesFlag(f, "output-file") || matchesFlag(f, "append-output") || matchesFlag(f, "save-cookies") ||
			matchesFlag(f, "warc-file") || matchesFlag(f, "rejected-log"):
			a.writes(c.text, f.valueWord(c.args), a.dir, "writes its log or records to")
		case matchesFlag(f, "use-askpass"):
			a.add(High, c.text, "makes wget run a program of its choice (--use-askpass)")
			a.commandValue(c, f.valueWord(c.args))
		case f.name == "e" || matchesFlag(f, "execute") || matchesFlag(f, "config"):
			a.add(High, c.text, "gives wget commands that can write anywhere")
		}
	}
	a.add(Medium, c.text, "fetches from the network ("+c.name+")")
}

// netcat judges nc and its kind: -e/-c connect a program to the network.
func netcat(a *analyzer, c *call) {
	for _, w := range c.args {
		v := w.val
		if v == "-e" || v == "-c" || strings.HasPrefix(v, "--exec") || strings.HasPrefix(v, "--sh-exec") || strings.HasPrefix(v, "--lua-exec") ||
			c.name == "socat" && (strings.Contains(v, "EXEC:") || strings.Contains(v, "SYSTEM:") || strings.Contains(strings.ToLower(v), "exec:") || strings.Contains(strings.ToLower(v), "system:")) {
			a.add(High, c.text, "connects a program to the network ("+c.name+")")
			return
		}
	}
	a.add(Medium, c.text, "opens a network connection ("+c.name+")")
}

// ssh judges ssh: a remote command is High (it runs on another machine), as is a
// ProxyCommand or LocalCommand (they run here).
func ssh(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "BbcDEeFIiJLlmOoPpQRSWw", stopAtOperand: true})
	for _, f := range p.flags {
		if f.name == "o" {
			opt := strings.ToLower(f.value)
			if strings.HasPrefix(opt, "proxycommand") || strings.HasPrefix(opt, "localcommand") || strings.HasPrefix(opt, "permitlocalcommand") || strings.HasPrefix(opt, "knownhostscommand") {
				a.add(High, c.text, "makes ssh run a program here (-o "+f.value+")")
				if _, cmd, ok := strings.Cut(f.value, "="); ok {
					a.code(c.text, cmd)
				} else if _, cmd, ok := strings.Cut(f.value, " "); ok {
					a.code(c.text, cmd)
				}
			}
		}
	}
	if len(p.operands) > 1 {
		a.add(High, c.text, "runs a command on another machine (ssh)")
		// The machine may be this one (ssh localhost): the command is judged as if it
		// ran here, in the home directory, where ssh starts it.
		rest := p.operandWords(c.args)[1:]
		saved := a.dir
		a.dir = a.ctx.Home
		a.shellCode(c, word{src: wordsText(rest), val: joinValues(rest), lit: allLiteral(rest)})
		a.dir = saved
		return
	}
	a.add(Medium, c.text, "connects to another machine (ssh)")
}

// remoteCopy judges scp, sftp and rsync: sending files away is High; receiving writes
// the local target; rsync --delete deletes at the target.
func remoteCopy(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "cFiJlPoSeBfTD", long: []string{"rsh", "exclude", "include", "exclude-from", "include-from", "files-from", "rsync-path", "filter", "chmod", "chown", "password-file", "port", "log-file", "temp-dir", "partial-dir", "backup-dir", "compare-dest", "copy-dest", "link-dest", "bwlimit", "timeout", "out-format", "info", "debug"}})
	if f, ok := p.get("e", "rsh", "rsync-path", "S"); ok {
		a.add(High, c.text, "makes "+c.name+" run a program of its choice")
		a.shellCode(c, f.valueWord(c.args))
	}
	operands := p.operandWords(c.args)
	if len(operands) == 0 {
		a.add(Medium, c.text, "copies files over the network ("+c.name+")")
		return
	}
	target := operands[len(operands)-1]
	sources := operands[:len(operands)-1]
	remote := func(w word) bool {
		host, _, ok := strings.Cut(w.val, ":")
		return ok && !strings.Contains(host, "/") || strings.HasPrefix(w.val, "rsync://")
	}
	if remote(target) {
		a.add(High, c.text, "copies files to another machine ("+c.name+")")
	} else {
		a.writes(c.text, target, a.dir, "copies files to")
	}
	for _, s := range sources {
		if !remote(s) {
			a.reads(c.text, s, a.dir)
		}
	}
	if p.has("delete", "delete-before", "delete-during", "delete-after", "delete-delay", "delete-excluded", "del") {
		// Everything in the target that the source lacks goes: a recursive delete of
		// the target, as far as parley can tell.
		if !remote(target) {
			a.deletes(c.text, target, a.dir, true)
		}
		a.add(High, c.text, "deletes files that are not in the source ("+c.name+" --delete)")
	}
	if p.has("remove-source-files") {
		for _, s := range sources {
			if !remote(s) {
				a.deletes(c.text, s, a.dir, false)
			}
		}
	}
}
