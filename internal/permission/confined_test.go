package permission

import (
	"context"
	"path/filepath"
	"slices"
	"testing"

	"github.com/parley-acp/parley/acp"
)

// "Allow while confined": offered for a command that runs project code only in a
// Confined session; once given, the same command in the same session is allowed
// unasked, another session still asks, and nothing is remembered.
func TestAllowWhileConfined(t *testing.T) {
	s := openStore(t, filepath.Join(t.TempDir(), "parley.db"))
	tests := execute(`{"command":"go test ./..."}`, "Bash", "go test ./...")
	critical := execute(`{"command":"rm -rf ~"}`, "Bash", "rm -rf ~")
	var offered [][]Answer
	answer := AllowWhileConfined
	p := &Policy{Store: s, Agent: agent, Workspace: workspace, Confined: true, Ask: func(_ context.Context, q *Question) (Answer, error) {
		offered = append(offered, q.Answers)
		if !slices.Contains(q.Answers, answer) {
			return RejectOnce, nil
		}
		return answer, nil
	}}
	decide := func(session acp.SessionID, tc acp.ToolCallUpdate) (string, Decider) {
		t.Helper()
		resp, by, err := p.DecideBy(t.Context(), &acp.RequestPermissionRequest{SessionID: session, ToolCall: tc, Options: codexLike})
		if err != nil {
			t.Fatal(err)
		}
		return outcome(resp), by
	}
	if got, by := decide("s1", tests); got != "approved" || by != DecidedByUser || !slices.Contains(offered[0], AllowWhileConfined) || slices.Contains(offered[0], AllowAlways) {
		t.Fatalf("go test, confined: %s by %s, offered %v; want allow once by the user, while confined offered, always not", got, by, offered[0])
	}
	if got, by := decide("s1", tests); got != "approved" || by != DecidedByConfined || len(offered) != 1 {
		t.Errorf("go test again in the session: %s by %s after %d questions; want allowed while confined, unasked", got, by, len(offered))
	}
	if _, by := decide("s2", tests); by != DecidedByUser || len(offered) != 2 {
		t.Errorf("go test in another session: decided by %s; want a question", by)
	}
	if _, ok, _ := s.Lookup(t.Context(), agent, workspace, p.Subject(tests).Key); ok {
		t.Errorf("allow while confined was remembered")
	}
	decide("s1", critical)
	if slices.Contains(offered[len(offered)-1], AllowWhileConfined) {
		t.Errorf("a critical command offers allow while confined: %v", offered[len(offered)-1])
	}
	p.Confined = false
	if _, by := decide("s1", tests); by != DecidedByUser || slices.Contains(offered[len(offered)-1], AllowWhileConfined) {
		t.Errorf("unconfined: decided by %s, offered %v; want a question without allow while confined", by, offered[len(offered)-1])
	}
}
