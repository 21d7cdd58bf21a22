package proc

import "testing"

func TestIsBatchFile(t *testing.T) {
	for path, want := range map[string]bool{
		`C:\Program Files\nodejs\npx.cmd`: true, `npm.CMD`: true, `C:\tools\build.bat`: true,
		`C:\Program Files\nodejs\node.exe`: false, `C:\dir.cmd\npx`: false, `npx`: false, `/usr/bin/npx`: false,
	} {
		if got := isBatchFile(path); got != want {
			t.Errorf("isBatchFile(%q) = %v", path, got)
		}
	}
}

func TestBatchCommandLine(t *testing.T) {
	const comspec = `C:\Windows\system32\cmd.exe`
	for _, c := range []struct {
		path string
		args []string
		want string
	}{
		{`C:\Program Files\nodejs\npx.cmd`, []string{"-y", "@agentclientprotocol/codex-acp"},
			`"C:\Windows\system32\cmd.exe" /d /s /c ""C:\Program Files\nodejs\npx.cmd" -y @agentclientprotocol/codex-acp"`},
		{`C:\Program Files (x86)\nodejs\npx.cmd`, []string{"-y", "-p", "@google/gemini-cli@0.20.1", "gemini", "--acp"},
			`"C:\Windows\system32\cmd.exe" /d /s /c ""C:\Program Files (x86)\nodejs\npx.cmd" -y -p @google/gemini-cli@0.20.1 gemini --acp"`},
		{`C:\n\npm.cmd`, []string{"run", "my script", `C:\my dir\`, "", "--flag=a,b", "naïve"},
			`"C:\Windows\system32\cmd.exe" /d /s /c ""C:\n\npm.cmd" run "my script" "C:\my dir\\" "" --flag=a,b naïve"`},
		{`C:\n\npm.cmd`, nil, `"C:\Windows\system32\cmd.exe" /d /s /c ""C:\n\npm.cmd""`},
	} {
		got, err := batchCommandLine(comspec, c.path, c.args)
		if err != nil || got != c.want {
			t.Errorf("batchCommandLine(%q, %q)\n got %s, %v\nwant %s", c.path, c.args, got, err, c.want)
		}
	}
	for _, arg := range []string{"a&b", "a|b", "a>b", "a<b", "%PATH%", "!x!", "x^y", "(x)", `say "hi"`, "a\nb", "a\x00b"} {
		if got, err := batchCommandLine(comspec, `C:\n\npx.cmd`, []string{"-y", arg}); err == nil {
			t.Errorf("the argument %q passed to a batch file as %s, want an error", arg, got)
		}
	}
	if got, err := batchCommandLine(comspec, `C:\a&b\npx.cmd`, nil); err == nil {
		t.Errorf("a path with & passed as %s", got)
	}
}
