package chatcmd

import (
	"errors"
	"slices"
	"strings"
	"testing"
)

func TestParse(t *testing.T) {
	for _, tc := range []struct {
		line string
		fe   FrontEnd
		name string   // the command found
		args []string // its arguments
	}{
		{"/changes", Line, "changes", nil},
		{"  /undo  ", Line, "undo", nil},
		{"/undo notes.txt other file.txt", Line, "undo", []string{"notes.txt other file.txt"}},
		{"/undo #3", TUI, "undo", []string{"#3"}},
		{"/rewind 2", Line, "rewind", []string{"2"}},
		{"/sessions", TUI, "sessions", nil},
		{"/sessions close abc-1", TUI, "sessions", []string{"close", "abc-1"}},
		{"/sessions  delete   abc-1 ", Line, "sessions", []string{"delete", "abc-1"}},
		{"/load abc-1", TUI, "load", []string{"abc-1"}},
		{"/config", Line, "config", nil},
		{"/config effort very high", Line, "config", []string{"effort", "very high"}},
		{"/find two words", Line, "find", []string{"two words"}},
		{"/exit", TUI, "quit", nil},
		{"/agents", TUI, "agent", nil},
		{"/copy code", TUI, "copy", []string{"code"}},
		{"/help undo", Line, "help", []string{"undo"}},
	} {
		call, err := Parse(tc.line, tc.fe)
		if err != nil {
			t.Errorf("Parse(%q): %v", tc.line, err)
			continue
		}
		if call.Cmd.Name != tc.name || !slices.Equal(call.Args, tc.args) {
			t.Errorf("Parse(%q) = /%s %q; want /%s %q", tc.line, call.Cmd.Name, call.Args, tc.name, tc.args)
		}
	}
}

func TestParseRefuses(t *testing.T) {
	for _, tc := range []struct {
		line string
		fe   FrontEnd
		want string // in the error
	}{
		{"/load", Line, "/load: needs ID (usage: /load ID)"},
		{"/rewind", TUI, "needs TURN"},
		{"/rewind last", Line, `TURN is the number of a turn (/changes lists them), not "last"`},
		{"/sessions close", Line, "/sessions: needs ID (usage: /sessions [close|delete ID])"},
		{"/sessions purge x", TUI, `takes close or delete, not "purge"`},
		{"/sessions close a b", TUI, `too many arguments ("b")`},
		{"/new now", Line, `too many arguments ("now")`},
		{"/find", TUI, "needs TEXT"},
		{"/copy all", TUI, `takes code, not "all"`},
	} {
		_, err := Parse(tc.line, tc.fe)
		var ue *UsageError
		if !errors.As(err, &ue) || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("Parse(%q): %v; want a usage error saying %q", tc.line, err, tc.want)
		}
	}
}

func TestParseUnknown(t *testing.T) {
	for _, tc := range []struct {
		line    string
		fe      FrontEnd
		suggest string
	}{
		{"/undp", Line, "undo"},
		{"/chnages", TUI, "changes"},
		{"/sesions close x", Line, "sessions"},
		{"/quti", TUI, "quit"},
		{"/lod x", Line, "load"},
		{"/web", Line, ""},        // near nothing: the agent's, as typed
		{"/deploy prod", TUI, ""}, // an agent's command
		{"/copy", Line, ""},       // the line chat has no clipboard of its own
		{"/agent", Line, ""},      // nor conversations to switch
	} {
		_, err := Parse(tc.line, tc.fe)
		var ue *UnknownError
		if !errors.As(err, &ue) {
			t.Errorf("Parse(%q): %v; want an unknown command", tc.line, err)
			continue
		}
		if ue.Suggestion != tc.suggest {
			t.Errorf("Parse(%q) suggests %q; want %q", tc.line, ue.Suggestion, tc.suggest)
		}
		if tc.suggest != "" && !strings.Contains(err.Error(), "did you mean /"+tc.suggest+"?") {
			t.Errorf("Parse(%q): %v; want it to ask about /%s", tc.line, err, tc.suggest)
		}
	}
	if _, err := Parse("not a command", Line); !errors.Is(err, ErrNotCommand) {
		t.Errorf("a prompt: %v; want ErrNotCommand", err)
	}
	if _, err := Parse("/", Line); !errors.Is(err, ErrNotCommand) {
		t.Errorf("a lone slash: %v; want ErrNotCommand", err)
	}
}

func TestUsage(t *testing.T) {
	for name, want := range map[string]string{
		"sessions": "/sessions [close|delete ID]",
		"config":   "/config [ID [VALUE…]]",
		"rewind":   "/rewind TURN",
		"new":      "/new",
		"undo":     "/undo [FILE|TURN…]",
	} {
		c, ok := Lookup(name)
		if !ok {
			t.Fatalf("no /%s", name)
		}
		if got := c.Usage(); got != want {
			t.Errorf("/%s usage %q; want %q", name, got, want)
		}
	}
}

// The table is sound: names and aliases unique, every command offered somewhere, with a
// summary, and only the last argument takes the rest of the line.
func TestTable(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range Table {
		for _, n := range append([]string{c.Name}, c.Aliases...) {
			if seen[n] {
				t.Errorf("/%s twice in the table", n)
			}
			seen[n] = true
		}
		if c.In == 0 || c.Summary == "" {
			t.Errorf("/%s: no front-end, or no summary", c.Name)
		}
		for i, a := range c.Args {
			if a.Rest && i != len(c.Args)-1 {
				t.Errorf("/%s: %s takes the rest of the line but is not last", c.Name, a.Name)
			}
			if (a.Kind == ArgWord) != (len(a.Words) > 0) {
				t.Errorf("/%s: %s: words only for a word argument", c.Name, a.Name)
			}
		}
	}
}

func TestReadTarget(t *testing.T) {
	dir := t.TempDir()
	if got := ReadTarget(dir, []string{"#4"}); got.Turn != 4 || got.Paths != nil {
		t.Errorf("#4: %+v", got)
	}
	got := ReadTarget(dir, []string{"a.txt", "3"})
	if got.Turn != 0 || len(got.Paths) != 2 || !strings.HasSuffix(got.Paths[0], "a.txt") || !strings.HasSuffix(got.Paths[1], "3") {
		t.Errorf("two words are files, a number among them too: %+v", got)
	}
}
