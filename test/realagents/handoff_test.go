//go:build linux

package realagents

import (
	"bufio"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// TestRealAgentsHandoff hands one conversation from claude to gemini and back (parley run
// --from ID --agent-command OTHER), each turn editing a file of its own: each agent's
// first request to the model carries the turns before it (the seeded prompt), and parley
// changes lists the three edits, one turn each (the record goes on).
func TestRealAgentsHandoff(t *testing.T) {
	parleyBinary(t)
	byName := map[string]*agentDef{}
	for _, a := range agentDefs {
		byName[a.name] = a
	}
	first, other := byName["claude"], byName["gemini"]
	requireInstalled(t, first)
	requireInstalled(t, other)
	model := newModel(t)
	sb := newSandbox(t, first, model)
	sb2 := sb.withAgent(t, other)

	files := []string{"one.txt", "two.txt", "three.txt"}
	for _, f := range files {
		sb.writeFile(filepath.Join(sb.workspace, f), "first\n"+oldLine+"\nlast\n")
	}
	edit := func(f string) string { return markEdit + " " + filepath.Join(sb.workspace, f) }

	if r := sb.runParley(t, "--yolo", edit(files[0])); r.exitStatus() != 0 || !strings.Contains(r.out.String(), editDone) {
		t.Fatalf("claude's turn: exit %d\n%s", r.exitStatus(), r)
	}
	turns := []struct {
		to   *sandbox
		file string
	}{{sb2, files[1]}, {sb, files[2]}}
	for i, tu := range turns {
		id := lastKept(t, sb)
		before := len(model.Requests())
		r := tu.to.runParley(t, "--yolo", "--json", "--from", id, edit(tu.file))
		if code := r.exitStatus(); code != 0 || !strings.Contains(r.out.String(), editDone) {
			t.Fatalf("hand-off %d to %s: exit %d\n%s", i+1, tu.to.agent.name, code, r)
		}
		if how := carriedHow(r.out.String()); how != "seeded" && how != "summarised" {
			t.Errorf("hand-off %d to %s went on by %q; want seeded", i+1, tu.to.agent.name, how)
		}
		// The new agent's first request for its turn quotes every earlier turn's file.
		var seen bool
		for _, req := range model.Requests()[before:] {
			if strings.Contains(req.LastUser(), filepath.Join(sb.workspace, tu.file)) {
				seen = true
				for _, earlier := range files[:i+1] {
					if !strings.Contains(req.LastUser(), earlier) {
						t.Errorf("hand-off %d: %s's first prompt lacks the earlier turn on %s:\n%s", i+1, tu.to.agent.name, earlier, req.LastUser())
					}
				}
				break
			}
		}
		if !seen {
			t.Errorf("hand-off %d: no request of %s carried the turn's prompt", i+1, tu.to.agent.name)
		}
	}
	for _, f := range files {
		if data, _ := os.ReadFile(filepath.Join(sb.workspace, f)); string(data) != "first\n"+newLine+"\nlast\n" {
			t.Errorf("%s is %q after its turn", f, data)
		}
	}
	// One record: turn N of it is the Nth agent's edit, whichever agent made it.
	for i, f := range files {
		out, errOut, code := sb.parleyCommand(t, "changes", "--turn", strconv.Itoa(i+1))
		if code != 0 || strings.TrimSpace(out) != "M "+f+" +1 −1" {
			t.Errorf("parley changes --turn %d: exit %d\n%s%s\nwant M %s +1 −1", i+1, code, out, errOut, f)
		}
	}
}

// withAgent is the sandbox set up for agent b as well: the same home, workspace and
// model, b's configuration written and its variables added, its own tee log.
func (sb *sandbox) withAgent(t *testing.T, b *agentDef) *sandbox {
	t.Helper()
	other := *sb
	other.agent = b
	other.frames = filepath.Join(filepath.Dir(sb.frames), b.name+"-frames.jsonl")
	env := b.setup(&other)
	sb.env = append(sb.env, env...)
	other.env = sb.env
	return &other
}

// lastKept is the id of the workspace's most recently used conversation (parley sessions).
func lastKept(t *testing.T, sb *sandbox) string {
	t.Helper()
	out, errOut, code := sb.parleyCommand(t, "sessions", "--json")
	sc := bufio.NewScanner(strings.NewReader(out))
	if code != 0 || !sc.Scan() {
		t.Fatalf("parley sessions: exit %d\n%s%s", code, out, errOut)
	}
	var k struct{ ID string }
	if err := json.Unmarshal(sc.Bytes(), &k); err != nil || k.ID == "" {
		t.Fatalf("parley sessions --json: %q: %v", sc.Text(), err)
	}
	return k.ID
}

// carriedHow is how a run's --json output says it went on (its carried event).
func carriedHow(out string) string {
	sc := bufio.NewScanner(strings.NewReader(out))
	for sc.Scan() {
		var ev struct{ Type, How string }
		if json.Unmarshal(sc.Bytes(), &ev) == nil && ev.Type == "carried" {
			return ev.How
		}
	}
	return ""
}
