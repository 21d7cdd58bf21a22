package proc

import (
	"fmt"
	"path/filepath"
	"strings"
	"unicode"
)

// Batch files on Windows. npx, npm and most tools installed through npm are batch files
// there (npx.cmd), and Windows runs a batch file through cmd.exe, which reads its command
// line by its own rules: & | < > ^ ( ) end or redirect the command, % and ! expand
// variables even inside quotes, and npm's .cmd shims pass their arguments through cmd.exe
// a second time (%*). No quoting survives all of that for every string, so parley starts
// a batch file as `cmd.exe /d /s /c ""C:\path\npx.cmd" arg…"` with arguments that need
// no escaping (quoted when they hold spaces), and refuses the others with an error that
// says what to do instead. These are pure functions, so that they are tested on every
// platform; proc_windows.go applies them.

// isBatchFile reports whether path names a batch file, which Windows runs through cmd.exe.
func isBatchFile(path string) bool {
	ext := strings.ToLower(filepath.Ext(path))
	if i := strings.LastIndexAny(path, `\/`); i >= 0 && strings.LastIndexByte(path, '.') < i {
		ext = ""
	}
	return ext == ".cmd" || ext == ".bat"
}

// batchCommandLine is the command line, for cmd.exe, that runs the batch file path with
// args; comspec is cmd.exe's own path.
func batchCommandLine(comspec, path string, args []string) (string, error) {
	var line strings.Builder
	// /d: no AutoRun commands from the registry; /s: strip the quotes around the rest.
	line.WriteString(`"` + strings.ReplaceAll(comspec, `"`, "") + `" /d /s /c ""`)
	if !batchSafe(path, true) {
		return "", fmt.Errorf("cannot run %s: its path has characters cmd.exe would interpret", path)
	}
	line.WriteString(path)
	line.WriteString(`"`)
	for _, arg := range args {
		if !batchSafe(arg, false) {
			return "", fmt.Errorf("cannot pass %q to %s: it is a batch file, which Windows runs through cmd.exe, and cmd.exe would interpret some of its characters (\" %% ! ^ & | < > ( ) or a control character); run the program it starts directly instead (for an npm package: install it and give node and its script)", arg, filepath.Base(path))
		}
		line.WriteString(" ")
		if arg == "" || strings.ContainsAny(arg, " \t") {
			// Backslashes before the closing quote are doubled, as CommandLineToArgvW
			// and the C runtime read them.
			trailing := len(arg) - len(strings.TrimRight(arg, `\`))
			line.WriteString(`"` + arg + strings.Repeat(`\`, trailing) + `"`)
		} else {
			line.WriteString(arg)
		}
	}
	line.WriteString(`"`)
	return line.String(), nil
}

// batchSafe reports whether s passes through cmd.exe (twice) unchanged: letters, digits,
// spaces and the punctuation of paths, package names, versions and options. A path may
// also hold parentheses (C:\Program Files (x86)\...), since it is quoted and not passed on.
func batchSafe(s string, isPath bool) bool {
	for _, r := range s {
		switch {
		case unicode.IsLetter(r) || unicode.IsDigit(r):
		case strings.ContainsRune(` _-.,:=+@#~/\[]{}$'`, r):
		case isPath && (r == '(' || r == ')'):
		default:
			return false
		}
	}
	return true
}
