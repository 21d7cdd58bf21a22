package store

import (
	"errors"
	"fmt"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/parley-acp/parley/internal/json"
)

func TestSessionRoundTrip(t *testing.T) {
	s, path := openTemp(t)
	ctx := t.Context()
	if err := s.SaveSession(ctx, AgentSession{ID: "s1", Cwd: "/w", ExtraRoots: []string{"/x"}, Title: "fix it"}); err != nil {
		t.Fatal(err)
	}
	entries := []Entry{
		{Kind: EntryMessage, Body: json.RawMessage(`{"role":"user","content":"fix it"}`)},
		{Kind: EntryUpdate, Body: json.RawMessage(`{"sessionUpdate":"user_message_chunk"}`)},
		{Kind: EntryMessage, Body: json.RawMessage(`{"role":"assistant","content":"done"}`)},
	}
	if err := s.AppendEntries(ctx, "s1", entries[:2]); err != nil {
		t.Fatal(err)
	}
	if err := s.AppendEntries(ctx, "s1", entries[2:]); err != nil {
		t.Fatal(err)
	}
	s.Close()

	s, err := Open(path) // as a restarted agent would
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	got, ok, err := s.Session(ctx, "s1")
	if err != nil || !ok {
		t.Fatalf("Session: %v %v", ok, err)
	}
	if got.Cwd != "/w" || got.Title != "fix it" || len(got.ExtraRoots) != 1 || got.ExtraRoots[0] != "/x" {
		t.Errorf("session %+v", got)
	}
	msgs, err := s.Entries(ctx, "s1", EntryMessage)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]Entry{entries[0], entries[2]}, msgs); diff != "" {
		t.Errorf("messages (-want +got):\n%s", diff)
	}
	if err := s.AppendEntries(ctx, "nope", entries); err == nil {
		t.Error("appending to a session that does not exist succeeded")
	}
	if _, ok, _ := s.Session(ctx, "nope"); ok {
		t.Error("found a session that does not exist")
	}
	// A later save without a title keeps the first one.
	if err := s.SaveSession(ctx, AgentSession{ID: "s1", Cwd: "/w2"}); err != nil {
		t.Fatal(err)
	}
	if got, _, _ := s.Session(ctx, "s1"); got.Title != "fix it" || got.Cwd != "/w2" {
		t.Errorf("after resave: %+v", got)
	}
	if err := s.DeleteSession(ctx, "s1"); err != nil {
		t.Fatal(err)
	}
	if msgs, _ := s.Entries(ctx, "s1", EntryMessage); len(msgs) != 0 {
		t.Errorf("entries survive their session: %d", len(msgs))
	}
}

func TestListSessionsPages(t *testing.T) {
	s, _ := openTemp(t)
	ctx := t.Context()
	base := time.UnixMilli(1_700_000_000_000)
	for i := range 7 {
		cwd := "/a"
		if i%2 == 1 {
			cwd = "/b"
		}
		// Two sessions share each time, so the cursor must break ties.
		at := base.Add(time.Duration(i/2) * time.Second)
		if err := s.SaveSession(ctx, AgentSession{ID: fmt.Sprintf("s%d", i), Cwd: cwd, CreatedAt: at, UpdatedAt: at}); err != nil {
			t.Fatal(err)
		}
	}
	var ids []string
	cursor := ""
	for pages := 0; ; pages++ {
		page, next, err := s.ListSessions(ctx, SessionPage{Cursor: cursor, Limit: 3})
		if err != nil {
			t.Fatal(err)
		}
		for _, a := range page {
			ids = append(ids, a.ID)
		}
		if next == "" {
			break
		}
		if pages > 5 {
			t.Fatal("the pages never end")
		}
		cursor = next
	}
	if diff := cmp.Diff([]string{"s6", "s4", "s5", "s2", "s3", "s0", "s1"}, ids); diff != "" {
		t.Errorf("order (-want +got):\n%s", diff)
	}
	onlyB, _, err := s.ListSessions(ctx, SessionPage{Cwd: "/b"})
	if err != nil || len(onlyB) != 3 {
		t.Errorf("cwd filter: %d sessions, %v", len(onlyB), err)
	}
	if _, _, err := s.ListSessions(ctx, SessionPage{Cursor: "!!"}); !errors.Is(err, ErrBadCursor) {
		t.Errorf("bad cursor: %v", err)
	}
}
