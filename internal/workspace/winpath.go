package workspace

import (
	"strings"
	"unicode/utf8"
)

// Windows path names. These checks are pure string functions, compiled on every platform
// so that they are tested everywhere; Roots applies them only where GOOS is windows.
//
// Win32 rewrites a path before it opens it: it drops trailing dots and spaces from every
// name, treats `/` as `\`, maps reserved device names (CON, NUL, COM1… in any directory,
// with any extension) to devices, and reads `name:stream` as an alternate data stream of
// name. A name checked as one thing and opened as another is how confinement and the
// sensitive-file rules are slipped past, so a path whose meaning Win32 would change is
// refused with a reason rather than interpreted. os.Root refuses reserved names and
// colons too (its lookups pass through the same rules), which makes it a second guard;
// the check here gives the agent an error that says what is wrong.

// NameError reports a path whose form Windows would not open as the file it names.
type NameError struct {
	Path   string
	Reason string
}

func (e *NameError) Error() string { return e.Path + ": " + e.Reason }

// checkWindowsPath returns the plain form of path (a verbatim `\\?\C:\dir` becomes
// `C:\dir`, `\\?\UNC\server\share` becomes `\\server\share`), or a *NameError.
func checkWindowsPath(path string) (string, error) {
	plain := path
	switch {
	case strings.HasPrefix(path, `\\?\`):
		rest := path[len(`\\?\`):]
		if strings.ContainsRune(rest, '/') { // a verbatim path has no `/` separator
			return "", &NameError{path, "a verbatim path (\\\\?\\) may not contain /"}
		}
		switch {
		case len(rest) >= 3 && isDriveLetter(rest[0]) && rest[1] == ':' && rest[2] == '\\':
			plain = rest
		case len(rest) > 4 && strings.EqualFold(rest[:4], `UNC\`):
			plain = `\\` + rest[4:]
		default:
			return "", &NameError{path, "names a volume or device, not a file on a drive or share"}
		}
		// Win32 skips its rewriting for verbatim paths, so a name it would rewrite means
		// something else here than in plain form: refuse . and .. as well.
		for _, name := range strings.Split(plain[2:], `\`) {
			if name == "." || name == ".." {
				return "", &NameError{path, "a verbatim path (\\\\?\\) may not contain . or .."}
			}
		}
	case len(path) >= 4 && isSep(path[0]) && isSep(path[1]) && (path[2] == '?' || path[2] == '.') && isSep(path[3]):
		return "", &NameError{path, "names a device, not a file"}
	case strings.HasPrefix(path, `\??\`):
		return "", &NameError{path, "is a Windows object path, not a file path"}
	}
	rest := plain
	switch {
	case len(rest) >= 2 && isDriveLetter(rest[0]) && rest[1] == ':':
		rest = rest[2:]
	case len(rest) >= 2 && isSep(rest[0]) && isSep(rest[1]): // \\server\share\...
		rest = rest[2:]
	}
	for name := range strings.FieldsFuncSeq(rest, func(r rune) bool { return r == '\\' || r == '/' }) {
		if reason := windowsNameProblem(name); reason != "" {
			return "", &NameError{path, reason}
		}
	}
	return plain, nil
}

// windowsNameProblem says why Windows would not open the single name as the file it
// names, or "" when it would.
func windowsNameProblem(name string) string {
	if name == "." || name == ".." {
		return ""
	}
	if i := strings.IndexByte(name, ':'); i >= 0 {
		return "names an alternate data stream (" + name[i:] + ") of " + name[:i] + "; give the file itself"
	}
	if isReservedWindowsName(name) {
		return name + " is a device name on Windows (CON, NUL, COM1… whatever the extension), not a file"
	}
	if last := name[len(name)-1]; last == '.' || last == ' ' {
		return "the name " + `"` + name + `"` + " ends in a dot or a space, which Windows drops, so it names another file"
	}
	for _, r := range name {
		if r < ' ' || strings.ContainsRune(`<>"|?*`, r) {
			return "the name " + `"` + name + `"` + ` has a character Windows does not allow in names (<>"|?* or a control character)`
		}
	}
	return ""
}

// isReservedWindowsName reports whether Windows maps name to a device: CON, PRN, AUX,
// NUL, COM0-9 and LPT0-9 (with the superscript digits ¹²³ too), CONIN$, CONOUT$ and
// CLOCK$, in any case, followed by spaces or by an extension or not.
func isReservedWindowsName(name string) bool {
	base, _, _ := strings.Cut(name, ".")
	base = strings.TrimRight(base, " ")
	switch strings.ToUpper(base) {
	case "CON", "PRN", "AUX", "NUL", "CONIN$", "CONOUT$", "CLOCK$":
		return true
	}
	if len(base) < 4 || !(strings.EqualFold(base[:3], "COM") || strings.EqualFold(base[:3], "LPT")) {
		return false
	}
	digit := base[3:]
	if len(digit) == 1 {
		return digit[0] >= '0' && digit[0] <= '9'
	}
	r, size := utf8.DecodeRuneInString(digit)
	return size == len(digit) && (r == '¹' || r == '²' || r == '³')
}

func isSep(c byte) bool { return c == '\\' || c == '/' }

func isDriveLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// pathWithin reports whether the clean absolute path p is dir or below it, comparing
// whole components (/srv/ab is not inside /srv/a), ignoring case when fold is set.
func pathWithin(dir, p string, sep byte, fold bool) bool {
	equal := func(a, b string) bool { return a == b }
	if fold {
		equal = strings.EqualFold
	}
	if len(p) < len(dir) || !equal(p[:len(dir)], dir) {
		return false
	}
	if len(p) == len(dir) {
		return true
	}
	return dir != "" && dir[len(dir)-1] == sep || p[len(dir)] == sep
}
