package safety

import (
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/lazy"
)

// plainProgram judges a program of plainTable: its options must all be known, its file
// operands are reads (outside the workspace: Medium), and an output operand is a write.
func plainProgram(a *analyzer, c *call) {
	pl := plainTable()[c.name]
	if c.name == "echo" {
		return // echo prints what it is given, options it does not know too
	}
	if c.name == "jq" {
		c = a.jqArguments(c)
	}
	p := a.checkOptions(c, &pl.opts)
	for _, name := range []string{"f", "file", "exclude-from", "files0-from", "from-file", "to-file", "magic-file", "files-from", "ignore-file", "rawfile"} {
		if len(name) == 1 && c.name != "grep" && c.name != "egrep" && c.name != "fgrep" && c.name != "zgrep" && c.name != "rg" && c.name != "jq" {
			continue // -f is a file only for these
		}
		for _, f := range p.flags {
			if matchesFlag(f, name) {
				a.reads(c.text, f.valueWord(c.args), a.dir)
			}
		}
	}
	if pl.data {
		return
	}
	operands := p.operandWords(c.args)
	if c.name == "less" || c.name == "more" {
		for _, w := range operands {
			if strings.HasPrefix(w.val, "+") {
				a.add(Medium, c.text, "gives "+c.name+" commands to run ("+w.val+"), which can start a shell")
				if i := strings.Index(w.val, "!"); i >= 0 {
					a.code(c.text, w.val[i+1:])
				}
			}
		}
	}
	skip := pl.pattern
	switch c.name {
	case "grep", "egrep", "fgrep", "zgrep", "rg", "ag":
		if p.has("e", "regexp", "f", "file") || c.name == "rg" && p.has("files", "type-list") {
			skip = 0
		}
	case "jq":
		if p.has("f", "from-file") {
			skip = 0
		}
	}
	skip = min(skip, len(operands))
	for i, w := range operands[skip:] {
		if pl.output > 0 && skip+i == pl.output-1 {
			a.writes(c.text, w, a.dir, "writes to")
			continue
		}
		a.reads(c.text, w, a.dir)
		a.openFile(w)
	}
	if c.extraInput {
		a.reads(c.text, unknownWord("(its input)"), a.dir)
	}
}

// jqArguments takes out jq's options with two values (--arg NAME VALUE, --rawfile NAME
// FILE…), judging the files read, and returns the call without them.
func (a *analyzer) jqArguments(c *call) *call {
	out := *c
	out.args = nil
	for i := 0; i < len(c.args); i++ {
		w := c.args[i]
		if w.lit && (w.val == "--arg" || w.val == "--argjson" || w.val == "--rawfile" || w.val == "--slurpfile") && i+2 < len(c.args) {
			if w.val == "--rawfile" || w.val == "--slurpfile" {
				a.reads(c.text, c.args[i+2], a.dir)
			}
			i += 2
			continue
		}
		out.args = append(out.args, w)
	}
	return &out
}

// mktemp creates a file or directory: in the temporary directory unless told where.
func mktemp(a *analyzer, c *call) {
	o := opts{short: "dqu", shortArg: "pt", long: "directory dry-run quiet help version", longArg: "suffix tmpdir"}
	p := a.checkOptions(c, &o)
	if w, ok := flagWord(p, c.args, "p", "tmpdir"); ok {
		a.writesAt(c.text, w, a.dir, "creates a file in", None)
	}
}

// projectCode are programs whose job is to run the project's own code: its builds,
// tests, task files and their plugins. The agent can change that code with an
// ordinary edit, so they are Medium, and an "always" about them cannot bind what runs.
var projectCode = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"ninja": "the commands of build.ninja", "meson": "the project's meson.build",
		"ctest": "the project's tests (ctest)", "bazel": "the project's BUILD files", "bazelisk": "the project's BUILD files",
		"pytest": "the project's tests (pytest)", "py.test": "the project's tests (pytest)", "tox": "the project's tox.ini",
		"nox": "the project's noxfile.py", "jest": "the project's tests (jest)", "vitest": "the project's tests (vitest)",
		"mocha": "the project's tests (mocha)", "rake": "the project's Rakefile", "mix": "the project's mix.exs",
		"stack": "the project's Haskell build", "cabal": "the project's Haskell build", "dune": "the project's dune files",
		"sbt": "the project's build.sbt", "lein": "the project's project.clj", "mypy": "mypy with the project's plugins",
		"golangci-lint": "golangci-lint with the project's configuration", "cargo-clippy": "the crate's build scripts",
		"pre-commit": "the project's pre-commit hooks", "webpack": "the project's webpack configuration",
		"vite": "the project's vite configuration", "rollup": "the project's rollup configuration",
		"esbuild": "esbuild (it writes what it builds)", "turbo": "the project's tasks (turbo)", "nx": "the project's tasks (nx)",
		"ant": "the project's build.xml", "gradle": "the project's Gradle build", "gradlew": "the project's Gradle build",
		"mvn": "the project's Maven build", "mvnw": "the project's Maven build", "just": "the project's justfile",
		"task": "the project's Taskfile", "invoke": "the project's tasks.py", "fab": "the project's fabfile",
		"phpunit": "the project's tests (phpunit)", "rspec": "the project's tests (rspec)", "bundle": "the project's Gemfile",
		"playwright": "the project's tests (playwright)", "cypress": "the project's tests (cypress)", "karma": "the project's tests (karma)",
		"prettier": "prettier with the project's configuration (which may be JavaScript)", "tsx": "a TypeScript program", "ts-node": "a TypeScript program", "eslint": "ESLint with the project's configuration",
		"pyright": "pyright with the project's configuration", "staticcheck": "staticcheck", "dotnet": "the project's .NET build",
		"scons": "the project's SConstruct", "waf": "the project's wscript", "xcodebuild": "the project's Xcode build",
		"hatch": "the project's hatch environment",
	}
})

// runsProjectCode judges a program of projectCode.
func runsProjectCode(what string) judge {
	return func(a *analyzer, c *call) {
		if versionQuery(c.args) {
			return
		}
		switch c.name {
		case "gradle", "gradlew", "mvn", "mvnw", "dotnet", "hatch":
			publisher(publishVerbs()[c.name]...)(a, c)
		case "bundle":
			if firstOperand(c.args) == "exec" {
				a.add(Medium, c.text, "runs "+what+"'s programs (bundle exec)")
				a.unwrapAfter(c, "exec")
				return
			}
		}
		a.add(Medium, c.text, "runs "+what+", which the agent can change")
		a.codeFile(what)
		if o, ok := projectWrites()[c.name]; ok {
			a.optionEffects(c, &o)
		}
		if c.name == "pytest" || c.name == "py.test" {
			// pytest empties --basetemp before it starts.
			p := parseArgs(c.args, flagSpec{long: []string{"basetemp"}})
			if w, ok := flagWord(p, c.args, "basetemp"); ok {
				a.deletes(c.text, w, a.dir, true)
			}
		}
	}
}

// projectWrites are the options of the programs of projectCode that write a file
// (reports, caches, outputs): judged like redirections.
var projectWrites = sync.OnceValue(func() map[string]opts {
	return map[string]opts{
		"pytest":   {writes: "junitxml junit-xml basetemp log-file report-log resultlog html result-log"},
		"jest":     {writes: "outputFile coverageDirectory cacheDirectory"},
		"vitest":   {writes: "outputFile"},
		"mypy":     {writes: "cache-dir junit-xml html-report txt-report xml-report linecount-report linecoverage-report lineprecision-report any-exprs-report cobertura-xml-report xslt-html-report xslt-txt-report"},
		"eslint":   {writes: "o output-file cache-location"},
		"prettier": {writes: "cache-location"},
		"esbuild":  {writes: "outfile outdir metafile"},
		"webpack":  {writes: "o output-path"},
	}
})

var publishVerbs = sync.OnceValue(func() map[string][]string {
	return map[string][]string{"hatch": {"publish"}, "gradle": {"publish"}, "gradlew": {"publish"}}
})

// unwrapAfter judges the words after the operand verb ("exec" in bundle exec CMD) as
// the command they run.
func (a *analyzer) unwrapAfter(c *call, verb string) {
	for i, w := range c.args {
		if w.lit && w.val == verb {
			a.nestedRun(c.text, c.args[i+1:])
			return
		}
	}
}

// compilers write their output and may be told to run other programs.
var compilers = []string{"gcc", "g++", "cc", "c++", "clang", "clang++", "rustc", "javac", "kotlinc", "swiftc", "zig", "ghc", "tsc", "gfortran", "tcc"}

// compilerRuns are compiler options that make it run or load a program of the
// command's choice.
var compilerRuns = lazy.Regexp(`^(-wrapper|-fplugin|-fpass-plugin|-B|--specs|-specs|-fuse-ld=.*/|--ld-path|-Xclang$|-load$|--gcc-toolchain|-ccc-|-Wl,.*plugin|-Xlinker$|-C$|-Clinker|-Z|--extern|-processor|-processorpath|--processor-path|-J|-pgmL|-pgmF|-pgm|-F)`)

// compiler judges a compiler: Medium, since it writes its output (-o is judged like a
// redirection); options that make it run or load another program are High (-wrapper's
// command is judged as the command it is).
func compiler(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	if c.name == "tsc" {
		tsc(a, c)
		return
	}
	if c.name == "zig" || c.name == "ghc" || c.name == "javac" || c.name == "kotlinc" {
		// zig run/build/test, Template Haskell, annotation processors: compiling runs code.
		a.add(Medium, c.text, "compiles and may run the project's code ("+c.name+")")
		a.codeFile("the code " + c.name + " compiles")
	}
	out := false
	for i := 0; i < len(c.args); i++ {
		w := c.args[i]
		if !w.lit {
			if w.canBeFlag() {
				a.add(High, c.text, "gives "+c.name+" options only known when it runs")
			}
			continue
		}
		v := w.val
		switch {
		case v == "-o" || v == "--output":
			if i+1 < len(c.args) {
				i++
				a.writes(c.text, c.args[i], a.dir, "writes")
				out = true
			}
			continue
		case strings.HasPrefix(v, "-o") && len(v) > 2 && c.name != "zig":
			a.writes(c.text, literalWord(v[2:]), a.dir, "writes")
			out = true
			continue
		case v == "-MF" || v == "-aux-info" || v == "-dumpdir" || v == "--out-dir" || (v == "-d" || v == "-s" || v == "-h") && (c.name == "javac" || c.name == "kotlinc"):
			if i+1 < len(c.args) {
				i++
				a.writes(c.text, c.args[i], a.dir, "writes ("+v+")")
				out = true
			}
			continue
		case strings.HasPrefix(v, "-MF") || strings.HasPrefix(v, "-Wl,-Map=") || strings.HasPrefix(v, "-Wl,-Map,") || strings.HasPrefix(v, "-ftime-trace=") ||
			strings.HasPrefix(v, "-fprofile-generate=") || strings.HasPrefix(v, "-fprofile-dir=") || strings.HasPrefix(v, "--out-dir=") || strings.HasPrefix(v, "--emit=") && strings.Contains(v, "="):
			a.compilerWrites(c, v)
			continue
		case strings.HasPrefix(v, "@") && len(v) > 1:
			a.add(High, c.text, "reads "+c.name+"'s options from "+v[1:]+", which can make it run any program")
			continue
		case v == "-wrapper" && i+1 < len(c.args):
			i++
			a.add(High, c.text, "makes "+c.name+" run its steps through another program (-wrapper)")
			a.nestedRun(c.text, splitComma(c.args[i]))
			continue
		}
		if compilerRuns().MatchString(v) && !(c.name == "rustc" && v == "-C" && i+1 < len(c.args) && !strings.HasPrefix(c.args[i+1].val, "linker")) {
			a.add(High, c.text, "makes "+c.name+" run or load a program of its choice ("+v+")")
		}
	}
	if !out {
		a.add(Medium, c.text, "compiles, writing its output in the workspace ("+c.name+")")
	} else {
		a.add(Medium, c.text, "compiles ("+c.name+")")
	}
}

// compilerWrites judges an option that names the file a compiler writes inside it:
// -MFdeps.d, -Wl,-Map=out.map, -ftime-trace=t.json, rustc's --emit=obj=out.o.
func (a *analyzer) compilerWrites(c *call, v string) {
	var files []string
	switch {
	case strings.HasPrefix(v, "-MF"):
		files = []string{v[3:]}
	case strings.HasPrefix(v, "-Wl,-Map,"):
		files = []string{strings.TrimPrefix(v, "-Wl,-Map,")}
	case strings.HasPrefix(v, "--emit="):
		for _, kind := range strings.Split(strings.TrimPrefix(v, "--emit="), ",") {
			if _, file, ok := strings.Cut(kind, "="); ok {
				files = append(files, file)
			}
		}
	default:
		_, file, _ := strings.Cut(v, "=")
		files = []string{file}
	}
	for _, f := range files {
		if f != "" {
			a.writes(c.text, literalWord(f), a.dir, "writes ("+v+")")
		}
	}
}

// splitComma splits gcc's "-wrapper prog,arg1,arg2" into the words of a command.
func splitComma(w word) []word {
	if !w.lit {
		return []word{unknownWord(w.src)}
	}
	var out []word
	for _, s := range strings.Split(w.val, ",") {
		out = append(out, literalWord(s))
	}
	return out
}

// tsc type-checks without writing anything under --noEmit; otherwise it writes the
// compiled files.
func tsc(a *analyzer, c *call) {
	o := opts{writes: "outDir outFile declarationDir tsBuildInfoFile generateTrace generateCpuProfile", short: "bpw", shortArg: "p", long: "noEmit strict skipLibCheck pretty noErrorTruncation listFiles listFilesOnly showConfig extendedDiagnostics diagnostics explainFiles traceResolution help all version noUnusedLocals noUnusedParameters noImplicitAny strictNullChecks allowJs checkJs esModuleInterop",
		longArg: "project target module lib jsx moduleResolution types typeRoots baseUrl locale"}
	p := a.checkOptions(c, &o)
	if !p.has("noEmit") && !p.has("showConfig", "listFilesOnly", "help", "all", "version") {
		a.add(Medium, c.text, "writes the compiled files (tsc)")
	}
}

// makeOptions are GNU make's options.
var makeOptions = opts{short: "BdeEiknpqrRsStvwL", shortArg: "CfIjlWoO",
	long:    "always-make environment-overrides ignore-errors keep-going just-print dry-run recon print-data-base question no-builtin-rules no-builtin-variables silent quiet stop no-keep-going touch version print-directory no-print-directory warn-undefined-variables check-symlink-times trace help no-silent debug",
	longArg: "directory file makefile include-dir jobs load-average max-load old-file assume-old new-file assume-new what-if eval output-sync shuffle jobserver-style"}

// makeProgram judges make: it runs the recipes of a makefile the agent can change
// (Medium, and no "always"); --eval and VAR=value arguments are make code given on the
// command line, whose recipes and $(shell) calls are judged as the shell code they are.
func makeProgram(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	p := a.checkOptions(c, &makeOptions)
	dir := a.dir
	if w, ok := flagWord(p, c.args, "C", "directory"); ok {
		loc := a.locate(w, a.dir)
		if loc.outside() {
			a.add(Medium, c.text, "runs make in "+loc.describe())
		}
		dir = loc.path
	}
	makefile := "the makefile"
	for _, f := range p.flags {
		if f.name == "f" || matchesFlag(f, "file") || matchesFlag(f, "makefile") {
			w := f.valueWord(c.args)
			switch {
			case !w.lit:
				a.add(High, c.text, "runs a makefile only known when it runs ("+w.src+")")
			case w.val == "-" || w.val == "/dev/stdin":
				a.makeCode(c, a.stdin, "make code from its input")
			default:
				a.reads(c.text, w, dir)
				makefile = w.val
			}
		}
		if f.name == "E" || matchesFlag(f, "eval") {
			w := f.valueWord(c.args)
			a.makeCode(c, stdinSource{kind: stdinText, text: w.val, unseen: !w.lit}, "make code given on the command line (--eval)")
		}
	}
	for _, w := range p.operandWords(c.args) {
		name, value, ok := strings.Cut(w.val, "=")
		if !ok || !envName().MatchString(name+"=") {
			continue
		}
		name = strings.TrimSuffix(strings.TrimSuffix(name, ":"), "+")
		a.makeVariable(c, name, value, w.lit)
	}
	a.add(Medium, c.text, "runs the recipes of "+makefile+", which the agent can change")
	a.codeFile(makefile)
}

// makeCommandVariables are the variables make's built-in rules run as programs.
var makeCommandVariables = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"SHELL": true, "CC": true, "CXX": true, "CPP": true, "LD": true, "AR": true, "AS": true, "FC": true, "PC": true,
		"LEX": true, "YACC": true, "M4": true, "RM": true, "MAKE": true, "INSTALL": true, "GO": true, "CARGO": true,
		"PYTHON": true, "NPM": true, "MAKEINFO": true, "TEX": true, "GET": true, "CO": true, "CTANGLE": true, "CWEAVE": true,
	}
})

// makeVariable judges NAME=value given to make: recipes expand it where the makefile
// says, so a value with shell syntax (or any value of a variable make runs as a
// program) is judged as code.
func (a *analyzer) makeVariable(c *call, name, value string, lit bool) {
	switch {
	case !lit:
		a.add(High, c.text, "sets the make variable "+name+" to a value only known when it runs, which recipes may run")
	case name == "SHELL" || name == ".SHELLFLAGS" || name == "MAKEFILES" || name == "MAKEFLAGS":
		a.add(High, c.text, "sets make's "+name+", which changes how every recipe runs")
	case makeCommandVariables()[name]:
		a.makeText(c, "\t"+value)
	case strings.ContainsAny(value, ";|&`$<>\n"):
		a.add(High, c.text, "sets the make variable "+name+" to shell syntax, which recipes run")
		a.makeText(c, "\t: "+value)
	}
}

// makeCode judges make code from in: literal text is judged by its recipes; text only
// known when it runs could do anything.
func (a *analyzer) makeCode(c *call, in stdinSource, what string) {
	switch {
	case in.download:
		a.add(Critical, c.text, "runs "+what+" downloaded from the network")
	case in.kind == stdinText && !in.unseen:
		a.add(High, c.text, "runs "+what)
		a.makeText(c, in.text)
	case in.kind == stdinFile:
		a.add(Medium, c.text, "runs "+what+" from a file")
	default:
		a.add(Critical, c.text, "runs "+what+", which parley cannot see")
	}
}

var (
	makeVarRef = lazy.Regexp(`\$[({]([^(){}$]*)[)}]|\$[@<^?*%+|]`)
	makeShell  = lazy.Regexp(`\$[({]shell\s`)
)

// makeText judges the shell code in make text: recipe lines (a tab first, or after
// "target: prerequisites ;"), $(shell …) calls and != assignments. Make's own variable
// references become shell variables: only known when the recipe runs.
func (a *analyzer) makeText(c *call, text string) {
	var code []string
	for _, line := range strings.Split(text, "\n") {
		for _, m := range shellCalls(line) {
			code = append(code, m)
		}
		switch {
		case strings.HasPrefix(line, "\t"):
			code = append(code, strings.TrimLeft(line, "\t@-+ "))
		case strings.Contains(line, "!="):
			_, cmd, _ := strings.Cut(line, "!=")
			code = append(code, cmd)
		case strings.Contains(line, ":") && strings.Contains(line, ";"):
			_, recipe, _ := strings.Cut(line[strings.Index(line, ":"):], ";")
			code = append(code, strings.TrimLeft(recipe, "@-+ "))
		}
	}
	for _, src := range code {
		src = makeVarRef().ReplaceAllStringFunc(src, func(ref string) string {
			if strings.HasPrefix(ref, "$(shell") || strings.HasPrefix(ref, "${shell") {
				return ref
			}
			return "${MAKEVAR}"
		})
		src = strings.ReplaceAll(src, "$$", "$")
		a.code(c.text, src)
	}
}

// shellCalls returns the commands of the $(shell …) calls in a line of make text.
func shellCalls(line string) []string {
	var out []string
	for {
		loc := makeShell().FindStringIndex(line)
		if loc == nil {
			return out
		}
		open, close := line[loc[0]+1], byte(')')
		if open == '{' {
			close = '}'
		}
		depth, end := 0, -1
		for i := loc[0] + 1; i < len(line) && end < 0; i++ {
			switch line[i] {
			case open:
				depth++
			case close:
				depth--
				if depth == 0 {
					end = i
				}
			}
		}
		if end < 0 {
			out = append(out, line[loc[1]:])
			return out
		}
		out = append(out, line[loc[1]:end])
		line = line[end+1:]
	}
}

// cmake judges cmake: configuring runs the project's CMakeLists.txt (which may run any
// program), -P runs a script, and -E runs one of cmake's commands, judged as the
// command it stands for (cmake -E rm -rf DIR is rm -rf DIR).
func cmake(a *analyzer, c *call) {
	if versionQuery(c.args) {
		return
	}
	for i, w := range c.args {
		if !w.lit || w.val != "-E" || i+1 >= len(c.args) {
			continue
		}
		rest := c.args[i+1:]
		switch rest[0].val {
		case "rm", "remove":
			a.nestedRun(c.text, append([]word{literalWord("rm")}, rest[1:]...))
		case "remove_directory", "rmdir":
			a.nestedRun(c.text, append([]word{literalWord("rm"), literalWord("-r"), literalWord("--")}, rest[1:]...))
		case "chdir":
			if len(rest) > 2 {
				saved := a.dir
				a.dir = a.locate(rest[1], a.dir).path
				a.nestedRun(c.text, rest[2:])
				a.dir = saved
			}
		case "env":
			a.nestedRun(c.text, append([]word{literalWord("env")}, rest[1:]...))
		case "copy", "copy_directory", "copy_if_different", "rename", "create_symlink", "create_hardlink":
			prog := map[string]string{"rename": "mv", "create_symlink": "ln", "create_hardlink": "ln"}[rest[0].val]
			if prog == "" {
				prog = "cp"
			}
			a.nestedRun(c.text, append([]word{literalWord(prog)}, rest[1:]...))
		case "touch", "touch_nocreate", "make_directory", "echo", "echo_append", "true", "false", "sleep", "capabilities", "environment", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cat", "compare_files":
			for _, w := range rest[1:] {
				if rest[0].val == "touch" || rest[0].val == "make_directory" {
					a.writesAt(c.text, w, a.dir, "creates", None)
				}
			}
		default:
			a.add(Medium, c.text, "runs cmake's command "+rest[0].val)
		}
		return
	}
	a.add(Medium, c.text, "runs the project's CMake files, which the agent can change")
	a.codeFile("the project's CMake files")
}
