package safety

import (
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

// What a rule must assume a command spelt at run time could be (issue 16, class 5).
func TestCommandPatterns(t *testing.T) {
	for line, want := range map[string][]string{
		"git push":              {"git push"},
		"git p":                 {"*"},
		"git $SUB origin":       {"*"},
		"$GIT push":             {"* push"},
		`eval "$CMD"`:           {"eval *", "*", "*"},
		"echo push | xargs git": {"echo push", "xargs git *", "git *"},
		"ls $DIR":               {"ls *"},
		"git -c alias.p=push p": {"git -c alias.p=push p", "git push"},
	} {
		var got []string
		for _, c := range Analyze(line, tableContext).Commands {
			got = append(got, c.Patterns()...)
		}
		if diff := cmp.Diff(want, got); diff != "" {
			t.Errorf("patterns of %q (-want +got):\n%s", line, diff)
		}
	}
	for line, runTime := range map[string]bool{"git push": false, "git p": true, "$GIT push": true, "ls | xargs rm": true, "ls $DIR": false} {
		a := Analyze(line, tableContext)
		got := false
		for _, c := range a.Commands {
			got = got || c.RunTime
		}
		if got != runTime {
			t.Errorf("%q: RunTime %v, want %v", line, got, runTime)
		}
	}
}

func TestSedEffects(t *testing.T) {
	for script, want := range map[string][]sedEffect{
		"s/a/b/g":                 nil,
		"1e touch x":              {{"run", "touch x"}},
		"s/x/y/e":                 {{"run", ""}},
		"/foo/{s/a;b/c/;w out\n}": {{"write", "out"}},
		"$r /etc/passwd":          {{"read", "/etc/passwd"}},
		"y/abc/xyz/;p":            nil,
		"a\\\nappended e x":       nil,
		"1!G;h;$!d":               nil,
		"s|/|\\||w log":           {{"write", "log"}},
	} {
		got, ok := sedEffects(script)
		if !ok {
			t.Errorf("%q: not parsed", script)
			continue
		}
		if diff := cmp.Diff(want, got, cmp.AllowUnexported(sedEffect{})); diff != "" {
			t.Errorf("sedEffects(%q) (-want +got):\n%s", script, diff)
		}
	}
	for _, bad := range []string{"s/a/b", "k", "1,"} {
		if _, ok := sedEffects(bad); ok {
			t.Errorf("%q parsed", bad)
		}
	}
}

func TestAwkEffects(t *testing.T) {
	for prog, want := range map[string][]awkEffect{
		`{print $1}`:           nil,
		`$3 > 100 {print}`:     nil,
		`{print (a > b)}`:      nil,
		`BEGIN{system("ls")}`:  {{"run", "ls"}},
		`{system($0)}`:         {{"run", ""}},
		`{print > "out.txt"}`:  {{"write", "out.txt"}},
		`{print >> $1}`:        {{"write", ""}},
		`{print | "sort"}`:     {{"run", "sort"}},
		`{"date" | getline d}`: {{"run", "date"}},
		`BEGIN{while ((getline l < "/etc/x") > 0) print l}`: {{"read", "/etc/x"}},
		`/a|b/ {print}`:      nil,
		`@include "lib.awk"`: {{"code", "@include lib.awk"}},
	} {
		if diff := cmp.Diff(want, awkEffects(prog), cmp.AllowUnexported(awkEffect{})); diff != "" {
			t.Errorf("awkEffects(%q) (-want +got):\n%s", prog, diff)
		}
	}
}

func TestPrintedText(t *testing.T) {
	for args, want := range map[string]string{
		"-n hi":       "hi",
		"-e a\\nb":    "a\nb\n",
		"hello world": "hello world\n",
		"-x":          "-x\n",
	} {
		if got, _ := echoText(strings.Fields(args)); got != want {
			t.Errorf("echo %s: %q, want %q", args, got, want)
		}
	}
	if got, ok := printfText([]string{`%s\n`, "a", "b"}); !ok || got != "a\nb\n" {
		t.Errorf("printf: %q %v", got, ok)
	}
	if _, ok := printfText([]string{"%d", "1"}); ok {
		t.Errorf("printf with %%d is taken as known text")
	}
}

// Code nested in strings, each judged as what several programs would run, takes bounded
// time: the line is judged (or found too complex, which is critical) at once.
func TestNestedProbesAreBounded(t *testing.T) {
	var b strings.Builder
	for i := 0; i < 200; i++ {
		b.WriteString("x sh -c 'y sh -c \"z sh -c rm\"' ")
	}
	start := time.Now()
	Analyze(b.String(), tableContext)
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("took %v", d)
	}
}
