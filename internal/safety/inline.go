package safety

import (
	"regexp"
	"strings"
	"sync"

	"github.com/parley-acp/parley/internal/lazy"
)

// Code in another language (python -c, perl -e, node -e…) is not parsed: it is judged by
// the words it uses. Each language lists the words that build code or names at run
// time (eval, getattr, __import__…), start programs, delete or move files, write files,
// and use the network. The arguments of a call that starts a program or deletes are
// read when they are literal: a command is judged as the shell command it is, a path
// like rm's operand. What the judge cannot see is assumed to reach as far as it can:
// code built at run time, a program or a deleted path computed at run time, are
// Critical, so that no setting runs them unasked. Code with none of these words is
// Medium; a language parley has no words for is High, and Critical with any word that
// suggests one of these effects.
type languageSigns struct {
	dynamic, runs, deletes, recursive, moves, writes, network *regexp.Regexp
	backticks                                                 bool // `cmd` runs a command
	bare                                                      bool // calls need no parentheses: system "ls"
	// The expressions are compiled when code of the language is first judged, not at
	// start-up: some fifty of them were a share of what every parley command paid
	// before main.
	compiled sync.Once
	sources  [7]string
}

func signs(dynamic, runs, deletes, recursive, moves, writes, network string, backticks bool) *languageSigns {
	return &languageSigns{backticks: backticks, bare: backticks, sources: [7]string{dynamic, runs, deletes, recursive, moves, writes, network}}
}

// compile compiles the language's expressions, once.
func (s *languageSigns) compile() {
	s.compiled.Do(func() {
		var re [7]*regexp.Regexp
		for i, src := range s.sources {
			if src != "" {
				re[i] = regexp.MustCompile(src)
			}
		}
		s.dynamic, s.runs, s.deletes, s.recursive, s.moves, s.writes, s.network = re[0], re[1], re[2], re[3], re[4], re[5], re[6]
	})
}

var languages = sync.OnceValue(func() map[string]*languageSigns {
	m := map[string]*languageSigns{
		"Python": signs(
			`\b(eval|exec|compile|execfile|__import__|importlib|getattr|setattr|delattr|globals|locals|vars|breakpoint|runpy|ctypes|cffi|pickle|marshal|dill|shelve|timeit|pdb|attrgetter|methodcaller|sys\.modules)\b|__(?:[a-z]+_?)+__|\bcode\.(interact|Interactive\w+|compile_command)|\bfrom\s+(os|shutil|subprocess|pathlib|pty)\s+import\s+\*`,
			`\b(system|popen|spawn\w*|exec[lv]p?e?|posix_spawnp?|subprocess|Popen|check_output|check_call|getoutput|getstatusoutput|startfile|webbrowser|pty)\b`,
			`\b(os\.(remove|unlink|rmdir|removedirs|truncate)|rmtree|send2trash)\b|\.(unlink|rmdir)\s*\(|\bfrom\s+(os|shutil|pathlib)\s+import\s+[^\n;]*\b(remove|unlink|rmdir|removedirs|rmtree)\b`,
			`\b(rmtree|removedirs)\b`,
			`\b(os\.(rename|renames|replace)|shutil\.move)\b|\.rename\s*\(`,
			`\bopen\s*\([^)]*,\s*(mode\s*=\s*)?['"][^'"]*[wax+]|\.write_(text|bytes)\s*\(|\bshutil\.(copy\w*|copytree)\b|\bos\.(symlink|link|chmod|chown|mkfifo|mknod|write)\b|\.(symlink_to|hardlink_to|chmod|touch)\s*\(`,
			`\b(urllib|requests|http\.client|httpx|aiohttp|socket|ftplib|smtplib|paramiko)\b|https?://`,
			false),
		"JavaScript": signs(
			`\b(eval|Function|constructor|Reflect|Proxy|vm|worker_threads|binding|dlopen|globalThis|mainModule|import)\b|\brequire\s*\(\s*[^'"`+"`"+`\s]|\]\s*\(|\bset(Timeout|Interval)\s*\(\s*['"`+"`"+`]`,
			`\b(child_process|exec|execSync|execFile|execFileSync|spawn|spawnSync|fork|Deno\.run|Deno\.Command|Bun\.spawn\w*)\b|\$`+"`",
			`\b(rmSync|rmdirSync|unlinkSync|rimraf|removeSync|emptyDir\w*|deleteSync)\b|\b(fs|fsp|promises)\.(rm|rmdir|unlink)\b|\.(rm|rmdir|unlink|remove)\s*\(`,
			`\brecursive\s*:\s*true\b|\b(rimraf|removeSync|emptyDir\w*|remove)\b`,
			`\brename(Sync)?\b|\bmove(Sync)?\b`,
			`\b(writeFile\w*|appendFile\w*|createWriteStream|copyFile\w*|cpSync|symlink\w*|chmod\w*|chown\w*|truncate\w*|outputFile\w*)\b|\bDeno\.write\w*|\bBun\.write\b`,
			`\b(http|https|net|dgram|fetch|XMLHttpRequest|WebSocket|axios)\b|https?://`,
			false),
		"Perl": signs(
			`\b(eval|pack|unpack|syscall|CORE::GLOBAL)\b|\bdo\s*[\('"$]|\brequire\s*[\('"$]|&\{|&\$|\*\{|->\s*\$|->\s*can\b|\bs[/|#!,{][^;]*[/|#!,}][a-z]*e[a-z]*\s*($|[;})\n])`,
			`\b(system|exec|qx|fork|readpipe|open3|open2)\b|IPC::|\bopen\w*\s*\(?[^;]*['"]\s*(-?\||[^'"]*\|\s*['"])`,
			`\b(unlink|rmdir|rmtree|remove_tree)\b|File::Path|File::Remove`,
			`\b(rmtree|remove_tree)\b|File::Path|File::Remove`,
			`\b(rename|move)\b|File::Copy`,
			`\bopen\w*\s*\(?[^;]*['"]\s*\+?>|\b(copy|symlink|link|chmod|chown|utime|truncate)\b`,
			`\b(LWP|HTTP::|IO::Socket|Net::|Socket)\b|https?://`,
			true),
		"Ruby": signs(
			`\b(eval|instance_eval|class_eval|module_eval|instance_exec|binding|send|__send__|public_send|const_get|define_method|ObjectSpace|Fiddle|FFI)\b|\brequire\s*\(?\s*[^'"\s(]|\bmethod\s*\(`,
			`\b(system|exec|spawn|fork|popen\w*|syscall|Open3|PTY)\b|%x|\bIO\.popen|\bopen\s*\(?\s*['"]\|`,
			`\b(File\.(delete|unlink|truncate)|Dir\.(delete|rmdir|unlink)|FileUtils\.(rm\w*|remove\w*)|rm_rf|rm_r|rmtree)\b|\.(delete|unlink|rmtree)\b`,
			`\b(rm_rf|rm_r|rmtree|remove_dir|remove_entry\w*)\b`,
			`\b(File\.rename|FileUtils\.(mv|move))\b`,
			`\b(File\.write|IO\.write|FileUtils\.(cp\w*|copy\w*|ln\w*|touch|chmod\w*|chown\w*|install))\b|\bFile\.open\s*\([^)]*['"][wa]`,
			`\b(Net::HTTP|open-uri|Socket|URI\.open)\b|https?://`,
			true),
		"PHP": signs(
			`\b(eval|assert|create_function|call_user_func\w*|include|require|include_once|require_once|preg_replace|extract|parse_str)\b|\$\w+\s*\(`,
			`\b(system|exec|shell_exec|passthru|popen|proc_open|pcntl_exec|mail)\b`,
			`\b(unlink|rmdir)\b`, "",
			`\brename\b`,
			`\b(file_put_contents|copy|symlink|link|chmod|chown|touch|fputs|fwrite)\b|\bfopen\s*\([^)]*['"][wax]`,
			`\b(curl_\w+|fsockopen|stream_socket_client|file_get_contents\s*\(\s*['"]https?:)`,
			true),
		"Lua": signs(
			`\b(load|loadstring|loadfile|dofile|require|debug|package\.loadlib|setfenv|getfenv|rawget|_G|_ENV)\b`,
			`\b(os\.execute|io\.popen)\b`,
			`\bos\.remove\b`, "",
			`\bos\.rename\b`,
			`\bio\.open\s*\([^)]*['"][wa]|\bio\.output\b`,
			`\b(socket|http)\b`,
			false),
		"PowerShell": signs(
			`(?i)\b(Invoke-Expression|iex|ScriptBlock|Add-Type|Invoke-Command|icm|EncodedCommand|FromBase64String)\b|\[Reflection`,
			`(?i)\b(Start-Process|saps|Invoke-Item|ii|cmd|Process\]::Start|Start-Job)\b|&\s*['"$(]`,
			`(?i)\b(Remove-Item|ri|rm|rmdir|del|erase|rd|Clear-Content|clc)\b`,
			`(?i)-Recurse\b|-r\b`,
			`(?i)\b(Move-Item|mi|mv|move|Rename-Item|rni|ren)\b`,
			`(?i)\b(Set-Content|sc|Add-Content|ac|Out-File|New-Item|ni|Copy-Item|cpi|cp|copy)\b|>`,
			`(?i)\b(Invoke-WebRequest|iwr|Invoke-RestMethod|irm|WebClient|Net\.Sockets)\b|https?://`,
			false),
		"AppleScript": signs(`\b(run script|load script)\b`, `\bdo shell script\b`, `\bdelete\b`, `\bdelete\b`, `\bmove\b`, `\bwrite\b`, `\bopen location\b`, false),
		"Tcl":         signs(`\b(eval|uplevel|subst|source|load|interp|namespace\s+eval)\b`, `\b(exec|spawn)\b|\bopen\s+"\|`, `\bfile\s+delete\b`, `-force`, `\bfile\s+rename\b`, `\bopen\s+\S+\s+[wa]`, `\bsocket\b`, false),
	}
	for _, l := range []string{"Lua", "PowerShell", "AppleScript", "Tcl"} {
		m[l].bare = true
	}
	return m
})

// unknownLanguageEffects are words that, in code of a language parley has no words
// for, may mean any of the effects above.
var unknownLanguageEffects = lazy.Regexp(`(?i)\b(rm|rmdir|delete|remove|unlink|rmtree|recursive|system|exec|spawn|shell|popen|run|eval|process|command|cmd|kill|write|rename|move|os|file|dir|sh|bash|sudo|curl|wget)\b|[!` + "`" + `]`)

// inlineCode judges code in another language, given on the command line or read from a
// heredoc or a pipe (see languageSigns).
func (a *analyzer) inlineCode(c *call, language, code string) {
	s, known := languages()[language]
	if !known {
		if unknownLanguageEffects().MatchString(code) {
			a.add(Critical, c.text, "runs "+language+" code that may start programs or delete files, which parley cannot read")
			return
		}
		a.add(High, c.text, "runs "+language+" code, which parley cannot read")
		return
	}
	s.compile()
	found := false
	if s.dynamic.MatchString(code) {
		a.add(Critical, c.text, "runs "+language+" code that builds code or names when it runs (eval, reflection), which parley cannot see")
		return
	}
	if s.runs != nil && s.runs.MatchString(code) {
		found = true
		a.add(High, c.text, "runs "+language+" code that starts other programs")
		for _, call := range callsOf(s.runs, code, s.bare) {
			a.inlineRuns(c, language, call)
		}
	}
	if s.backticks && strings.Contains(code, "`") {
		found = true
		a.add(High, c.text, "runs "+language+" code that starts other programs")
		for _, cmd := range backtickCommands(code) {
			if strings.ContainsAny(cmd, "$#{@") {
				a.add(Critical, c.text, "runs a command built when the "+language+" code runs, which parley cannot see")
				continue
			}
			a.code(c.text, cmd)
		}
	}
	if s.deletes != nil && s.deletes.MatchString(code) {
		found = true
		a.add(High, c.text, "runs "+language+" code that deletes files")
		recursive := s.recursive != nil && s.recursive.MatchString(code)
		for _, call := range callsOf(s.deletes, code, s.bare) {
			a.inlineDeletes(c, language, call, recursive)
		}
	}
	if s.moves != nil && s.moves.MatchString(code) {
		found = true
		a.add(High, c.text, "runs "+language+" code that moves files")
		for _, call := range callsOf(s.moves, code, s.bare) {
			if paths := call.literals; len(paths) >= 1 && call.plain {
				a.nestedRun(c.text, append([]word{literalWord("mv"), literalWord("--")}, literalWords(paths)...))
				continue
			}
			a.add(Critical, c.text, "runs "+language+" code that moves paths parley cannot see (the workspace itself, perhaps)")
		}
	}
	if s.writes != nil && s.writes.MatchString(code) {
		found = true
		for _, call := range callsOf(s.writes, code, s.bare) {
			if len(call.literals) > 0 && call.plain {
				a.writes(c.text, literalWord(call.literals[0]), a.dir, "writes to")
				continue
			}
			a.add(High, c.text, "runs "+language+" code that writes files only known when it runs")
		}
	}
	if s.network != nil && s.network.MatchString(code) {
		found = true
		a.add(Medium, c.text, "runs "+language+" code that uses the network")
	}
	if !found {
		a.add(Medium, c.text, "runs inline "+language+" code")
	}
}

// inlineRuns judges one call that starts a program: literal arguments are the command
// it runs (one string: shell code; several: an argument vector); others could be any.
func (a *analyzer) inlineRuns(c *call, language string, call codeCall) {
	if !call.plain || len(call.literals) == 0 {
		a.add(Critical, c.text, "runs "+language+" code that starts a program parley cannot see")
		return
	}
	if len(call.literals) == 1 {
		a.code(c.text, call.literals[0])
		return
	}
	a.code(c.text, JoinArgv(call.literals))
}

// inlineDeletes judges one call that deletes: a literal path is judged like rm's
// operand; a path computed at run time could be the workspace itself.
func (a *analyzer) inlineDeletes(c *call, language string, call codeCall, recursive bool) {
	if !call.plain || len(call.literals) == 0 {
		if recursive {
			a.add(Critical, c.text, "runs "+language+" code that deletes recursively a path parley cannot see (the workspace itself, perhaps)")
		} else {
			a.add(High, c.text, "runs "+language+" code that deletes a path parley cannot see")
		}
		return
	}
	a.deletes(c.text, literalWord(call.literals[0]), a.dir, recursive)
}

func literalWords(values []string) []word {
	out := make([]word, len(values))
	for i, v := range values {
		out[i] = literalWord(v)
	}
	return out
}

// codeCall is the arguments of one call found in code: its string literals, and plain
// when nothing but literals (and a few harmless keywords) is in them.
type codeCall struct {
	literals []string
	plain    bool
}

// harmlessArgument are the words a call may hold besides literals and still be
// literal: keyword arguments that do not change what runs or where.
var harmlessArgument = lazy.Regexp(`(?i)\b(shell|check|capture_output|text|universal_newlines|ignore_errors|recursive|force|true|false|none|nil|undef|exist_ok|missing_ok|parents|stdio|inherit|encoding|utf-?8|T|F|TRUE|FALSE|Recurse|Force)\b`)

// callsOf returns, for each call in code whose name re matches, its arguments: what
// follows in parentheses, or, in a language where calls need none (bare), up to the end
// of the statement. A match inside a string, or that is not called (import subprocess,
// require('child_process')), is no call; a method of a module (subprocess.run) is the
// call; a method of a value (Path(p).unlink()) has arguments that do not say what it
// acts on, so they are not plain.
func callsOf(re *regexp.Regexp, code string, bare bool) []codeCall {
	var out []codeCall
	strs := stringSpans(code)
	for _, m := range re.FindAllStringIndex(code, -1) {
		if inSpans(strs, m[0]) {
			continue
		}
		if code[m[0]] == '.' {
			out = append(out, codeCall{})
			continue
		}
		i := m[1]
		if open := strings.IndexByte(code[m[0]:m[1]], '('); open >= 0 {
			out = append(out, argumentsAt(code, m[0]+open))
			continue
		}
		for {
			for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
				i++
			}
			if i+1 < len(code) && code[i] == '.' && isIdentByte(code[i+1]) {
				i++
				for i < len(code) && isIdentByte(code[i]) {
					i++
				}
				continue
			}
			break
		}
		switch {
		case i < len(code) && code[i] == '(':
			out = append(out, argumentsAt(code, i))
		case bare && i > m[1] && i < len(code) && !strings.ContainsRune(";,)}]\n=", rune(code[i])):
			out = append(out, argumentsAt(code, i))
		}
	}
	return out
}

func isIdentByte(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9'
}

// stringSpans returns where the quoted strings of code are, as [start, end] pairs.
func stringSpans(code string) [][2]int {
	var out [][2]int
	for i := 0; i < len(code); i++ {
		if code[i] == '\'' || code[i] == '"' {
			end := skipString(code, i)
			out = append(out, [2]int{i, end})
			i = end
		}
	}
	return out
}

func inSpans(spans [][2]int, i int) bool {
	for _, s := range spans {
		if i > s[0] && i <= s[1] {
			return true
		}
	}
	return false
}

// argumentsAt reads the arguments of a call whose name ends at i.
func argumentsAt(code string, i int) codeCall {
	for i < len(code) && (code[i] == ' ' || code[i] == '\t') {
		i++
	}
	end := len(code)
	if i < len(code) && code[i] == '(' {
		depth := 0
		for j := i; j < len(code); j++ {
			switch code[j] {
			case '\'', '"':
				j = skipString(code, j)
			case '(':
				depth++
			case ')':
				depth--
				if depth == 0 {
					end = j + 1
					j = len(code)
				}
			}
		}
	} else {
		for j := i; j < len(code); j++ {
			switch code[j] {
			case '\'', '"':
				j = skipString(code, j)
			case ';', '\n', '}':
				end = j
				j = len(code)
			}
		}
	}
	args := code[i:min(end, len(code))]
	var call codeCall
	var rest strings.Builder
	for j := 0; j < len(args); j++ {
		if args[j] == '\'' || args[j] == '"' {
			k := skipString(args, j)
			if lit, ok := stringLiteral(args[j:min(k+1, len(args))]); ok {
				call.literals = append(call.literals, lit)
			} else {
				rest.WriteString("?")
			}
			j = k
			continue
		}
		rest.WriteByte(args[j])
	}
	residue := harmlessArgument().ReplaceAllString(rest.String(), "")
	call.plain = strings.Trim(residue, " \t\n()[]{},:=>;") == "" || strings.Trim(residue, " \t\n()[]{},:=>;.") == ""
	if strings.ContainsAny(strings.Trim(residue, " \t\n()[]{},:=>;"), "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ$@%&*+?") {
		call.plain = false
	}
	return call
}

// skipString returns the index of the quote that closes the string opening at i (the
// last index when it does not close).
func skipString(s string, i int) int {
	q := s[i]
	for j := i + 1; j < len(s); j++ {
		switch s[j] {
		case '\\':
			j++
		case q:
			return j
		}
	}
	return len(s) - 1
}

// stringLiteral decodes a quoted string with C-like escapes; one with interpolation
// ($x, #{x}, {x} in an f-string is not told apart) is not literal.
func stringLiteral(q string) (string, bool) {
	if len(q) < 2 || q[len(q)-1] != q[0] {
		return "", false
	}
	body := q[1 : len(q)-1]
	if q[0] == '"' && (strings.Contains(body, "$") || strings.Contains(body, "#{")) {
		return "", false
	}
	if !strings.Contains(body, `\`) {
		return body, true
	}
	return decodeANSIC(body)
}

// backtickCommands returns the text between pairs of backticks.
func backtickCommands(code string) []string {
	parts := strings.Split(code, "`")
	var out []string
	for i := 1; i < len(parts); i += 2 {
		out = append(out, parts[i])
	}
	if len(parts)%2 == 0 { // an odd number of backticks: the last runs to the end
		out = append(out, parts[len(parts)-1])
	}
	return out
}
