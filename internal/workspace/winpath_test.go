package workspace

import (
	"errors"
	"testing"
)

func TestCheckWindowsPath(t *testing.T) {
	for path, want := range map[string]string{
		`C:\proj\file.txt`:                 `C:\proj\file.txt`,
		`c:/proj/file.txt`:                 `c:/proj/file.txt`,
		`C:\proj\.\sub\..\file.txt`:        `C:\proj\.\sub\..\file.txt`, // cleaned by the caller
		`\\?\C:\proj\file.txt`:             `C:\proj\file.txt`,
		`\\?\UNC\server\share\file.txt`:    `\\server\share\file.txt`,
		`\\server\share\file.txt`:          `\\server\share\file.txt`,
		`C:\proj\CONSOLE.txt`:              `C:\proj\CONSOLE.txt`,
		`C:\proj\COM10`:                    `C:\proj\COM10`,
		`C:\proj\com.txt`:                  `C:\proj\com.txt`,
		`C:\proj\nul_file`:                 `C:\proj\nul_file`,
		`C:\proj\.env`:                     `C:\proj\.env`,
		`C:\proj\naïve – façade.md`:        `C:\proj\naïve – façade.md`,
		`C:\proj\dir with spaces\file.txt`: `C:\proj\dir with spaces\file.txt`,
	} {
		got, err := checkWindowsPath(path)
		if err != nil || got != want {
			t.Errorf("checkWindowsPath(%q) = %q, %v; want %q", path, got, err, want)
		}
	}
	for _, path := range []string{
		// alternate data streams
		`C:\proj\file.txt:hidden`, `C:\proj\file.txt::$DATA`, `C:\proj\dir:stream\file.txt`, `C:\proj\file.txt:`,
		// reserved device names, in any case, with any extension or trailing spaces
		`C:\proj\CON`, `C:\proj\con.txt`, `C:\proj\sub\Nul`, `C:\proj\NUL .txt`, `C:\proj\aux.tar.gz`,
		`C:\proj\PRN`, `C:\proj\COM1`, `C:\proj\com9.log`, `C:\proj\LPT0`, `C:\proj\lpt¹`, `C:\proj\COM³.txt`,
		`C:\proj\CONIN$`, `C:\proj\conout$`, `C:\proj\CLOCK$`, `C:\proj\CON\file.txt`,
		// names Win32 would rewrite
		`C:\proj\secret.txt.`, `C:\proj\secret.txt `, `C:\proj\dir.\file`, `C:\proj\...`,
		// characters Windows does not allow
		`C:\proj\a<b`, `C:\proj\a>b`, `C:\proj\a|b`, `C:\proj\a"b`, `C:\proj\a*`, `C:\proj\a?`, "C:\\proj\\a\x01b",
		// device and object namespaces, verbatim paths that are not a drive or share
		`\\.\C:\proj\file.txt`, `\\.\pipe\parley`, `//./COM1`, `\\?\pipe\x`, `//?/C:/proj/file.txt`,
		`\\?\GLOBALROOT\Device\HarddiskVolume1\proj`, `\\?\Volume{01234567-89ab-cdef-0123-456789abcdef}\proj`,
		`\??\C:\proj\file.txt`,
		// verbatim paths whose names Win32 would have rewritten
		`\\?\C:\proj\..\secret.txt`, `\\?\C:\proj\.\file.txt`, `\\?\C:\proj/file.txt`, `\\?\C:\proj\file.txt.`,
	} {
		got, err := checkWindowsPath(path)
		var nameErr *NameError
		if !errors.As(err, &nameErr) {
			t.Errorf("checkWindowsPath(%q) = %q, %v; want a *NameError", path, got, err)
		}
	}
}

func TestPathWithin(t *testing.T) {
	for _, c := range []struct {
		dir, p    string
		sep       byte
		fold, yes bool
	}{
		{`C:\proj`, `C:\proj`, '\\', true, true},
		{`C:\proj`, `c:\PROJ\file.txt`, '\\', true, true},
		{`C:\proj`, `C:\projects\file.txt`, '\\', true, false},
		{`C:\`, `C:\proj`, '\\', true, true},
		{`C:\proj`, `D:\proj\file.txt`, '\\', true, false},
		{`C:\proj`, `c:\PROJ\file.txt`, '\\', false, false},
		{`\\server\share`, `\\SERVER\share\x`, '\\', true, true},
		{"/srv/a", "/srv/a/x", '/', false, true},
		{"/srv/a", "/srv/ab", '/', false, false},
		{"/srv/a", "/srv/A/x", '/', false, false},
		{"/srv/a", "/srv/A/x", '/', true, true},
		{"/", "/etc", '/', false, true},
	} {
		if got := pathWithin(c.dir, c.p, c.sep, c.fold); got != c.yes {
			t.Errorf("pathWithin(%q, %q, fold %v) = %v", c.dir, c.p, c.fold, got)
		}
	}
}
