package cli

import (
	"testing"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
)

// TestWaitReadyLeavesWhatCameAfterTheStart: the events taken with the one that opens the
// session stay for the view's loop. Dropping them lost the agent's commands (sent right
// after session/new) once in about thirty chats on a loaded machine.
func TestWaitReadyLeavesWhatCameAfterTheStart(t *testing.T) {
	commands := conversation.Session{Commands: []acp.AvailableCommand{{Name: "flood"}}}
	sub := &events{back: []conversation.Event{
		conversation.Ready{Session: conversation.Session{ID: "s1"}},
		conversation.SessionChanged{Session: commands},
		conversation.ElicitationAsked{ID: 7},
	}}
	s, err := waitReady(nil, sub, nil, false)
	if err != nil || s.ID != "s1" {
		t.Fatalf("waitReady: %+v, %v", s, err)
	}
	select {
	case <-sub.Ready():
	default:
		t.Fatal("nothing is ready after the start")
	}
	rest := sub.Take()
	if len(rest) != 2 {
		t.Fatalf("left %d events, want 2: %+v", len(rest), rest)
	}
	if c, ok := rest[0].(conversation.SessionChanged); !ok || len(c.Session.Commands) != 1 {
		t.Errorf("first left %+v, want the commands", rest[0])
	}
	if _, ok := rest[1].(conversation.ElicitationAsked); !ok {
		t.Errorf("second left %+v, want the question", rest[1])
	}
	if len(sub.Take()) != 0 {
		t.Error("what was left is taken twice")
	}
}
