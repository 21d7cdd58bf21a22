package store

import (
	"errors"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
)

func TestTranscripts(t *testing.T) {
	s, path := openTemp(t)
	ctx := t.Context()
	first := TranscriptTurn{Prompt: "fix the tests", Reply: "done", Stop: "end_turn", ChangeTurn: 1,
		Tools: []TranscriptTool{{Title: "Edit a.go", Kind: "edit", Status: "completed"}}}
	id, err := s.CreateTranscript(ctx, Transcript{Workspace: "/w", Agent: "eliza", AgentSession: "eliza-1"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.AppendTranscriptTurn(ctx, id, "fix the tests", first); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendTranscriptTurn(ctx, id, "ignored: it has a title", TranscriptTurn{Prompt: "and the docs", Reply: "ok"}); err != nil {
		t.Fatal(err)
	}
	// A fork starts with the turns it carries on.
	fork, err := s.CreateTranscript(ctx, Transcript{Workspace: "/w", Agent: "eliza", AgentSession: "eliza-2", FromID: id, FromTurn: 1, How: "fork"}, []TranscriptTurn{first})
	if err != nil {
		t.Fatal(err)
	}
	other, _ := s.CreateTranscript(ctx, Transcript{Workspace: "/elsewhere", Agent: "eliza"}, nil)
	s.Close()

	s, err = Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, ok, err := s.FindTranscript(ctx, id[:5])
	if err != nil || !ok || got.ID != id || got.Title != "fix the tests" || got.Turns != 2 || got.How != "new" {
		t.Fatalf("FindTranscript(%s) = %+v %v %v", id[:5], got, ok, err)
	}
	turns, err := s.TranscriptTurns(ctx, id)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff(first, turns[0], cmpopts.IgnoreFields(TranscriptTurn{}, "EndedAt")); diff != "" || len(turns) != 2 {
		t.Errorf("turns (-want +got):\n%s", diff)
	}
	if got, ok, _ := s.TranscriptOfSession(ctx, "/w", "eliza", "eliza-2"); !ok || got.ID != fork || got.Turns != 1 || got.FromID != id {
		t.Errorf("TranscriptOfSession = %+v %v", got, ok)
	}
	list, err := s.ListTranscripts(ctx, "/w")
	if err != nil || len(list) != 2 {
		t.Fatalf("ListTranscripts = %+v %v", list, err)
	}
	if last, ok, _ := s.LastTranscript(ctx, "/elsewhere", "eliza"); !ok || last.ID != other {
		t.Errorf("LastTranscript = %+v %v", last, ok)
	}
	if _, ok, _ := s.LastTranscript(ctx, "/w", "claude"); ok {
		t.Error("LastTranscript found a conversation with another agent")
	}
	if _, ok, err := s.FindTranscript(ctx, "%"); ok || err != nil {
		t.Errorf("FindTranscript(%%) = %v %v", ok, err)
	}
	if _, _, err := s.FindTranscript(ctx, ""); err != nil {
		t.Error(err)
	}
	// Two ids share their first hex digit one time in sixteen: make them.
	a, _ := s.CreateTranscript(ctx, Transcript{ID: "abc00001", Workspace: "/w", Agent: "eliza"}, nil)
	s.CreateTranscript(ctx, Transcript{ID: "abc00002", Workspace: "/w", Agent: "eliza"}, nil)
	if _, _, err := s.FindTranscript(ctx, "abc"); !errors.Is(err, ErrAmbiguous) {
		t.Errorf("an ambiguous prefix: %v", err)
	}
	if got, ok, _ := s.FindTranscript(ctx, a); !ok || got.ID != a {
		t.Errorf("a whole id: %+v %v", got, ok)
	}
}
