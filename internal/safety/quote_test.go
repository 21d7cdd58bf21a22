package safety

import "testing"

// JoinArgv is parley's one shell quoter for what it shows: a word that means nothing to
// a shell as it is, single quotes around the rest, double quotes around one with a
// single quote in it, $'...' for control and invisible characters, and a NUL (which no
// shell word holds) shown rather than dropped.
func TestJoinArgvQuotesAwkwardWords(t *testing.T) {
	for _, tt := range []struct {
		argv []string
		want string
	}{
		{[]string{"git", "status"}, "git status"},
		{[]string{"echo", "it's"}, `echo "it's"`},
		{[]string{"echo", `say "hi"`}, `echo 'say "hi"'`},
		{[]string{"echo", "$HOME", "`id`"}, "echo '$HOME' '`id`'"},
		{[]string{"printf", "a\nb"}, `printf $'a\nb'`},
		{[]string{"printf", "it's\n"}, `printf $'it\'s\n'`},
		{[]string{"echo", "\x1b[2K", "\u202eexe"}, `echo $'\x1b[2K' $'\u202eexe'`},
		{[]string{"echo", "a\x00b"}, `echo ab$'\0'`},
		{[]string{"echo", ""}, "echo ''"},
		{[]string{"A=b", "x"}, "'A=b' x"},
		{[]string{"env", "A=b"}, "env A=b"},
		{[]string{"~", "~/x", "a~"}, "'~' '~/x' 'a~'"},
	} {
		if got := JoinArgv(tt.argv); got != tt.want {
			t.Errorf("JoinArgv(%q) = %s, want %s", tt.argv, got, tt.want)
		}
	}
}
