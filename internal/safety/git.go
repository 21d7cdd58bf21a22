package safety

import (
	"strings"
)

// gitGlobalValue are git's global options that take a value.
var gitGlobalValue = map[string]bool{
	"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
	"--exec-path": true, "--config-env": true, "--super-prefix": true, "--list-cmds": true, "--attr-source": true,
}

// gitGlobalFlag are git's global options without a value that only say how it runs.
var gitGlobalFlag = map[string]bool{
	"--no-pager": true, "-p": true, "--paginate": true, "-P": true, "--bare": true, "--no-replace-objects": true,
	"--literal-pathspecs": true, "--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true,
	"--no-optional-locks": true, "--no-lazy-fetch": true, "--no-advice": true,
}

// gitHarmlessConfig are configuration keys (and key prefixes ending in a dot) that
// cannot make git run a program or reach another place.
var gitHarmlessConfig = []string{
	"color.", "core.quotepath", "core.autocrlf", "core.eol", "core.safecrlf", "core.abbrev",
	"core.whitespace", "core.ignorecase", "core.filemode", "core.longpaths", "core.precomposeunicode",
	"user.name", "user.email", "advice.", "log.", "format.pretty", "format.date", "init.defaultbranch",
	"pull.rebase", "pull.ff", "merge.conflictstyle", "diff.renames", "diff.algorithm", "diff.nonamespaces",
	"diff.mnemonicprefix", "diff.context", "diff.indentheuristic", "status.", "column.", "commit.gpgsign",
	"tag.gpgsign", "i18n.", "gc.auto", "maintenance.auto", "fetch.prune", "rebase.autostash", "rerere.enabled",
	"push.default", "branch.autosetupmerge", "protocol.version", "feature.manyfiles", "index.version",
	"safe.bareRepository", "versionsort.", "blame.", "grep.linenumber", "interactive.singlekey",
}

func gitConfigHarmless(key string) bool {
	key = strings.ToLower(key)
	for _, k := range gitHarmlessConfig {
		k = strings.ToLower(k)
		if key == k || strings.HasSuffix(k, ".") && strings.HasPrefix(key, k) {
			return true
		}
	}
	return false
}

// git judges git: its global options first (-c with a key that runs programs is High
// whatever the subcommand: core.fsmonitor, core.sshCommand, core.pager...), then the
// subcommand.
func git(a *analyzer, c *call) {
	dir := a.dir
	i := 0
	for ; i < len(c.args); i++ {
		w := c.args[i]
		if !w.lit {
			if w.canBeFlag() {
				a.add(High, c.text, "gives git options only known when it runs ("+w.src+")")
			}
			break
		}
		v := w.val
		if !strings.HasPrefix(v, "-") {
			break
		}
		name, value, has := strings.Cut(v, "=")
		if len(name) > 2 && name[1] != '-' && gitGlobalValue[name[:2]] { // -Cdir, -ckey=v
			name, value, has = name[:2], v[2:], true
		}
		if gitGlobalValue[name] && !has {
			if i+1 >= len(c.args) {
				break
			}
			c.cmd.core = append(c.cmd.core, i)
			i++
			value = c.args[i].val
			if !c.args[i].lit {
				a.add(High, c.text, "gives git "+name+" a value only known when it runs")
			}
		}
		if gitGlobalValue[name] || gitGlobalFlag[name] {
			c.cmd.core = append(c.cmd.core, i)
		}
		dir = a.gitGlobal(c, name, value, dir)
	}
	if i >= len(c.args) {
		return
	}
	sub := c.args[i]
	if !sub.lit {
		a.add(High, c.text, "runs a git subcommand only known when it runs ("+sub.src+")")
		return
	}
	saved := a.dir
	a.dir = dir
	gitSubcommand(a, c, sub.val, c.args[i+1:])
	a.dir = saved
}

// gitGlobal judges one global option and returns the directory git now works in.
func (a *analyzer) gitGlobal(c *call, name, value, dir string) string {
	switch name {
	case "-C":
		loc := a.locate(literalWord(value), dir)
		if loc.outside() {
			a.add(Medium, c.text, "runs git in "+loc.describe())
		}
		return loc.path
	case "-c":
		key, v, _ := strings.Cut(value, "=")
		if strings.HasPrefix(strings.ToLower(key), "alias.") && strings.HasPrefix(v, "!") {
			a.code(c.text, v[1:])
		}
		if !gitConfigHarmless(key) {
			a.add(High, c.text, "sets git's "+key+" for this command, which can make git run a program")
		}
	case "--config-env":
		key, _, _ := strings.Cut(value, "=")
		if !gitConfigHarmless(key) {
			a.add(High, c.text, "sets git's "+key+" from the environment, which can make git run a program")
		}
	case "--exec-path":
		if value != "" {
			a.add(High, c.text, "makes git run its programs from "+value)
		}
	case "--git-dir", "--work-tree":
		if loc := a.locate(literalWord(value), dir); loc.outside() {
			a.add(High, c.text, "points git at "+loc.describe())
		}
	}
	return dir
}

// gitReadOnly are subcommands that only read (with their default options).
var gitReadOnly = map[string]bool{
	"status": true, "diff": true, "log": true, "show": true, "blame": true, "annotate": true, "shortlog": true,
	"describe": true, "rev-parse": true, "rev-list": true, "ls-files": true, "ls-tree": true, "ls-remote": false,
	"cat-file": true, "grep": true, "whatchanged": true, "show-ref": true, "show-branch": true, "name-rev": true,
	"merge-base": true, "for-each-ref": true, "count-objects": true, "cherry": true, "range-diff": true,
	"version": true, "help": true, "check-ignore": true, "check-attr": true, "diff-tree": true, "diff-files": true,
	"diff-index": true, "verify-commit": true, "verify-tag": true, "fsck": true, "var": true, "archive": true,
	"bundle": false, "format-patch": true, "request-pull": true,
}

// gitSubcommand judges what the subcommand does.
func gitSubcommand(a *analyzer, c *call, sub string, args []word) {
	p := parseArgs(args, flagSpec{short: "mFoCcSbBtXsO", long: []string{"message", "file", "onto", "strategy", "strategy-option", "branch", "upstream", "exec", "format", "pretty", "author", "date", "template", "reuse-message", "reedit-message", "fixup", "squash", "since", "until", "grep", "max-count", "output", "receive-pack", "upload-pack", "exec", "repo", "push-option", "origin", "depth", "reference", "separate-git-dir", "config", "cleanup", "trailer", "pathspec-from-file", "ext-diff", "textconv", "word-diff", "word-diff-regex"}})
	if _, ok := p.get("ext-diff", "textconv"); ok && sub != "push" {
		a.add(Medium, c.text, "lets git run configured diff programs")
	}
	_, runs := p.get("upload-pack", "receive-pack", "exec")
	if sub == "clone" && p.has("u") || runs && (sub == "clone" || sub == "fetch" || sub == "pull" || sub == "push" || sub == "ls-remote" || sub == "archive") {
		a.add(High, c.text, "makes git run a program of its choice (--upload-pack/--receive-pack/--exec)")
	}
	switch sub {
	case "push":
		gitPush(a, c, p, args)
	case "reset":
		if p.has("hard", "merge", "keep") {
			a.add(High, c.text, "discards uncommitted changes (git reset --hard)")
		} else {
			a.add(Medium, c.text, "moves the branch or unstages changes (git reset)")
		}
	case "clean":
		switch {
		case p.has("n", "dry-run"):
		case p.has("f", "force"):
			if p.has("x", "X") {
				a.add(High, c.text, "deletes untracked and ignored files (git clean)")
			} else {
				a.add(High, c.text, "deletes untracked files (git clean)")
			}
		default:
			a.add(Medium, c.text, "deletes untracked files when the configuration lets it (git clean)")
		}
	case "checkout", "restore", "switch":
		if p.has("f", "force", "discard-changes") || sub == "restore" || gitDiscardsPaths(p, args) {
			a.add(Medium, c.text, "discards uncommitted changes to files (git "+sub+")")
		} else {
			a.add(Medium, c.text, "switches branches, changing files in the working tree (git "+sub+")")
		}
	case "branch":
		switch {
		case p.has("D") || p.has("d", "delete") && p.has("f", "force"):
			a.add(High, c.text, "deletes branches even when not merged (git branch -D)")
		case p.has("d", "delete", "m", "M", "move", "c", "C", "copy", "u", "set-upstream-to", "unset-upstream", "f", "force", "edit-description") || len(p.operands) > 0:
			a.add(Medium, c.text, "changes branches (git branch)")
		}
	case "tag":
		if p.has("d", "delete", "f", "force") {
			a.add(Medium, c.text, "deletes or moves tags (git tag)")
		} else if len(p.operands) > 0 || p.has("a", "s", "m") {
			a.add(Medium, c.text, "creates a tag (git tag)")
		}
	case "stash":
		if len(p.operands) > 0 {
			switch args[p.operands[0]].val {
			case "list", "show":
				return
			case "drop", "clear":
				a.add(High, c.text, "deletes stashed changes (git stash "+args[p.operands[0]].val+")")
				return
			}
		}
		a.add(Medium, c.text, "stashes or applies changes (git stash)")
	case "config":
		gitConfig(a, c, p, args)
	case "remote":
		if len(p.operands) > 0 && args[p.operands[0]].val != "show" && args[p.operands[0]].val != "get-url" {
			a.add(Medium, c.text, "changes remotes (git remote)")
		}
	case "rebase", "merge", "cherry-pick", "revert", "am", "apply", "commit", "add", "rm", "mv", "pull",
		"fetch", "init", "worktree", "notes", "replace", "update-index", "sparse-checkout", "bisect", "maintenance", "clone", "submodule":
		a.gitChanges(c, sub, p, args)
	case "filter-branch", "filter-repo":
		a.add(High, c.text, "rewrites the repository's history (git "+sub+")")
	case "gc", "prune", "reflog":
		if sub == "reflog" && (len(p.operands) == 0 || args[p.operands[0]].val == "show") {
			return
		}
		if p.has("prune", "expire", "expire-unreachable", "aggressive") || sub == "prune" || sub == "reflog" {
			a.add(High, c.text, "deletes what git keeps to recover lost commits (git "+sub+")")
		}
	case "update-ref":
		a.add(Medium, c.text, "changes a reference directly (git update-ref)")
	case "send-email", "imap-send":
		a.add(High, c.text, "sends email (git "+sub+")")
	case "credential", "credential-store", "credential-cache":
		a.add(High, c.text, "reads or stores credentials (git "+sub+")")
	case "daemon", "instaweb", "http-backend", "shell":
		a.add(Medium, c.text, "serves the repository (git "+sub+")")
	case "hook":
		a.add(High, c.text, "runs repository hooks (git hook)")
	case "difftool", "mergetool", "web--browse", "gui", "citool", "gitk":
		a.add(Medium, c.text, "starts an external program (git "+sub+")")
	case "archive":
		if f, ok := p.get("o", "output"); ok {
			a.writes(c.text, f.valueWord(args), a.dir, "writes the archive")
		}
	default:
		if gitReadOnly[sub] {
			for _, w := range p.operandWords(args) {
				a.openFile(w)
			}
			if f, ok := p.get("output"); ok {
				a.writes(c.text, f.valueWord(args), a.dir, "writes to")
			}
			return
		}
		a.add(Medium, c.text, "runs git "+sub+", which may be an alias or an extension")
	}
}

// gitDiscardsPaths reports whether checkout was given paths (after --, or "." ).
func gitDiscardsPaths(p parsedArgs, args []word) bool {
	for _, i := range p.operands {
		if args[i].val == "." || args[i].val == ":/" {
			return true
		}
	}
	for _, w := range args {
		if w.val == "--" {
			return true
		}
	}
	return false
}

// gitPush: a force (--force, -f, --force-with-lease, --force-if-includes, +refspec),
// --mirror, --delete and :ref rewrite or delete what others share.
func gitPush(a *analyzer, c *call, p parsedArgs, args []word) {
	force := p.has("f", "force", "force-with-lease", "force-if-includes")
	for _, w := range p.operandWords(args)[min(1, len(p.operands)):] {
		if strings.HasPrefix(w.val, "+") {
			force = true
		}
		if strings.HasPrefix(w.val, ":") {
			a.add(High, c.text, "deletes the remote branch "+strings.TrimPrefix(w.val, ":")+" (git push :ref)")
		}
	}
	switch {
	case force:
		a.add(High, c.text, "force-pushes, which can overwrite commits on the remote (git push --force)")
	case p.has("mirror"):
		a.add(High, c.text, "mirrors every reference to the remote, deleting the ones missing here (git push --mirror)")
	case p.has("d", "delete", "prune"):
		a.add(High, c.text, "deletes branches on the remote (git push --delete)")
	case p.unknown:
		a.add(High, c.text, "pushes with options only known when it runs")
	default:
		a.add(Medium, c.text, "publishes commits to a remote (git push)")
	}
}

// gitConfig: reading is harmless; setting a key that runs programs is High, and
// --global or --system changes every repository.
func gitConfig(a *analyzer, c *call, p parsedArgs, args []word) {
	operands := p.operandWords(args)
	if p.has("l", "list", "get", "get-all", "get-regexp", "get-urlmatch", "show-origin", "show-scope") {
		return
	}
	if len(operands) > 0 && (operands[0].val == "get" || operands[0].val == "list") {
		return
	}
	if len(operands) > 0 && operands[0].val == "set" {
		operands = operands[1:]
	}
	if len(operands) < 2 && !p.has("unset", "unset-all", "e", "edit", "add", "replace-all", "remove-section", "rename-section") {
		return
	}
	key := ""
	if len(operands) > 0 {
		key = operands[0].val
	}
	if p.has("global", "system") {
		a.add(High, c.text, "changes git's configuration for every repository ("+key+")")
		return
	}
	if key == "" || !gitConfigHarmless(key) {
		a.add(High, c.text, "changes git's configuration ("+key+"), which can make git run a program")
		return
	}
	a.add(Medium, c.text, "changes the repository's git configuration ("+key+")")
}

// gitChanges judges the subcommands that change the repository or the working tree.
func (a *analyzer) gitChanges(c *call, sub string, p parsedArgs, args []word) {
	switch sub {
	case "add", "rm", "mv", "commit":
		if sub == "rm" && p.has("r") && p.has("f", "force") {
			a.add(Medium, c.text, "deletes files and removes them from the index (git rm -rf)")
			return
		}
		if sub == "commit" && p.has("no-verify", "n") {
			a.add(Medium, c.text, "commits without running the repository's checks (git commit --no-verify)")
			return
		}
		a.add(Medium, c.text, "changes the index or the history (git "+sub+")")
	case "clone":
		operands := p.operandWords(args)
		if len(operands) > 1 {
			a.writes(c.text, operands[1], a.dir, "clones into")
		}
		a.add(Medium, c.text, "downloads a repository (git clone)")
	case "fetch", "pull":
		a.add(Medium, c.text, "downloads from a remote (git "+sub+")")
	case "submodule":
		if len(p.operands) > 0 && args[p.operands[0]].val == "foreach" {
			rest := p.operandWords(args)[1:]
			if len(rest) > 0 {
				a.shellCode(c, word{src: wordsText(rest), val: joinValues(rest), lit: allLiteral(rest)})
			}
			a.add(High, c.text, "runs a command in every submodule (git submodule foreach)")
			return
		}
		a.add(Medium, c.text, "changes submodules (git submodule)")
	case "rebase":
		if f, ok := p.get("exec", "x"); ok {
			a.shellCode(c, f.valueWord(args))
		}
		a.add(Medium, c.text, "rewrites commits (git rebase)")
	case "bisect":
		if len(p.operands) > 0 && args[p.operands[0]].val == "run" {
			a.add(High, c.text, "runs a command on many commits (git bisect run)")
			return
		}
		a.add(Medium, c.text, "changes the checked-out commit (git bisect)")
	default:
		a.add(Medium, c.text, "changes the repository (git "+sub+")")
	}
}

func allLiteral(ws []word) bool {
	for _, w := range ws {
		if !w.lit {
			return false
		}
	}
	return true
}
