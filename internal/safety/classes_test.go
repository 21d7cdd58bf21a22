package safety

import (
	"os"
	"strings"
	"testing"
)

// classRow is one row of CLASSES.md.
type classRow struct {
	line                int
	class, example, why string
	tier                Tier
	always              bool
}

// readClasses reads the table of CLASSES.md: | class | `example` | tier | always | why |.
func readClasses(t testing.TB) []classRow {
	t.Helper()
	b, err := os.ReadFile("CLASSES.md")
	if err != nil {
		t.Fatal(err)
	}
	var rows []classRow
	for n, line := range strings.Split(string(b), "\n") {
		if !strings.HasPrefix(line, "| ") || strings.HasPrefix(line, "| class ") || strings.HasPrefix(line, "| ---") {
			continue
		}
		line = strings.ReplaceAll(line, `\|`, "\x00")
		cells := strings.Split(strings.Trim(line, "| "), " | ")
		if len(cells) != 5 {
			t.Fatalf("CLASSES.md:%d: want 5 cells, got %d: %q", n+1, len(cells), line)
		}
		for i := range cells {
			cells[i] = strings.TrimSpace(strings.ReplaceAll(cells[i], "\x00", "|"))
		}
		example := strings.TrimSuffix(strings.TrimPrefix(cells[1], "`"), "`")
		tier, err := ParseTier(cells[2])
		if err != nil {
			t.Fatalf("CLASSES.md:%d: %v", n+1, err)
		}
		if cells[3] != "yes" && cells[3] != "no" {
			t.Fatalf("CLASSES.md:%d: always is %q, want yes or no", n+1, cells[3])
		}
		if cells[0] == "" || cells[4] == "" || example == "" {
			t.Fatalf("CLASSES.md:%d: a row needs a class, an example and why", n+1)
		}
		rows = append(rows, classRow{line: n + 1, class: cells[0], example: example, tier: tier, always: cells[3] == "yes", why: cells[4]})
	}
	return rows
}

// Every class of the table gets the tier it says, and "always" only where it says.
func TestClasses(t *testing.T) {
	rows := readClasses(t)
	if len(rows) < 100 {
		t.Fatalf("CLASSES.md has %d rows; it should keep at least 100", len(rows))
	}
	for _, r := range rows {
		a := Analyze(r.example, tableContext)
		if a.Tier != r.tier {
			t.Errorf("CLASSES.md:%d (%s): %q is %s (%s), want %s", r.line, r.class, r.example, a.Tier, a.Reason(), r.tier)
		}
		if always := len(a.CodeFiles) == 0; always != r.always {
			t.Errorf("CLASSES.md:%d (%s): %q runs code files %q; the table says always=%v", r.line, r.class, r.example, a.CodeFiles, r.always)
		}
		if sh := AnalyzeArgv([]string{"sh", "-c", r.example}, tableContext); sh.Tier < a.Tier {
			t.Errorf("CLASSES.md:%d: sh -c %q is %s, below %s", r.line, r.example, sh.Tier, a.Tier)
		}
	}
}
