package safety

import (
	"bufio"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// tableContext is the context every line of testdata/commands.txt is judged in.
var tableContext = Context{Workspace: []string{"/code/proj"}, Home: "/home/u"}

type tableCase struct {
	line    int
	tier    Tier
	command string
}

// readTable reads testdata/commands.txt: "<tier> <command>" per line, # comments, ⏎
// for a newline inside a command, {tmp} for this machine's temporary directory.
func readTable(t testing.TB) []tableCase {
	t.Helper()
	f, err := os.Open("testdata/commands.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var cases []tableCase
	expand := strings.NewReplacer("⏎", "\n", "{tmp}", filepath.Clean(os.TempDir()))
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if strings.TrimSpace(line) == "" || strings.HasPrefix(line, "#") {
			continue
		}
		tierWord, command, ok := strings.Cut(line, " ")
		tier, err := ParseTier(tierWord)
		if !ok || err != nil {
			t.Fatalf("commands.txt:%d: want \"<tier> <command>\", got %q", n, line)
		}
		cases = append(cases, tableCase{line: n, tier: tier, command: expand.Replace(command)})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func TestTable(t *testing.T) {
	cases := readTable(t)
	if len(cases) < 200 {
		t.Fatalf("the table has %d commands; it should keep at least 200", len(cases))
	}
	for _, c := range cases {
		a := Analyze(c.command, tableContext)
		if a.Tier != c.tier {
			t.Errorf("commands.txt:%d: %q is %s (%s), want %s", c.line, c.command, a.Tier, a.Reason(), c.tier)
			continue
		}
		if a.Tier > None && a.Reason() == "" {
			t.Errorf("commands.txt:%d: %q is %s with no reason", c.line, c.command, a.Tier)
		}
	}
}
