package safety

import (
	"strings"
	"sync"
)

// nodePackages judges npm, pnpm, yarn and bun: publishing is High, installing Medium
// (packages run install scripts), global installs High, scripts and tests None.
func nodePackages(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "wC", long: []string{"prefix", "workspace", "filter", "registry", "tag", "access", "otp", "cwd", "dir"}, stopAtOperand: true})
	if len(p.operands) == 0 {
		if c.name == "yarn" || c.name == "bun" && len(c.args) == 0 {
			a.add(Medium, c.text, "installs packages ("+c.name+"), which run their install scripts")
			a.optionEffects(c, &nodeQueryOptions)
			return
		}
		a.checkOptions(c, &nodeQueryOptions)
		return
	}
	rest := c.args[p.operands[0]:]
	verb := rest[0].val
	if (c.name == "yarn" || c.name == "pnpm") && verb == "npm" && len(rest) > 1 {
		verb = rest[1].val
	}
	if c.name == "bun" && verb == "pm" && len(rest) > 1 {
		verb = rest[1].val
	}
	global := p.has("g", "global", "location") || hasWord(rest, "-g", "--global", "--location=global")
	switch verb {
	case "publish", "unpublish", "deprecate", "dist-tag", "owner", "access", "team", "token", "adduser", "login", "logout", "star", "unstar":
		a.add(High, c.text, "publishes or changes a package on the registry ("+c.name+" "+verb+")")
	case "install", "i", "add", "ci", "update", "up", "upgrade", "link", "ln", "rebuild", "dedupe", "x", "dlx", "exec", "create", "init", "import":
		switch {
		case global:
			a.add(High, c.text, "installs packages for the whole machine ("+c.name+" "+verb+" -g)")
		case verb == "x" || verb == "dlx" || verb == "exec" || verb == "create":
			a.add(Medium, c.text, "downloads and runs a package ("+c.name+" "+verb+")")
			a.codeFile("the package " + c.name + " " + verb + " runs")
			a.packageExec(c, rest[1:])
		default:
			a.add(Medium, c.text, "installs packages ("+c.name+" "+verb+"), which run their install scripts")
		}
	case "uninstall", "remove", "rm", "un", "r", "unlink", "prune":
		a.add(Medium, c.text, "removes packages ("+c.name+" "+verb+")")
	case "config", "set":
		if len(rest) > 1 && (rest[1].val == "get" || rest[1].val == "list" || rest[1].val == "ls") {
			a.checkOptions(c, &nodeQueryOptions)
			return
		}
		// The user's configuration holds script-shell, node-options…: what every later
		// run of every project starts.
		a.add(High, c.text, "changes the package manager's configuration for every project ("+c.name+" "+verb+")")
	case "cache":
		if len(rest) > 1 && (rest[1].val == "clean" || rest[1].val == "clear") {
			a.add(Medium, c.text, "clears the package cache")
		}
	case "ls", "list", "ll", "la", "why", "explain", "help", "prefix", "root", "bin", "-v", "--version", "-h", "--help", "completion":
		// Queries of what is installed: nothing runs, with the options parley knows.
		a.checkOptions(c, &nodeQueryOptions)
		return
	case "view", "info", "show", "outdated", "search", "audit", "doctor", "ping", "whoami":
		a.add(Medium, c.text, "queries the package registry ("+c.name+" "+verb+")")
	default:
		// run, test, start, build, pack, a script's own name: the scripts of package.json,
		// which the agent can change.
		a.add(Medium, c.text, "runs the scripts of package.json ("+c.name+" "+verb+"), which the agent can change")
		a.codeFile("the scripts of package.json")
	}
	a.optionEffects(c, &nodeQueryOptions)
}

// nodeQueryOptions are the options of npm, pnpm, yarn and bun's queries (ls, why,
// config get…): --logs-dir and the caches are written, a user configuration can name
// the shell scripts run with and where logs go, --browser and --editor are programs.
var nodeQueryOptions = opts{short: "aglpsqdvhrPDy", shortArg: "w",
	long: `json all long parseable global link production dev unicode no-unicode color no-color silent quiet verbose
		dd ddd help version workspaces include-workspace-root package-lock-only recursive prod only-projects
		lockfile-only exclude-peers no-optional installed offline prefer-offline frozen-lockfile`,
	longArg: "depth omit include workspace filter pattern loglevel registry prefix location",
	writes:  "logs-dir cache cache-dir cache-folder store-dir global-dir global-folder modules-folder",
	config:  "userconfig globalconfig use-yarnrc C cwd dir",
	runs:    "browser viewer editor shell script-shell"}

// packageExec judges npm exec/npx -c 'command' (a shell command) and the command it
// runs otherwise.
func (a *analyzer) packageExec(c *call, args []word) {
	p := parseArgs(args, flagSpec{short: "cp", long: []string{"call", "package"}, stopAtOperand: true})
	if f, ok := p.get("c", "call"); ok {
		a.shellCode(c, f.valueWord(args))
		return
	}
	if len(p.operands) > 0 {
		a.mayRun(&call{cmd: c.cmd, name: c.name, args: args[p.operands[0]:], text: c.text})
	}
}

func hasWord(ws []word, values ...string) bool {
	for _, w := range ws {
		for _, v := range values {
			if w.val == v {
				return true
			}
		}
	}
	return false
}

// npx and its kind download a package and run it (npx -c runs a shell command).
func npx(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	a.add(Medium, c.text, "downloads and runs a package ("+c.name+")")
	a.codeFile("the package " + c.name + " runs")
	a.packageExec(c, c.args)
}

// pipOptions are the options of pip's (and uv pip's) queries: --log and --cache-dir
// write, --python runs an interpreter, -r and the certificates are read.
var pipOptions = opts{short: "hvVqelufo", shortArg: "i",
	long: `help debug isolated require-virtualenv verbose version quiet no-input no-cache-dir disable-pip-version-check
		no-color no-python-version-warning editable local user pre not-required exclude-editable include-editable no-index
		files all offline no-cache native-tls system strict tree no-dedupe`,
	longArg: `proxy retries timeout exists-action trusted-host use-feature use-deprecated keyring-provider index-url
		extra-index-url find-links format exclude platform python-version implementation abi color python-preference depth prune package
		invert`,
	writes: "log log-file cache-dir report d dest w wheel-dir src", reads: "r requirement c constraint cert client-cert path config-file directory project",
	runs: "python p",
}

// pip judges pip: installs are Medium (setup scripts run), --user or system-wide
// installs and uploads High; queries (list, show, freeze…) are None with the options
// pipOptions knows, and an option that writes is judged like a redirection whatever
// the verb.
func pip(a *analyzer, c *call) {
	verb := firstOperand(c.args)
	switch verb {
	case "install", "download", "wheel":
		if hasWord(c.args, "--user", "--break-system-packages", "--target", "-t", "--prefix", "--root") {
			a.add(High, c.text, "installs Python packages outside the project ("+c.name+" "+verb+")")
			return
		}
		a.add(Medium, c.text, "installs Python packages ("+c.name+" "+verb+"), which can run setup code")
	case "uninstall":
		a.add(Medium, c.text, "removes Python packages")
	case "config":
		a.add(Medium, c.text, "changes pip's configuration")
	case "list", "show", "freeze", "check", "help", "--version", "-V", "inspect", "debug", "":
		p := a.checkOptions(c, &pipOptions)
		if p.has("o", "outdated", "u", "uptodate") {
			a.add(Medium, c.text, "queries the package index ("+c.name+" "+verb+" --outdated)")
		}
		return
	default:
		a.add(Medium, c.text, "runs "+c.name+" "+verb)
	}
	a.optionEffects(c, &pipOptions)
	if hasWord(c.args, "-e", "--editable") || verb == "install" && hasWord(c.args, ".") {
		a.codeFile("the project's setup code")
	}
}

// uv judges uv: pip installs, tool installs and publishing.
func uv(a *analyzer, c *call) {
	verb := firstOperand(c.args)
	switch verb {
	case "publish":
		a.add(High, c.text, "publishes a package (uv publish)")
	case "pip":
		pip(a, &call{cmd: c.cmd, name: "uv pip", args: c.args[1:], text: c.text})
	case "tool":
		a.add(Medium, c.text, "installs or runs a tool (uv tool)")
	case "add", "remove", "sync", "lock", "venv", "init":
		a.add(Medium, c.text, "changes the project's environment (uv "+verb+")")
		a.optionEffects(c, &uvQueryOptions)
	case "run":
		a.add(Medium, c.text, "runs a command in the project's environment, installing what it needs (uv run)")
		a.runAfterOptions(c, "run", flagSpec{long: []string{"with", "python", "project", "directory", "extra", "group", "package", "env-file", "index", "index-url", "with-requirements"}, short: "p", stopAtOperand: true})
	case "", "version", "help":
		a.checkOptions(c, &uvQueryOptions)
	case "tree":
		// uv tree locks the project first (rewriting uv.lock, downloading what it needs)
		// unless told not to.
		if !hasWord(c.args, "--frozen") {
			a.add(Medium, c.text, "resolves the project, which may rewrite uv.lock and download packages (uv tree without --frozen)")
			a.optionEffects(c, &uvQueryOptions)
			return
		}
		a.checkOptions(c, &uvQueryOptions)
	default:
		a.add(Medium, c.text, "runs uv "+verb)
		a.optionEffects(c, &uvQueryOptions)
	}
}

// uvQueryOptions are the options of uv's queries (uv --version, uv tree --frozen):
// --cache-dir writes, --python names an interpreter it runs.
var uvQueryOptions = opts{short: "qvVhn", shortArg: "d",
	long: `quiet verbose version help frozen locked offline no-cache no-dedupe invert universal all-groups no-dev only-dev
		no-default-groups native-tls no-progress no-config short output-format`,
	longArg: "color depth prune package group no-group only-group python-version python-platform format",
	writes:  "cache-dir", reads: "directory project config-file", runs: "python p"}

// runAfterOptions judges "TOOL VERB [options] COMMAND…" (uv run, poetry run…): the
// words after the verb's options are the command it runs.
func (a *analyzer) runAfterOptions(c *call, verb string, spec flagSpec) {
	for i, w := range c.args {
		if w.lit && w.val == verb {
			rest := c.args[i+1:]
			p := parseArgs(rest, spec)
			if len(p.operands) > 0 {
				a.nestedRun(c.text, rest[p.operands[0]:])
			}
			return
		}
	}
}

// cargo judges cargo: publish/yank/owner are High, install Medium (builds and installs
// a program outside the workspace); building, testing and running run the crate's build
// scripts, procedural macros and tests, code the agent can change (Medium, no
// "always"); only queries are None.
func cargo(a *analyzer, c *call) {
	verb := firstOperand(c.args)
	switch verb {
	case "publish", "yank", "owner", "login", "logout":
		a.add(High, c.text, "publishes or changes a crate on the registry (cargo "+verb+")")
	case "install", "uninstall":
		a.add(Medium, c.text, "installs a program into ~/.cargo/bin (cargo "+verb+")")
	case "add", "remove", "update", "fetch", "generate-lockfile", "new", "init", "vendor":
		a.add(Medium, c.text, "changes the project's dependencies (cargo "+verb+")")
	case "fmt":
		a.add(Medium, c.text, "rewrites the crate's files (cargo fmt)")
	case "", "--version", "-V", "version", "help", "--help", "-h", "--list":
		// cargo help runs man on the page; its options must be known.
		a.checkOptions(c, &cargoQueryOptions)
		return
	case "tree", "metadata", "locate-project", "pkgid", "read-manifest", "verify-project", "search":
		// .cargo/config.toml in the workspace names the rustc cargo runs, even to ask
		// for its version.
		a.add(Medium, c.text, "runs the programs .cargo/config.toml names (cargo "+verb+")")
		a.codeFile("the workspace's .cargo/config.toml")
	default:
		a.add(Medium, c.text, "builds and runs the crate's code (cargo "+verb+": build scripts, macros, tests), which the agent can change")
		a.codeFile("the crate's code")
	}
	p := a.optionEffects(c, &cargoQueryOptions)
	if p.has("config") {
		a.add(High, c.text, "gives cargo configuration on the command line, which can name programs it runs")
	}
}

// cargoQueryOptions are cargo's options known to be harmless without a verb, and
// those of every verb that write (the build directories, the lockfile's --lockfile-path,
// --timings's report goes into the target directory).
var cargoQueryOptions = opts{short: "vqhV", long: "verbose quiet help version list frozen locked offline",
	longArg: "color", writes: "target-dir artifact-dir out-dir lockfile-path", reads: "manifest-path"}

// goBuildFlags are the go command's build flags (go help build), with whether each
// takes a value. -toolexec, -exec and -vettool run a program of the command's choice;
// -ldflags may name an external linker (-extld).
var goBuildFlags = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"a": false, "n": false, "p": true, "race": false, "msan": false, "asan": false, "cover": false, "covermode": true,
		"coverpkg": true, "v": false, "work": false, "x": false, "asmflags": true, "buildmode": true, "buildvcs": true,
		"compiler": true, "gccgoflags": true, "gcflags": true, "installsuffix": true, "ldflags": true, "linkshared": false,
		"mod": true, "modcacherw": false, "modfile": true, "overlay": true, "pgo": true, "pkgdir": true, "tags": true,
		"trimpath": false, "toolexec": true, "o": true, "C": true, "json": false, "e": false, "f": true, "deps": false,
		"find": false, "export": false, "test": false, "compiled": false, "m": false, "u": false, "retracted": false,
		"reuse": true, "exec": true, "vettool": true, "i": false, "fix": false,
		// go test's own flags.
		"run": true, "bench": true, "count": true, "short": false, "timeout": true, "failfast": false, "shuffle": true,
		"fuzz": true, "fuzztime": true, "fuzzminimizetime": true, "list": true, "parallel": true, "cpu": true,
		"benchtime": true, "benchmem": false, "skip": true, "args": false, "coverprofile": true, "cpuprofile": true,
		"memprofile": true, "blockprofile": true, "mutexprofile": true, "trace": true, "outputdir": true, "fullpath": false,
		"vet": true, "memprofilerate": true, "blockprofilerate": true, "mutexprofilefraction": true,
		// go doc's own flags.
		"src": false, "all": false, "cmd": false,
	}
})

// goWrites are the go flags whose value is a file (or directory) it writes: -pkgdir
// installs packages there, -modfile may rewrite the go.mod it names (and the go.sum
// beside it).
var goWrites = sync.OnceValue(func() map[string]bool {
	return map[string]bool{"o": true, "coverprofile": true, "cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true, "trace": true, "outputdir": true, "pkgdir": true, "modfile": true}
})

// goReads are the go flags whose value is a file it reads.
var goReads = sync.OnceValue(func() map[string]bool { return map[string]bool{"overlay": true, "pgo": true} })

// goToolWrites are the flags of the compiler, the assembler and the linker (given
// through -gcflags, -asmflags, -ldflags) whose value is a file they write.
var goToolWrites = map[string]bool{"o": true, "cpuprofile": true, "memprofile": true, "blockprofile": true, "mutexprofile": true,
	"trace": true, "bench": true, "asmhdr": true, "linkobj": true, "tmpdir": true, "capturehostobjs": true, "benchmarkprofile": true,
	"json": true, "traceprofile": true}

// goTool judges the go command: building, vetting, listing and documentation are None
// with the flags it knows; test, run, generate and tool run the project's code
// (Medium, no "always"); get/install/mod/work change dependencies or install programs.
func goTool(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{stopAtOperand: true})
	if len(p.operands) == 0 {
		a.checkOptions(c, &opts{short: "h", long: "help version"})
		return
	}
	verb := c.args[p.operands[0]].val
	rest := c.args[p.operands[0]+1:]
	switch verb {
	case "get":
		a.add(Medium, c.text, "changes the module's dependencies (go get)")
	case "install":
		a.add(Medium, c.text, "installs a program into $GOBIN (go install)")
	case "mod":
		if len(rest) > 0 && rest[0].val != "graph" && rest[0].val != "why" && rest[0].val != "help" {
			a.add(Medium, c.text, "changes or downloads the module's dependencies (go mod "+rest[0].val+")")
		}
	case "work":
		if len(rest) > 0 && rest[0].val != "help" {
			a.add(Medium, c.text, "changes the workspace's go.work (go work "+rest[0].val+")")
		}
	case "clean":
		a.add(Medium, c.text, "deletes build outputs or Go's caches (go clean)")
	case "env":
		if hasWord(rest, "-w", "-u") {
			a.add(High, c.text, "changes Go's settings for every later go command (go env -w), which can make go run a program")
		}
	case "fmt", "fix":
		a.add(Medium, c.text, "rewrites the package's files (go "+verb+")")
	case "test", "run", "generate", "tool":
		a.goFlags(c, rest)
		what := map[string]string{"test": "the package's tests", "run": "the program", "generate": "the //go:generate commands of the code", "tool": "a tool, perhaps one of the module's"}[verb]
		a.add(Medium, c.text, "builds and runs "+what+" (go "+verb+"), code the agent can change")
		a.codeFile(what)
	case "build", "vet", "list", "doc", "version", "help", "bug":
		a.goFlags(c, rest)
		if verb == "bug" {
			a.add(Medium, c.text, "opens a web browser (go bug)")
		}
	default:
		a.add(Medium, c.text, "runs go "+verb)
	}
}

// goFlags judges the flags of a go build, vet, test… command: unknown ones are Medium,
// those that run a program of the command's choice High, written files like
// redirections.
func (a *analyzer) goFlags(c *call, args []word) {
	for i := 0; i < len(args); i++ {
		w := args[i]
		if !w.lit {
			if w.canBeFlag() {
				a.add(Medium, c.text, "gives go flags only known when it runs")
			}
			continue
		}
		if w.val == "--" || w.val == "-args" || w.val == "--args" {
			return
		}
		if !strings.HasPrefix(w.val, "-") || w.val == "-" {
			a.openFile(w)
			continue
		}
		name, value, has := strings.Cut(strings.TrimLeft(w.val, "-"), "=")
		takes, known := goBuildFlags()[name]
		if !known {
			a.add(Medium, c.text, "gives go the flag -"+name+", which parley does not know to be harmless")
			continue
		}
		valueWord := literalWord(value)
		if takes && !has && i+1 < len(args) {
			i++
			valueWord = args[i]
			value = args[i].val
		}
		switch {
		case name == "toolexec" || name == "exec" || name == "vettool":
			a.add(High, c.text, "makes go run a program of its choice (-"+name+")")
		case name == "ldflags" && (strings.Contains(value, "extld") || !valueWord.lit):
			a.add(High, c.text, "makes go link with a program of its choice (-ldflags -extld)")
		case name == "gcflags" || name == "asmflags" || name == "ldflags" || name == "gccgoflags":
			a.goToolFlags(c, name, valueWord)
		case goWrites()[name]:
			a.writes(c.text, valueWord, a.dir, "writes (-"+name+")")
			if name == "modfile" && strings.HasSuffix(valueWord.val, ".mod") {
				sum := valueWord
				sum.val = strings.TrimSuffix(sum.val, ".mod") + ".sum"
				a.writes(c.text, sum, a.dir, "writes (-modfile)")
			}
		case goReads()[name]:
			a.reads(c.text, valueWord, a.dir)
		case name == "mod" && value == "mod":
			// go may update go.mod and go.sum as it builds.
			a.writes(c.text, literalWord("go.mod"), a.dir, "may rewrite (-mod=mod)")
			a.writes(c.text, literalWord("go.sum"), a.dir, "may rewrite (-mod=mod)")
		case name == "C":
			if loc := a.locate(valueWord, a.dir); loc.outside() {
				a.add(Medium, c.text, "runs go in "+loc.describe())
			}
		}
	}
}

// goToolFlags judges the flags go passes to a tool (-gcflags='all=-N -l'): those that
// write a file are judged like redirections; a value only known when it runs could
// be any of them.
func (a *analyzer) goToolFlags(c *call, name string, w word) {
	if !w.lit {
		a.add(High, c.text, "gives go -"+name+" only known when it runs, which could make its tools write anywhere")
		return
	}
	fields := strings.Fields(w.val)
	if len(fields) > 0 {
		if pattern, rest, ok := strings.Cut(fields[0], "="); ok && !strings.HasPrefix(pattern, "-") {
			fields[0] = rest // all=-N: the flags for the packages matching all
		}
	}
	for i := 0; i < len(fields); i++ {
		f := fields[i]
		if !strings.HasPrefix(f, "-") {
			continue
		}
		flagName, value, has := strings.Cut(strings.TrimLeft(f, "-"), "=")
		switch {
		case name == "gccgoflags":
			a.add(Medium, c.text, "passes flags to gccgo (-gccgoflags), which parley does not judge")
			return
		case strings.HasPrefix(flagName, "extld"):
			a.add(High, c.text, "makes go link with a program or flags of its choice (-"+name+" -"+flagName+")")
		case goToolWrites[flagName]:
			if !has && i+1 < len(fields) {
				i++
				value = fields[i]
			}
			if flagName == "json" {
				_, value, _ = strings.Cut(value, ",") // -json=0,file://dir
				value = strings.TrimPrefix(value, "file://")
			}
			if value != "" {
				a.writes(c.text, literalWord(value), a.dir, "writes (-"+name+" -"+flagName+")")
			}
		}
	}
}

// publisher judges programs whose job is to publish: twine upload, gem push...
func publisher(verbs ...string) judge {
	return func(a *analyzer, c *call) {
		verb := firstOperand(c.args)
		for _, v := range verbs {
			if verb == v {
				a.add(High, c.text, "publishes a package ("+c.name+" "+verb+")")
				return
			}
		}
		switch {
		case c.name == "gem" && (verb == "" || verb == "list" || verb == "search" || verb == "query" || verb == "info" || verb == "contents" ||
			verb == "dependency" || verb == "environment" || verb == "env" || verb == "help" || verb == "specification" || verb == "which"):
			a.checkOptions(c, &publisherQueryOptions)
		case c.name == "gem" && (verb == "install" || verb == "update"):
			a.add(Medium, c.text, "installs Ruby gems")
		case c.name == "gem" && verb == "uninstall":
			a.add(Medium, c.text, "removes Ruby gems")
		case c.name == "gem":
			// build runs the gemspec, open an editor, exec a gem, cleanup and pristine
			// change what is installed.
			a.add(Medium, c.text, "runs gem "+verb)
		case c.name == "poetry" && (verb == "add" || verb == "install" || verb == "update" || verb == "remove" || verb == "lock"):
			a.add(Medium, c.text, "changes the project's dependencies (poetry "+verb+")")
		case c.name == "poetry" && verb == "run":
			a.add(Medium, c.text, "runs a command in the project's environment (poetry run)")
			a.runAfterOptions(c, "run", flagSpec{stopAtOperand: true})
		case c.name == "poetry" && (verb == "" || verb == "show" || verb == "check" || verb == "version" || verb == "env" || verb == "config"):
			// poetry version 2.0 bumps the version, poetry env use makes an environment,
			// poetry config KEY VALUE changes the settings.
			p := parseArgs(c.args, flagSpec{short: "C", long: []string{"directory", "project"}})
			operands := p.operandWords(c.args)
			if verb == "version" && len(operands) > 1 || verb == "env" && len(operands) > 1 && operands[1].val != "info" && operands[1].val != "list" ||
				verb == "config" && (len(operands) > 2 || p.has("unset")) {
				a.add(Medium, c.text, "changes the project or poetry's settings (poetry "+verb+")")
				return
			}
			a.checkOptions(c, &publisherQueryOptions)
		case c.name == "flit" && verb == "":
			a.checkOptions(c, &publisherQueryOptions)
		case c.name == "poetry" || c.name == "flit":
			a.add(Medium, c.text, "runs "+c.name+" "+verb)
		case c.name == "twine":
			a.checkOptions(c, &publisherQueryOptions)
		case c.name == "dotnet" && verb == "nuget":
			if hasWord(c.args, "push", "delete") {
				a.add(High, c.text, "publishes or deletes a package (dotnet nuget)")
			}
		case c.name == "mvn" || c.name == "gradle" || c.name == "./gradlew" || c.name == "gradlew" || c.name == "mvnw":
			if hasWord(c.args, "deploy", "publish", "release:perform", "publishToMavenCentral") {
				a.add(High, c.text, "publishes artifacts ("+c.name+")")
			}
		}
	}
}

// publisherQueryOptions are the options of gem's, poetry's and twine's queries.
var publisherQueryOptions = opts{short: "daeqvVhnPtsp", long: `local details versions no-versions all exact prerelease installed
	quiet verbose no-verbose help version tree top-level why no-dev no-ansi ansi no-plugins no-cache no-interaction
	strict short list lock`, longArg: "only with without", reads: "C directory project config-file"}

// envRunner judges pipenv, pdm, rye, conda and their kind: "run" runs a command in the
// project's environment (judged as itself); anything else changes the environment.
func envRunner(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	verb := firstOperand(c.args)
	switch verb {
	case "run":
		a.add(Medium, c.text, "runs a command in the project's environment ("+c.name+" run)")
		a.runAfterOptions(c, "run", flagSpec{short: "np", long: []string{"name", "prefix", "environment", "env"}, stopAtOperand: true})
	case "list", "info", "show", "graph", "--version", "":
		a.checkOptions(c, &envQueryOptions)
	default:
		a.add(Medium, c.text, "changes the project's environment ("+c.name+" "+verb+")")
	}
}

// envQueryOptions are the options of conda's, pdm's, pipenv's, pixi's and rye's
// queries.
var envQueryOptions = opts{short: "aeghjrsqvVcG", shortArg: "n",
	long: `json export explicit md5 revisions full-name canonical no-pip show-channel-urls reverse envs all system base
		unsafe-channels graph freeze csv markdown tree resolve global env packages python where bare json-tree installed-deps
		quiet verbose help version`,
	longArg: "name fields sort include exclude group platform environment sort-by",
	reads:   "p prefix project manifest-path"}
