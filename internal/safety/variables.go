package safety

import (
	"strings"
	"sync"
)

// Environment variables that make a program run, or load, code of the setter's choosing:
// one list for every place parley judges an environment someone else gives a program
// (a command line's NAME=value, terminal/create's env, a sign-in method's env, a
// registry manifest's env). A program started with one of them set may run more than
// its command line shows.

// CodeVariable reports whether setting the environment variable name can make the
// programs started with it run or load code of the setter's choosing, and says how. The
// name is compared in upper case (Windows does not tell the cases apart). IFS and PATH
// are in it: a shell started with another IFS splits its words elsewhere (the oldest
// such trick), and another PATH makes every program found by name another one; the
// command-line judge treats both apart (judgeVariable).
func CodeVariable(name string) (why string, ok bool) {
	n := strings.ToUpper(name)
	if why, ok := codeVariables()[n]; ok {
		return why, true
	}
	for _, p := range codeVariablePrefixes {
		if strings.HasPrefix(n, p.prefix) {
			return p.why, true
		}
	}
	return "", false
}

// codeVariablePrefixes are families of such variables.
var codeVariablePrefixes = []struct{ prefix, why string }{
	{"BASH_FUNC_", "defines a shell function in every bash started"},
	{"LD_", "changes what the dynamic loader loads into every program"},
	{"DYLD_", "changes what the dynamic loader loads into every program"},
	{"GIT_CONFIG_", "sets git configuration that can run programs"},
}

// codeVariables change what later programs run or load.
var codeVariables = sync.OnceValue(func() map[string]string {
	return map[string]string{
		"LD_PRELOAD": "loads a library into every program", "LD_LIBRARY_PATH": "changes which libraries programs load",
		"LD_AUDIT": "loads a library into every program", "DYLD_INSERT_LIBRARIES": "loads a library into every program",
		"BASH_ENV": "runs a file in every bash started", "ENV": "runs a file in every shell started",
		"PROMPT_COMMAND": "runs a command at every prompt", "PS4": "can run commands when tracing",
		"ZDOTDIR": "makes zsh run the start-up files of another directory", "IFS": "changes how shells split words",
		"PATH": "changes which programs run", "PATHEXT": "changes which programs run",
		"GIT_SSH_COMMAND": "makes git run a program", "GIT_SSH": "makes git run a program",
		"GIT_EXTERNAL_DIFF": "makes git run a program", "GIT_PAGER": "makes git run a program",
		"GIT_EDITOR": "makes git run a program", "GIT_ASKPASS": "makes git run a program",
		"GIT_PROXY_COMMAND": "makes git run a program", "GIT_EXEC_PATH": "makes git run programs from elsewhere",
		"GIT_CONFIG_GLOBAL": "makes git read another configuration", "GIT_CONFIG_SYSTEM": "makes git read another configuration",
		"GIT_CONFIG_PARAMETERS": "sets git configuration that can run programs", "GIT_CONFIG_COUNT": "sets git configuration that can run programs",
		"GIT_DIR": "points git at another repository", "GIT_WORK_TREE": "points git at another working tree",
		"PAGER": "makes programs run a pager of its choice", "EDITOR": "makes programs run an editor of its choice",
		"VISUAL": "makes programs run an editor of its choice", "SSH_ASKPASS": "makes ssh run a program",
		"NODE_OPTIONS": "changes what node loads", "PYTHONSTARTUP": "runs a file in every python started",
		"PYTHONPATH": "changes what python imports", "PYTHONINSPECT": "makes python read commands after its script",
		"PERL5OPT": "changes what perl loads", "RUBYOPT": "changes what ruby loads",
		"MANPAGER": "makes man run a pager of its choice", "BROWSER": "makes programs open a browser of its choice",
		"LESSOPEN": "makes less run a program on every file", "SYSTEMD_PAGER": "makes systemctl run a pager of its choice",
		"CC": "makes builds run another C compiler", "CXX": "makes builds run another C++ compiler", "RUSTC_WRAPPER": "makes cargo run a program",
		"RUSTC": "makes cargo run another compiler", "RUSTFLAGS": "can make rustc link with a program of its choice",
		"CGO_CFLAGS": "passes flags to the C compiler that can load code", "CGO_LDFLAGS": "passes flags to the linker that can load code",
		"GOFLAGS": "gives go flags, -toolexec among them", "GOTOOLCHAIN": "makes go download and run another toolchain",
		"MAKEFLAGS": "gives make options, --eval among them",
		"MAKEFILES": "makes make read more makefiles", "JAVA_TOOL_OPTIONS": "makes every JVM load agents", "_JAVA_OPTIONS": "makes every JVM load agents",
		"JDK_JAVA_OPTIONS": "makes every JVM load agents",
		"NODE_PATH":        "changes what node loads", "PERL5LIB": "changes what perl loads", "PERLLIB": "changes what perl loads", "RUBYLIB": "changes what ruby loads",
		"PYTHONHOME": "changes which Python runs", "SUDO_ASKPASS": "makes sudo run a program", "GIT_SEQUENCE_EDITOR": "makes git run a program",
		"NPM_CONFIG_SCRIPT_SHELL": "makes npm run scripts with another program", "CDPATH": "changes where cd goes",
		"BASHOPTS": "turns on Bash options (alias expansion among them)", "SHELLOPTS": "turns on shell options",
		"OPENSSL_CONF": "makes openssl load a configuration that can load code", "KUBECONFIG": "makes kubectl read a configuration that can name programs",
		"DOCKER_CONFIG": "makes docker read a configuration that names programs", "CARGO_HOME": "makes cargo read another configuration",
		"GIT_CONFIG": "makes git read another configuration", "GIT_CEILING_DIRECTORIES": "changes which repository git finds",
		"GCONV_PATH": "makes the C library load conversion modules from elsewhere",
	}
})

// commandVariables hold a command line that programs run.
var commandVariables = sync.OnceValue(func() map[string]bool {
	return map[string]bool{
		"GIT_SSH_COMMAND": true, "GIT_PAGER": true, "GIT_EDITOR": true, "GIT_EXTERNAL_DIFF": true, "GIT_ASKPASS": true,
		"GIT_PROXY_COMMAND": true, "GIT_SSH": true, "PAGER": true, "EDITOR": true, "VISUAL": true, "SSH_ASKPASS": true,
		"MANPAGER": true, "BROWSER": true, "LESSOPEN": true, "SYSTEMD_PAGER": true, "CC": true, "CXX": true, "RUSTC_WRAPPER": true,
		"SUDO_ASKPASS": true, "GIT_SEQUENCE_EDITOR": true,
	}
})
