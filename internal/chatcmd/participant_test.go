package chatcmd

import (
	"os"
	"slices"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// @parley's commands in the extension's package.json are the table's commands offered to
// the participant, and say what the table says they take.
func TestParticipantCommandsAreTheTables(t *testing.T) {
	b, err := os.ReadFile("../../editors/vscode/package.json")
	if err != nil {
		t.Fatal(err)
	}
	var pkg struct {
		Contributes struct {
			ChatParticipants []struct {
				ID       string `json:"id"`
				Commands []struct {
					Name        string `json:"name"`
					Description string `json:"description"`
				} `json:"commands"`
			} `json:"chatParticipants"`
		} `json:"contributes"`
	}
	if err := json.Unmarshal(b, &pkg); err != nil {
		t.Fatal(err)
	}
	if len(pkg.Contributes.ChatParticipants) == 0 {
		t.Fatal("package.json declares no chat participant")
	}
	var want []string
	for _, c := range For(Participant) {
		want = append(want, c.Name)
	}
	for _, p := range pkg.Contributes.ChatParticipants {
		var got []string
		for _, c := range p.Commands {
			got = append(got, c.Name)
			cmd, ok := Lookup(c.Name)
			if !ok || !cmd.Offered(Participant) {
				t.Errorf("%s offers /%s, which the table does not give @parley", p.ID, c.Name)
				continue
			}
			if c.Description == "" {
				t.Errorf("%s: /%s has no description", p.ID, c.Name)
			}
		}
		slices.Sort(got)
		slices.Sort(want)
		if !slices.Equal(got, want) {
			t.Errorf("%s offers %q; the table gives @parley %q", p.ID, got, want)
		}
	}
}
