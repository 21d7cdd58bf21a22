package acpserver

import (
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// _parley/commands gives the page the table's commands it offers, each with its usage and
// arguments, and none that only a terminal has.
func TestCommandsAreTheTablesForThePage(t *testing.T) {
	got, err := (&conn{}).HandleExtension(t.Context(), parleyapi.MethodCommands, nil, false)
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var resp struct {
		Commands []struct {
			Name, Usage, Summary string
			Args                 []struct {
				Name, Kind string
				Optional   bool
			}
		}
	}
	if err := json.Unmarshal(b, &resp); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	byName := map[string]int{}
	for i, c := range resp.Commands {
		byName[c.Name] = i
		if c.Summary == "" || c.Usage == "" {
			t.Errorf("/%s without its usage or summary: %s", c.Name, b)
		}
	}
	for _, want := range []string{"mode", "model", "config", "undo", "keep"} {
		if _, ok := byName[want]; !ok {
			t.Errorf("no /%s for the page: %s", want, b)
		}
	}
	for _, terminalOnly := range []string{"copy", "find", "quit", "agent", "login"} {
		if _, ok := byName[terminalOnly]; ok {
			t.Errorf("/%s offered to the page, which cannot run it", terminalOnly)
		}
	}
	undo := resp.Commands[byName["undo"]]
	if undo.Usage != "/undo [FILE|TURN…]" || len(undo.Args) != 1 || undo.Args[0].Kind != "change" || !undo.Args[0].Optional {
		t.Errorf("/undo as the page gets it: %+v", undo)
	}
}
