package main

// Issue 26, class 1: arithmetic that runs code. Bash evaluates text as arithmetic in
// let, (( )), $(( )), subscripts, offsets, integer variables' values…, and expands a
// subscript there again, so a $(…) the line's own shell saw as quoted data runs.

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/safety"
)

// The issue's own example: at parley agent's default settings the scripted model runs
// `bash -c 'let "a[\$(rm -rf src)]=1"'`. It is asked about (the client refuses) and src
// survives; it used to run unasked and delete src.
func TestAgentAsksBeforeLetRunsACommand(t *testing.T) {
	t.Parallel()
	needs(t, "bash")
	w := newWorkspace(t)
	writeFiles(t, w.dir, map[string]string{"src/keep.go": "package keep\n"})
	command := `bash -c 'let "a[\$(rm -rf src)]=1"'`
	asked := agentRuns(t, w, []string{command}, nil)
	if got := askedAbout(asked); !slices.Equal(got, []string{command}) {
		t.Errorf("asked about %q, want the let", got)
	}
	for _, q := range asked {
		if text := questionText(q); !strings.Contains(text, "Risk: high") || !strings.Contains(text, "deletes src") {
			t.Errorf("the question does not say what it runs: %q", text)
		}
	}
	if _, err := os.Stat(filepath.Join(w.dir, "src", "keep.go")); err != nil {
		t.Errorf("src was deleted: %v", err)
	}
}

// arithmeticMembers are places Bash evaluates quoted text as arithmetic, each running
// `touch m-NAME` when bash runs it (bash 5.2 runs every one of them): parley agent asks
// about each one.
var arithmeticMembers = map[string]string{
	"let":         `let 'a[$(touch m-let)]=1'`,
	"backquote":   "let 'a[`touch m-backquote`]=1'",
	"arithcmd":    `(( 'a[$(touch m-arithcmd)]' ))`,
	"arithexp":    `echo $(( 'a[$(touch m-arithexp)]' ))`,
	"assignment":  `a['$(touch m-assignment)']=1`,
	"array":       `a=(['$(touch m-array)']=1)`,
	"declare":     `declare a['$(touch m-declare)']=1`,
	"declare-i":   `declare -i x='a[$(touch m-declare-i)]'`,
	"integer":     `declare -i x; x+='a[$(touch m-integer)]'`,
	"expansion":   `echo "${a['$(touch m-expansion)']}"`,
	"offset":      `x=abc; echo "${x:'a[$(touch m-offset)]':1}"`,
	"for":         `for (( i='a[$(touch m-for)]'; i<1; i++ )); do :; done`,
	"test-v":      `[[ -v 'a[$(touch m-test-v)]' ]]`,
	"eq":          `[[ 'a[$(touch m-eq)]' -eq 1 ]]`,
	"printf-v":    `printf -v 'a[$(touch m-printf-v)]' x`,
	"read":        `read 'a[$(touch m-read)]' <<< x`,
	"nameref":     `declare -n r='a[$(touch m-nameref)]'; r=1`,
	"indirection": `x='a[$(touch m-indirection)]'; echo "${!x}"`,
	"value":       `x='a[$(touch m-value)]'; (( x ))`,
}

// Every member, run by bash -c as an agent would write it, is asked about at the
// default settings and, refused, leaves no file; ordinary arithmetic still runs
// unasked. Each member's file is made by bash itself on this machine (checked first),
// so the class is real here and not only in the judge.
func TestAgentAsksBeforeArithmeticRunsCode(t *testing.T) {
	t.Parallel()
	needs(t, "bash", "touch")
	w := newWorkspace(t)
	probe := t.TempDir()
	var commands []string
	for name, member := range arithmeticMembers {
		out, _ := runBash(probe, member) // most end in an error, after the command ran
		if _, err := os.Stat(filepath.Join(probe, "m-"+name)); err != nil {
			t.Errorf("bash did not run the command hidden in %s (%s): the member does not show the class\n%s", name, member, out)
		}
		commands = append(commands, safety.JoinArgv([]string{"bash", "-c", member}))
	}
	slices.Sort(commands)
	harmless := []string{
		`bash -c 'i=0; (( i++ )); let "j = i + 2"; echo $(( i * j ))'`,
		`bash -c 'a=(1 2 3); echo "${a[1]}" "${#a[@]}" "${a[@]:1:2}"'`,
		`bash -c 'for ((i=0; i<3; i++)); do echo $i; done'`,
	}
	asked := askedAbout(agentRuns(t, w, append(commands, harmless...), nil))
	for _, c := range commands {
		if !slices.Contains(asked, c) {
			t.Errorf("%s ran without a question", c)
		}
	}
	for name := range arithmeticMembers {
		if _, err := os.Stat(filepath.Join(w.dir, "m-"+name)); err == nil {
			t.Errorf("%s ran: m-%s exists", name, name)
		}
	}
	for _, c := range harmless {
		if slices.Contains(asked, c) {
			t.Errorf("the ordinary %s was asked about", c)
		}
	}
}

// runBash runs script with bash in dir.
func runBash(dir, script string) ([]byte, error) {
	cmd := exec.Command("bash", "-c", script)
	cmd.Dir = dir
	return cmd.CombinedOutput()
}

// A delete of the home directory hidden in arithmetic is critical: parley agent asks
// even under --yolo, and the client host refuses it with --yolo and nobody to ask,
// however it is quoted and however deep in sh -c it is.
func TestArithmeticThatDeletesHomeIsCritical(t *testing.T) {
	t.Parallel()
	commands := []string{
		`bash -c 'let "a[\$(rm -rf ~)]=1"'`,
		`let a[\$\(rm\ -rf\ ~\)]=1`,
		`bash -c "(( 'a[\$(rm -rf ~)]' ))"`,
		`bash -c "declare -i x='a[\$(rm -rf ~)]'"`,
		`bash -c "unset 'a[\$(rm -rf ~)]'"`,
		`sh -c "bash -c 'x=\"a[\\\$(rm -rf ~)]\"; echo \$((x))'"`,
	}
	w := newWorkspace(t)
	refusedUnderYolo(t, w, commands)

	// parley agent --yolo, unconfined: each asks (the client refuses), so the victim
	// outside the workspace, which any of them would delete, survives.
	writeFiles(t, w.outside, map[string]string{"victim/keep.txt": "precious"})
	var agentCommands []string
	for _, c := range commands {
		agentCommands = append(agentCommands, strings.ReplaceAll(c, "~", "../outside/victim"))
	}
	asked := agentRuns(t, w, append([]string{"touch made-under-yolo"}, agentCommands...), nil, "--yolo", "--sandbox", "off")
	if got := askedAbout(asked); !slices.Equal(got, agentCommands) {
		t.Errorf("asked about %q\nwant %q", got, agentCommands)
	}
	for _, q := range asked {
		if !strings.Contains(questionText(q), "Risk: critical") {
			t.Errorf("%s: not shown as critical: %q", q.ToolCall.Title, questionText(q))
		}
	}
	if _, err := os.Stat(filepath.Join(w.outside, "victim", "keep.txt")); err != nil {
		t.Errorf("the victim was deleted: %v", err)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "made-under-yolo")); err != nil {
		t.Errorf("an ordinary command did not run under --yolo: %v", err)
	}
}
