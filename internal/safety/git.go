package safety

import (
	"strings"
	"sync"
)

// gitGlobalValue are git's global options that take a value.
var gitGlobalValue = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"-C": true, "-c": true, "--git-dir": true, "--work-tree": true, "--namespace": true,
		"--exec-path": true, "--config-env": true, "--super-prefix": true, "--list-cmds": true, "--attr-source": true,
	}
})

// gitGlobalFlag are git's global options without a value that only say how it runs.
var gitGlobalFlag = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"--no-pager": true, "-p": true, "--paginate": true, "-P": true, "--bare": true, "--no-replace-objects": true,
		"--literal-pathspecs": true, "--glob-pathspecs": true, "--noglob-pathspecs": true, "--icase-pathspecs": true,
		"--no-optional-locks": true, "--no-lazy-fetch": true, "--no-advice": true,
	}
})

// gitGlobalOther are git's other global options: they print something and run nothing.
var gitGlobalOther = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"--version": true, "-v": true, "--help": true, "-h": true, "--html-path": true, "--man-path": true, "--info-path": true}
})

// gitBuiltins are git's own subcommands: git runs them before any alias of the same
// name. Any other name is an alias or a git-NAME program found on PATH.
var gitBuiltins = sync.OnceValue(func() map[string]bool {
	m := map[string]bool{}
	for _, name := range strings.Fields(`add am annotate apply archive bisect blame branch bugreport bundle cat-file check-attr
		check-ignore check-mailmap check-ref-format checkout checkout-index cherry cherry-pick citool clean clone column commit
		commit-graph commit-tree config count-objects credential credential-cache credential-store describe diagnose diff
		diff-files diff-index diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg
		for-each-ref for-each-repo format-patch fsck gc get-tar-commit-id grep gui hash-object help hook http-backend
		index-pack init instaweb interpret-trailers log ls-files ls-remote ls-tree mailinfo mailsplit maintenance merge
		merge-base merge-file merge-index merge-one-file merge-tree mergetool mktag mktree multi-pack-index mv name-rev notes
		pack-objects pack-redundant pack-refs patch-id prune prune-packed pull push range-diff read-tree rebase reflog refs
		remote repack replace replay request-pull rerere reset restore rev-list rev-parse revert rm send-email send-pack
		shortlog show show-branch show-index show-ref sparse-checkout stash status stripspace submodule switch symbolic-ref
		tag unpack-file unpack-objects update-index update-ref update-server-info var verify-commit verify-pack verify-tag
		version whatchanged worktree write-tree backfill imap-send daemon shell web--browse`) {
		m[name] = true
	}
	return m
})

// gitReadOptions are the options of git's read-only subcommands (log, show, diff,
// status, grep, blame, ls-files, rev-parse…) known to run nothing and write nothing.
// Not listed, so Medium: --ext-diff, --textconv, --filters, git grep's -O
// (--open-files-in-pager, which runs a program), fsck's --lost-found, help's --web.
// --output writes its file (judged like a redirection), -O's order file and
// --ignore-revs-file are read.
var gitReadOptions = opts{
	writes: "output", reads: "ignore-revs-file contents",
	short:    "abcdfghiklmopqrstuvwxzBCDEFGHIKLMPRSTUWZ0123456789",
	shortArg: "nLSGUABefXx",
	long: `oneline graph all branches tags remotes decorate no-decorate source stat numstat shortstat dirstat summary name-only
		name-status raw patch no-patch patch-with-stat patch-with-raw full-index binary abbrev abbrev-commit no-abbrev-commit
		full-history first-parent merges no-merges reverse topo-order date-order author-date-order all-match invert-grep
		regexp-ignore-case basic-regexp extended-regexp fixed-strings perl-regexp follow relative-date parents children
		left-right cherry-pick cherry-mark cherry boundary ancestry-path simplify-by-decoration show-signature color no-color
		color-words word-diff color-moved no-color-moved no-renames find-renames find-copies find-copies-harder relative
		no-relative text ignore-space-change ignore-all-space ignore-space-at-eol ignore-blank-lines ignore-cr-at-eol minimal
		patience histogram function-context exit-code quiet check cached staged merge-base no-prefix default-prefix
		compact-summary notes no-notes show-notes mailmap no-mailmap use-mailmap log-size no-expand-tabs walk-reflogs
		remerge-diff combined-all-paths dense-combined cc no-walk do-walk single-worktree not ignore-missing count full-diff
		show-linear-break no-ext-diff no-textconv ita-visible-in-index ita-invisible-in-index porcelain long short branch
		show-stash ahead-behind no-ahead-behind untracked-files ignored column no-column renames verbose null deleted modified
		others stage unmerged killed exclude-standard error-unmatch full-name recurse-submodules debug eol deduplicate sparse
		directory no-empty-directory ignore-case word-regexp invert-match line-number files-with-matches
		files-without-match only-matching heading break show-function untracked no-index no-exclude-standard and or
		line-porcelain incremental root show-stats show-name show-number show-email show-toplevel
		git-dir abbrev-ref verify is-inside-work-tree is-inside-git-dir show-prefix symbolic-full-name git-common-dir
		absolute-git-dir show-cdup is-bare-repository local-env-vars sq revs-only no-revs flags no-flags symbolic
		show-object-format is-shallow-repository shared-index-path show-superproject-working-tree sq-quote keep-dashdash
		stop-at-non-option stuck-long batch batch-check batch-all-objects buffer follow-symlinks unordered
		allow-unknown-type heads hash exists head always dirty broken exact-match contains no-contains merged
		no-merged points-at is-ancestor octopus independent fork-point numbered email committer object-only
		full-tree tree no-commit-id non-matching unreachable dangling cache no-reflogs full connectivity-only strict
		name-objects progress build-options shell perl python tcl omit-empty guides config stdin irreversible-delete
		anchored graph-lookahead first-parent-only list-cmds show-current sort list`,
	longArg: `decorate-refs decorate-refs-exclude since after until before author committer grep max-count skip max-age min-age
		format pretty date word-diff-regex diff-filter ignore-matching-lines unified diff-algorithm submodule ignore-submodules
		src-prefix dst-prefix line-prefix inter-hunk-context stat-width stat-name-width stat-count stat-graph-width encoding
		expand-tabs diff-merges glob exclude exclude-hidden output-indicator-new output-indicator-old output-indicator-context
		anchored rotate-to skip-to orderfile abbrev exclude-from exclude-per-directory with-tree max-depth threads context
		after-context before-context regexp file ignore-rev color-lines color-by-age short
		path-format git-path resolve-git-dir default sort count points-at merged no-merged contains no-contains match
		candidates group source mode batch batch-check type`,
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

// gitCommandKey reports whether a configuration key's value is a command git runs.
func gitCommandKey(key string) bool {
	key = strings.ToLower(key)
	for _, suffix := range []string{"sshcommand", ".pager", "core.editor", "sequence.editor", ".fsmonitor", "diff.external", ".command",
		".textconv", ".driver", ".clean", ".smudge", ".process", ".helper", "gpg.program", ".program", "difffilter", "receivepack", "uploadpack", ".cmd", ".proxy"} {
		if strings.HasSuffix(key, suffix) || strings.HasPrefix(key, "pager.") {
			return true
		}
	}
	return false
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
	aliases := map[string]string{} // -c alias.NAME=value
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
		if len(name) > 2 && name[1] != '-' && gitGlobalValue()[name[:2]] { // -Cdir, -ckey=v
			name, value, has = name[:2], v[2:], true
		}
		if gitGlobalValue()[name] && !has {
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
		if gitGlobalValue()[name] || gitGlobalFlag()[name] {
			c.cmd.core = append(c.cmd.core, i)
		} else if !gitGlobalOther()[name] {
			a.add(Medium, c.text, "gives git the option "+name+", which parley does not know to be harmless")
		}
		if name == "-c" {
			key, v, _ := strings.Cut(value, "=")
			if strings.HasPrefix(strings.ToLower(key), "alias.") {
				aliases[strings.ToLower(strings.TrimPrefix(key, key[:6]))] = v
			}
		}
		dir = a.gitGlobal(c, name, value, dir)
	}
	if i >= len(c.args) {
		return
	}
	sub := c.args[i]
	if !sub.lit {
		c.cmd.RunTime, c.cmd.anything = true, true
		a.add(High, c.text, "runs a git subcommand only known when it runs ("+sub.src+")")
		return
	}
	saved := a.dir
	a.dir = dir
	defer func() { a.dir = saved }()
	if v, ok := aliases[strings.ToLower(sub.val)]; ok && !gitBuiltins()[sub.val] {
		// git -c alias.p=push p: p is push. Judged as what it expands to, so that rules
		// about git push see it.
		c.cmd.RunTime = true
		if strings.HasPrefix(v, "!") {
			return // a shell alias: judged as code with the -c option
		}
		a.code(c.text, "git "+v+" "+wordsText(c.args[i+1:]))
		return
	}
	if !gitBuiltins()[sub.val] {
		// An alias from the configuration, or a git-NAME program: either may run anything.
		c.cmd.RunTime, c.cmd.anything = true, true
	}
	if loc := a.locate(literalWord("."), dir); dir == "" || loc.place == placeInside {
		// Below the workspace's root, git may find a repository the agent made (a .git
		// file, a directory with HEAD, config and objects/), whose configuration can
		// name programs git runs even to read (core.fsmonitor, core.pager).
		a.add(Medium, c.text, "runs git in "+loc.describe()+", where a repository the agent made could run programs")
		a.codeFile("the configuration of the repository git finds in " + loc.shown)
	}
	gitSubcommand(a, c, sub.val, c.args[i+1:])
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
			if gitCommandKey(key) {
				a.code(c.text, strings.TrimPrefix(v, "!"))
			}
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
		} else if name == "--git-dir" {
			a.add(Medium, c.text, "uses the repository in "+value+", whose configuration (which the agent can write) can make git run programs")
			a.codeFile("the configuration of the repository in " + value)
		}
	}
	return dir
}

// gitReadOnly are subcommands that only read (with their default options).
var gitReadOnly = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"status": true, "diff": true, "log": true, "show": true, "blame": true, "annotate": true, "shortlog": true,
		"describe": true, "rev-parse": true, "rev-list": true, "ls-files": true, "ls-tree": true, "ls-remote": false,
		"cat-file": true, "grep": true, "whatchanged": true, "show-ref": true, "show-branch": true, "name-rev": true,
		"merge-base": true, "for-each-ref": true, "count-objects": true, "cherry": true, "range-diff": true,
		"version": true, "help": true, "check-ignore": true, "check-attr": true, "diff-tree": true, "diff-files": true,
		"diff-index": true, "verify-commit": true, "verify-tag": true, "fsck": true, "var": true, "archive": true,
		"bundle": false, "format-patch": false, "request-pull": true,
	}
})

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
			// git clean deletes in the directory it runs in and below: outside the
			// workspace (git -C .. clean) that may be the workspace itself, untracked.
			if loc := a.locate(literalWord("."), a.dir); a.dir == "" || loc.outside() {
				a.add(Critical, c.text, "deletes every untracked file in "+loc.describe()+", which may hold the workspace itself (git clean)")
				return
			}
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
		case p.has("l", "list") || len(p.operands) == 0 && !p.has("d", "delete", "D", "m", "M", "move", "c", "C", "copy", "u", "set-upstream-to", "unset-upstream", "f", "force", "edit-description", "track", "t", "no-track", "create-reflog", "recurse-submodules"):
			a.gitRead(c, sub, args)
		case p.has("D") || p.has("d", "delete") && p.has("f", "force"):
			a.add(High, c.text, "deletes branches even when not merged (git branch -D)")
		case p.has("d", "delete", "m", "M", "move", "c", "C", "copy", "u", "set-upstream-to", "unset-upstream", "f", "force", "edit-description") || len(p.operands) > 0:
			a.add(Medium, c.text, "changes branches (git branch)")
		}
	case "tag":
		if p.has("l", "list") && !p.has("d", "delete", "f", "force", "a", "s", "m", "F", "e") || len(p.operands) == 0 && len(p.flags) > 0 && !p.has("d", "delete", "f", "force", "a", "s", "m", "F", "e", "u") || len(args) == 0 {
			a.gitRead(c, sub, args)
			return
		}
		if p.has("d", "delete", "f", "force") {
			a.add(Medium, c.text, "deletes or moves tags (git tag)")
		} else if len(p.operands) > 0 || p.has("a", "s", "m") {
			a.add(Medium, c.text, "creates a tag (git tag)")
		}
	case "stash":
		if len(p.operands) > 0 {
			switch args[p.operands[0]].val {
			case "list", "show":
				// They take git log's and git diff's options (--output among them).
				a.gitRead(c, sub, args[p.operands[0]+1:])
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
		verb := ""
		if len(p.operands) > 0 {
			verb = args[p.operands[0]].val
		}
		switch verb {
		case "", "get-url":
			a.gitRead(c, sub, args)
		case "show":
			if !p.has("n") {
				a.add(Medium, c.text, "asks the remote for its branches (git remote show)")
			}
			a.gitRead(c, sub, args)
		default:
			a.add(Medium, c.text, "changes remotes (git remote)")
		}
	case "rebase", "merge", "cherry-pick", "revert", "am", "apply", "commit", "add", "rm", "mv", "pull",
		"fetch", "init", "worktree", "notes", "replace", "update-index", "sparse-checkout", "bisect", "maintenance", "clone", "submodule":
		a.gitChanges(c, sub, p, args)
	case "filter-branch", "filter-repo":
		a.add(High, c.text, "rewrites the repository's history (git "+sub+")")
	case "gc", "prune", "reflog":
		if sub == "reflog" && (len(p.operands) == 0 || args[p.operands[0]].val == "show") {
			a.gitRead(c, sub, args) // git log's options
			return
		}
		if p.has("prune", "expire", "expire-unreachable", "aggressive") || sub == "prune" || sub == "reflog" {
			a.add(High, c.text, "deletes what git keeps to recover lost commits (git "+sub+")")
			return
		}
		a.add(Medium, c.text, "repacks the repository, and may run its pre-auto-gc hook (git gc)")
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
		rc := &call{cmd: c.cmd, name: "git archive", args: args, text: c.text}
		ap := a.checkOptions(rc, &gitArchiveOptions)
		if ap.has("remote") {
			a.add(Medium, c.text, "fetches the archive from a remote (git archive --remote)")
		}
	default:
		if gitReadOnly()[sub] {
			a.gitRead(c, sub, args)
			return
		}
		if sub == "format-patch" {
			a.add(Medium, c.text, "writes patch files (git format-patch)")
			if f, ok := p.get("o", "output-directory"); ok {
				a.writes(c.text, f.valueWord(args), a.dir, "writes patch files into")
			}
			return
		}
		if gitBuiltins()[sub] {
			a.add(Medium, c.text, "changes the repository (git "+sub+")")
			return
		}
		a.add(Medium, c.text, "runs git "+sub+", which may be an alias or an extension")
	}
}

// gitArchiveOptions are git archive's options: -o writes the archive, --add-file
// reads, --exec names the program the remote runs (judged with the remote options).
var gitArchiveOptions = opts{short: "lv0123456789", long: "list verbose worktree-attributes help",
	longArg: "format prefix remote add-virtual-file mtime", writes: "o output", reads: "add-file", runs: "exec"}

// gitRead judges a read-only subcommand: its options must be known (gitReadOptions);
// those that write or run a program are judged as such.
func (a *analyzer) gitRead(c *call, sub string, args []word) {
	rc := &call{cmd: c.cmd, name: "git " + sub, args: args, text: c.text}
	p := a.checkOptions(rc, &gitReadOptions)
	for _, f := range p.flags {
		switch {
		case sub == "grep" && (f.name == "O" || f.long && strings.HasPrefix("open-files-in-pager", f.name) && len(f.name) > 1):
			a.add(High, c.text, "makes git grep open the files it finds with a program of its choice (-O)")
			if f.value != "" {
				a.code(c.text, f.value)
			}
		case f.long && (f.name == "ext-diff" || f.name == "textconv" || f.name == "filters"):
			a.add(Medium, c.text, "lets git run configured diff and filter programs (--"+f.name+")")
		case f.long && f.name == "lost-found":
			a.add(Medium, c.text, "writes the objects it finds into .git/lost-found")
		case sub == "help" && (f.name == "w" || f.long && f.name == "web"):
			a.add(Medium, c.text, "opens a web browser (git help --web)")
		}
	}
	noIndex := p.has("no-index")
	for _, w := range p.operandWords(args) {
		if noIndex {
			a.reads(c.text, w, a.dir)
		}
		a.openFile(w)
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
	if p.has("l", "list", "get", "get-all", "get-regexp", "get-urlmatch", "show-origin", "show-scope") ||
		len(operands) > 0 && (operands[0].val == "get" || operands[0].val == "list") {
		a.checkOptions(&call{cmd: c.cmd, name: "git config", args: args, text: c.text}, &gitConfigReadOptions)
		return
	}
	if len(operands) > 0 && operands[0].val == "set" {
		operands = operands[1:]
	}
	if len(operands) < 2 && !p.has("unset", "unset-all", "e", "edit", "add", "replace-all", "remove-section", "rename-section") {
		a.checkOptions(&call{cmd: c.cmd, name: "git config", args: args, text: c.text}, &gitConfigReadOptions)
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

// gitConfigReadOptions are git config's options for reading: -f and --blob name the
// file read.
var gitConfigReadOptions = opts{short: "lz", long: `list get get-all get-regexp get-urlmatch show-origin show-scope name-only null
	global system local worktree includes no-includes fixed-value all bool int bool-or-int path expiry-date help`,
	longArg: "type default regexp value url", reads: "f file blob"}

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
			a.nestedRun(c.text, args[p.operands[0]+1:])
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
