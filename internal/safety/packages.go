package safety

import (
	"strings"
)

// nodePackages judges npm, pnpm, yarn and bun: publishing is High, installing Medium
// (packages run install scripts), global installs High, scripts and tests None.
func nodePackages(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{short: "wC", long: []string{"prefix", "workspace", "filter", "registry", "tag", "access", "otp", "cwd", "dir"}, stopAtOperand: true})
	if len(p.operands) == 0 {
		if c.name == "yarn" || c.name == "bun" && len(c.args) == 0 {
			a.add(Medium, c.text, "installs packages ("+c.name+"), which run their install scripts")
		}
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
		default:
			a.add(Medium, c.text, "installs packages ("+c.name+" "+verb+"), which run their install scripts")
		}
	case "uninstall", "remove", "rm", "un", "r", "unlink", "prune":
		a.add(Medium, c.text, "removes packages ("+c.name+" "+verb+")")
	case "config", "set":
		if len(rest) > 1 && (rest[1].val == "get" || rest[1].val == "list" || rest[1].val == "ls") {
			return
		}
		a.add(Medium, c.text, "changes the package manager's configuration ("+c.name+" "+verb+")")
	case "cache":
		if len(rest) > 1 && (rest[1].val == "clean" || rest[1].val == "clear") {
			a.add(Medium, c.text, "clears the package cache")
		}
	default:
		// run, test, start, build, ls, view, outdated, audit, why, pack...: the
		// project's own scripts and queries.
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

// npx and its kind download a package and run it.
func npx(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	a.add(Medium, c.text, "downloads and runs a package ("+c.name+")")
}

// pip judges pip: installs are Medium (setup scripts run), --user or system-wide
// installs and uploads High.
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
	case "run":
		a.add(None, c.text, "")
	}
}

// cargo judges cargo: publish/yank/owner are High, install Medium (builds and installs
// a program outside the workspace), build/test None.
func cargo(a *analyzer, c *call) {
	verb := firstOperand(c.args)
	switch verb {
	case "publish", "yank", "owner", "login", "logout":
		a.add(High, c.text, "publishes or changes a crate on the registry (cargo "+verb+")")
	case "install", "uninstall":
		a.add(Medium, c.text, "installs a program into ~/.cargo/bin (cargo "+verb+")")
	case "add", "remove", "update", "fetch", "generate-lockfile", "new", "init", "vendor":
		a.add(Medium, c.text, "changes the project's dependencies (cargo "+verb+")")
	}
}

// goTool judges the go command: builds, tests, vet, run and formatting are the
// project's own work; get/install/mod change dependencies or install programs.
func goTool(a *analyzer, c *call) {
	p := parseArgs(c.args, flagSpec{stopAtOperand: true})
	if len(p.operands) == 0 {
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
		if len(rest) > 0 && (rest[0].val == "tidy" || rest[0].val == "download" || rest[0].val == "edit" || rest[0].val == "vendor" || rest[0].val == "init") {
			a.add(Medium, c.text, "changes or downloads the module's dependencies (go mod "+rest[0].val+")")
		}
	case "clean":
		if hasWord(rest, "-cache", "-modcache", "-testcache", "-fuzzcache") {
			a.add(Medium, c.text, "deletes Go's caches (go clean)")
		}
	case "env":
		if hasWord(rest, "-w", "-u") {
			a.add(Medium, c.text, "changes Go's settings for every project (go env -w)")
		}
	case "test", "build", "vet", "run", "generate", "fmt", "list", "doc", "version", "help", "tool", "work", "bug", "fix":
		if hasExecFlag(rest) {
			a.add(High, c.text, "makes go run a program of its choice (-exec or -toolexec)")
			return
		}
		for _, w := range rest {
			if !strings.HasPrefix(w.val, "-") {
				a.openFile(w)
			}
		}
	default:
		a.add(Medium, c.text, "runs go "+verb)
	}
}

// hasExecFlag reports -exec or -toolexec (any spelling), which run any program.
func hasExecFlag(ws []word) bool {
	for _, w := range ws {
		v := strings.TrimLeft(w.val, "-")
		if strings.HasPrefix(w.val, "-") && (strings.HasPrefix(v, "exec") || strings.HasPrefix(v, "toolexec")) {
			return true
		}
	}
	return false
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
		case c.name == "gem" && (verb == "install" || verb == "update"):
			a.add(Medium, c.text, "installs Ruby gems")
		case c.name == "gem" && verb == "uninstall":
			a.add(Medium, c.text, "removes Ruby gems")
		case c.name == "poetry" && (verb == "add" || verb == "install" || verb == "update" || verb == "remove" || verb == "lock"):
			a.add(Medium, c.text, "changes the project's dependencies (poetry "+verb+")")
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
