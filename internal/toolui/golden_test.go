package toolui

import (
	"bytes"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolstate"
)

// The -update flag rewrites golden files. Another test in the binary may define it too,
// so it is defined only if nobody has yet.
func init() {
	if flag.Lookup("update") == nil {
		flag.Bool("update", false, "rewrite golden files under testdata/")
	}
}

func updating() bool {
	f := flag.Lookup("update")
	return f != nil && f.Value.String() == "true"
}

// A golden file is a comment, then sections that start with a "-- name --" line, as in
// txtar. updates.jsonl is the input: one ACP session update per line, or a directive
// standing for what a front-end does ({"requestPermission": RequestPermissionRequest},
// {"resolvePermission": {"toolCallId", "outcome"}}, {"cancel": true}, {"tick": true},
// {"stop": "end_turn"}). Lines starting with # are comments. The other sections are the
// expected output of each renderer; -update rewrites them.
type goldenFile struct {
	comment  string
	sections []section
}

type section struct{ name, body string }

func parseGolden(data string) goldenFile {
	var g goldenFile
	lines := strings.SplitAfter(data, "\n")
	cur := -1
	for _, line := range lines {
		trimmed := strings.TrimRight(line, "\n")
		if strings.HasPrefix(trimmed, "-- ") && strings.HasSuffix(trimmed, " --") && len(trimmed) > 6 {
			g.sections = append(g.sections, section{name: trimmed[3 : len(trimmed)-3]})
			cur = len(g.sections) - 1
			continue
		}
		if cur < 0 {
			g.comment += line
		} else {
			g.sections[cur].body += line
		}
	}
	return g
}

func (g goldenFile) section(name string) (string, bool) {
	for _, s := range g.sections {
		if s.name == name {
			return s.body, true
		}
	}
	return "", false
}

func (g *goldenFile) set(name, body string) {
	for i := range g.sections {
		if g.sections[i].name == name {
			g.sections[i].body = body
			return
		}
	}
	g.sections = append(g.sections, section{name, body})
}

func (g goldenFile) String() string {
	var b strings.Builder
	b.WriteString(g.comment)
	for _, s := range g.sections {
		fmt.Fprintf(&b, "-- %s --\n%s", s.name, s.body)
	}
	return b.String()
}

const goldenRoot = "/srv/proj"

// The renderer outputs a golden file holds, in order.
var goldenOutputs = []string{"plain.txt", "live.txt", "screen.txt", "markdown.md", "events.jsonl"}

func TestGolden(t *testing.T) {
	files, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no golden files: %v", err)
	}
	for _, path := range files {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			data, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			g := parseGolden(string(data))
			input, ok := g.section("updates.jsonl")
			if !ok {
				t.Fatal("no updates.jsonl section")
			}
			steps := parseSteps(t, input)
			got := map[string]string{}
			var out bytes.Buffer
			replay(t, steps, NewTextRenderer(&out, nil))
			got["plain.txt"] = out.String()
			out.Reset()
			replay(t, steps, NewTextRenderer(&out, &TextOptions{Live: true, Color: true, Width: 72}))
			got["live.txt"] = strings.ReplaceAll(out.String(), "\x1b", `\e`)
			got["screen.txt"] = emulate(out.String(), 72)
			out.Reset()
			replay(t, steps, NewMarkdownRenderer(&out))
			got["markdown.md"] = out.String()
			out.Reset()
			replay(t, steps, NewJSONEncoder(&out))
			got["events.jsonl"] = out.String()

			if updating() {
				for _, name := range goldenOutputs {
					g.set(name, got[name])
				}
				if err := os.WriteFile(path, []byte(g.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			for _, name := range goldenOutputs {
				want, _ := g.section(name)
				if diff := cmp.Diff(want, got[name]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", name, diff)
				}
			}
			if t.Failed() {
				t.Logf("if the new output is right, run: go test ./internal/toolui -run Golden -update")
			}
		})
	}
}

// step is one line of updates.jsonl.
type step struct {
	update  *acp.SessionUpdate
	request *acp.RequestPermissionRequest
	resolve *resolveStep
	cancel  bool
	tick    bool
	stop    acp.StopReason
}

type resolveStep struct {
	ToolCallID acp.ToolCallID               `json:"toolCallId"`
	Outcome    acp.RequestPermissionOutcome `json:"outcome"`
}

func parseSteps(t *testing.T, input string) []step {
	t.Helper()
	var steps []step
	for n, line := range strings.Split(input, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		data := []byte(line)
		var s step
		var err error
		switch {
		case json.Member(data, "sessionUpdate") != nil:
			s.update = new(acp.SessionUpdate)
			err = json.Unmarshal(data, s.update)
		case json.Member(data, "requestPermission") != nil:
			s.request = new(acp.RequestPermissionRequest)
			err = json.Unmarshal(json.Member(data, "requestPermission"), s.request)
		case json.Member(data, "resolvePermission") != nil:
			s.resolve = new(resolveStep)
			err = json.Unmarshal(json.Member(data, "resolvePermission"), s.resolve)
		case json.Member(data, "cancel") != nil:
			s.cancel = true
		case json.Member(data, "tick") != nil:
			s.tick = true
		case json.Member(data, "stop") != nil:
			err = json.Unmarshal(json.Member(data, "stop"), &s.stop)
		default:
			err = fmt.Errorf("not an update nor a directive")
		}
		if err != nil {
			t.Fatalf("updates.jsonl line %d: %v", n+1, err)
		}
		steps = append(steps, s)
	}
	return steps
}

// replay drives a fresh Turn and r through the steps the way a front-end does.
func replay(t *testing.T, steps []step, r Renderer) {
	t.Helper()
	turn := toolstate.NewTurn(&toolstate.TurnOptions{Root: goldenRoot})
	render := func(evs ...toolstate.Event) {
		for _, ev := range evs {
			if err := r.Render(ev); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, s := range steps {
		switch {
		case s.update != nil:
			render(turn.Apply(*s.update)...)
		case s.request != nil:
			render(turn.AwaitConfirmation(s.request))
			if tr, ok := r.(*TextRenderer); ok {
				tr.Detach() // where the front-end asks
			}
		case s.resolve != nil:
			render(turn.ResolveConfirmation(s.resolve.ToolCallID, s.resolve.Outcome))
		case s.cancel:
			render(turn.Cancel()...)
		case s.tick:
			if tr, ok := r.(*TextRenderer); ok {
				tr.Tick()
			}
		case s.stop != "":
			if err := r.EndTurn(s.stop); err != nil {
				t.Fatal(err)
			}
			turn = toolstate.NewTurn(&toolstate.TurnOptions{Root: goldenRoot})
		}
	}
}
