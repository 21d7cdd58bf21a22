package main

// Issue 26, class 6: characters that are shown but cannot be seen (tag characters,
// invisible operators, the soft hyphen, Hangul fillers, a joiner or a variation
// selector out of place…) and the controls that act instead of showing reach no
// terminal as they are: parley's text output shows them as <U+…>, its --json writes
// them as \u escapes, and what a registry says of its agents is printed the same way.

import (
	"strconv"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// hiddenMembers are characters of the class, each with how parley shows it.
var hiddenMembers = []struct{ raw, shown string }{
	{"\U000E0041\U000E0042", "<U+E0041><U+E0042>"}, // tag characters: ASCII smuggled in the text
	{"f\u2061x", "f<U+2061>x"},                     // an invisible operator
	{"ex\u00adtra", "ex<U+00AD>tra"},               // the soft hyphen
	{"\u3164", "<U+3164>"},                         // a Hangul filler
	{"a\u180eb", "a<U+180E>b"},                     // the Mongolian vowel separator
	{"a\u034fb", "a<U+034F>b"},                     // the combining grapheme joiner
	{"a\u200cb", "a<U+200C>b"},                     // a non-joiner between ASCII letters
	{"rm\ufe0f", "rm<U+FE0F>"},                     // a variation selector after ASCII
	{"\u2065\u206a\ufff9\U0001BCA0\U0001D173", "<U+2065><U+206A><U+FFF9><U+1BCA0><U+1D173>"},
	{"\ufdd0", "<U+FDD0>"}, // a noncharacter
	{"\u009b2J", "<U+009B>2J"},
	{"\u202egnp.exe", "<U+202E>gnp.exe"},
}

// What stays: emoji with their joiners and selectors, a Persian non-joiner.
var keptWithThem = []string{"\U0001F469\u200d\U0001F4BB", "\u26a0\ufe0f", "\u0645\u06cc\u200c\u062e"}

func hiddenText() string {
	var parts []string
	for _, m := range hiddenMembers {
		parts = append(parts, m.raw)
	}
	return strings.Join(append(parts, keptWithThem...), " ")
}

// checkShown fails unless out shows every member by its code point, holds none raw, and
// keeps the emoji and the Persian word as they are.
func checkShown(t *testing.T, where, out string) {
	t.Helper()
	for _, m := range hiddenMembers {
		if !strings.Contains(out, m.shown) {
			t.Errorf("%s: %+q is not shown as %q:\n%+q", where, m.raw, m.shown, out)
		}
	}
	for _, raw := range []string{"\U000E0041", "\u2061", "\u00ad", "\u3164", "\u180e", "\u034f", "\u2065", "\u206a", "\ufff9", "\U0001BCA0", "\U0001D173", "\ufdd0", "\u009b", "\u202e"} {
		if strings.Contains(out, raw) {
			t.Errorf("%s: %+q reached the output raw:\n%+q", where, raw, out)
		}
	}
	for _, keep := range keptWithThem {
		if !strings.Contains(out, keep) {
			t.Errorf("%s: %+q is not kept as it is:\n%+q", where, keep, out)
		}
	}
}

// checkEscaped fails unless the JSON text out holds none of the members raw.
func checkEscaped(t *testing.T, where, out string) {
	t.Helper()
	kept := strings.Join(keptWithThem, "")
	for _, m := range hiddenMembers {
		for _, r := range m.raw {
			if r >= 0x80 && strings.ContainsRune(out, r) && !strings.ContainsRune(kept, r) {
				t.Errorf("%s: %U reached the JSON raw:\n%+q", where, r, out)
			}
		}
		if strings.Contains(out, m.raw) {
			t.Errorf("%s: %+q reached the JSON raw:\n%+q", where, m.raw, out)
		}
	}
}

// TestRunShowsHiddenCharacters: the agent's message, printed by parley run, shows each
// member by its code point (and parley run --json escapes them, losing nothing).
func TestRunShowsHiddenCharacters(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	text := hiddenText()
	script := "say " + strconv.Quote(text)
	r := w.run(t, script)
	if r.code != 0 {
		t.Fatalf("parley run: exit %d\n%s", r.code, r.stderr)
	}
	checkShown(t, "parley run", r.stdout)

	j := w.run(t, script, "--json")
	checkEscaped(t, "parley run --json", j.stdout)
	var got strings.Builder
	for _, line := range strings.Split(strings.TrimSpace(j.stdout), "\n") {
		var ev struct{ Type, Text string }
		if err := json.Unmarshal([]byte(line), &ev); err != nil {
			t.Fatalf("%q: %v", line, err)
		}
		if ev.Type == "text" {
			got.WriteString(ev.Text)
		}
	}
	if !strings.Contains(got.String(), text) {
		t.Errorf("parley run --json: the text decodes to %+q, want %+q in it", got.String(), text)
	}
}

// TestChangesJSONEscapesHiddenCharacters: a file whose name holds C1 and bidi controls
// and invisible characters, written by the agent, is listed by parley changes with them
// shown, and by parley changes --json with them escaped (the name decodes unchanged).
func TestChangesJSONEscapesHiddenCharacters(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	name := "a\u009b2J\u202egnp\U000E0041\u2061\u00ad.txt"
	prompt := "write " + w.dir + "/" + name + " text"
	if r := w.run(t, prompt, "--yolo"); r.code != 0 {
		t.Fatalf("the turn: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	c := w.parley(t, "changes")
	if want := "A a<U+009B>2J<U+202E>gnp<U+E0041><U+2061><U+00AD>.txt"; !strings.Contains(c.stdout, want) {
		t.Errorf("parley changes: want %q in\n%+q%+q", want, c.stdout, c.stderr)
	}
	for _, args := range [][]string{{"changes", "--json"}, {"changes", "--json", "--all"}} {
		j := w.parley(t, args...)
		if j.code != 0 {
			t.Fatalf("parley %v: exit %d\n%s", args, j.code, j.stderr)
		}
		for _, raw := range []string{"\u009b", "\u202e", "\U000E0041", "\u2061", "\u00ad"} {
			if strings.Contains(j.stdout, raw) {
				t.Errorf("parley %v: %+q reached stdout raw:\n%+q", args, raw, j.stdout)
			}
		}
		var turns []struct {
			Label string
			Files []struct{ Rel, Path string }
		}
		if err := json.Unmarshal([]byte(j.stdout), &turns); err != nil || len(turns) != 1 || len(turns[0].Files) != 1 {
			t.Fatalf("parley %v: %v\n%s", args, err, j.stdout)
		}
		if f := turns[0].Files[0]; f.Rel != name || !strings.HasSuffix(f.Path, "/"+name) {
			t.Errorf("parley %v: the file decodes to %+q (%+q), want %+q: the escape must lose nothing", args, f.Rel, f.Path, name)
		}
		if turns[0].Label != prompt {
			t.Errorf("parley %v: the label decodes to %+q, want %+q", args, turns[0].Label, prompt)
		}
	}
}

// TestAgentsShowRegistryTextVisibly: a registry entry whose name, description, version
// and package hold escape sequences and hidden characters is listed by parley agents and
// installed by parley agents install with all of them shown for what they are.
func TestAgentsShowRegistryTextVisibly(t *testing.T) {
	t.Parallel()
	reg := newTestRegistry(t)
	reg.mu.Lock()
	reg.agents["hostile"] = map[string]any{
		"id": "hostile", "name": "Nice\x1b]0;pwned\x07\U000E0041\u2061", "version": "1.0.0\u009b2J\u202e",
		"description":  "helps\x1b[2J\u00ad\u3164 you",
		"distribution": map[string]any{"npx": map[string]any{"package": "pkg\u202e\U000E0042\x1b[31m"}},
	}
	reg.mu.Unlock()
	env, _ := registryEnv(t, reg)
	dir := t.TempDir()
	raw := []string{"\x1b", "\x07", "\u009b", "\u202e", "\U000E0041", "\U000E0042", "\u2061", "\u00ad", "\u3164"}
	noneRaw := func(where, out string) {
		t.Helper()
		for _, bad := range raw {
			if strings.Contains(out, bad) {
				t.Errorf("%s: the registry's %+q reached the terminal raw:\n%+q", where, bad, out)
			}
		}
	}

	r := parleyIn(t, dir, env, "", "agents")
	if r.code != 0 {
		t.Fatalf("parley agents: exit %d\n%s", r.code, r.stderr)
	}
	noneRaw("parley agents", r.stdout+r.stderr)
	for _, want := range []string{"Nice␛]0;pwned␇<U+E0041><U+2061>", "helps␛[2J<U+00AD><U+3164> you", "1.0.0<U+009B>2J<U+202E>"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("parley agents does not show %q:\n%+q", want, r.stdout)
		}
	}

	r = parleyIn(t, dir, env, "", "agents", "install", "hostile")
	if r.code != 0 {
		t.Fatalf("parley agents install: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	noneRaw("parley agents install", r.stdout+r.stderr)
	for _, want := range []string{"Installed hostile 1.0.0<U+009B>2J<U+202E>", "pkg<U+202E><U+E0042>␛[31m"} {
		if !strings.Contains(r.stdout, want) {
			t.Errorf("parley agents install does not show %q:\n%+q", want, r.stdout)
		}
	}

	r = parleyIn(t, dir, env, "", "agents")
	noneRaw("parley agents, once installed", r.stdout+r.stderr)
	if !strings.Contains(r.stdout, "registry 1.0.0<U+009B>2J<U+202E>") {
		t.Errorf("parley agents does not show the installed version:\n%+q", r.stdout)
	}
}
