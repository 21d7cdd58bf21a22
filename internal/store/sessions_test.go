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

func TestCheckpointLifecycle(t *testing.T) {
	s, _ := openTemp(t)
	ctx := t.Context()
	if err := s.SaveSession(ctx, AgentSession{ID: "s", Cwd: "/w"}); err != nil {
		t.Fatal(err)
	}
	cp1, err := s.NewCheckpoint(ctx, "s", "first")
	if err != nil {
		t.Fatal(err)
	}
	cp2, err := s.NewCheckpoint(ctx, "s", "second")
	if err != nil || cp1.Number != 1 || cp2.Number != 2 {
		t.Fatalf("numbers %d, %d (%v)", cp1.Number, cp2.Number, err)
	}
	if ok, err := s.RecordOriginal(ctx, cp1.ID, "/w/a", []byte("old"), "h-old"); !ok || err != nil {
		t.Fatalf("first record: %v %v", ok, err)
	}
	if ok, _ := s.RecordOriginal(ctx, cp1.ID, "/w/a", []byte("newer"), "h-newer"); ok {
		t.Error("a second record replaced the first original")
	}
	s.RecordOriginal(ctx, cp1.ID, "/w/new", nil, "")
	if ok, err := s.RecordOriginal(ctx, cp1.ID, "/w/empty", []byte{}, "h-empty"); !ok || err != nil {
		t.Fatalf("an empty original: %v %v", ok, err)
	}
	if got, err := s.Original(ctx, cp1.ID, "/w/empty"); err != nil || got == nil || len(got) != 0 {
		t.Errorf("an empty original came back as %q, %v: it must differ from a created file", got, err)
	}
	s.RecordWritten(ctx, cp1.ID, "/w/a", "h-1")
	s.RecordWritten(ctx, cp1.ID, "/w/new", "h-2")
	if got, err := s.Original(ctx, cp1.ID, "/w/a"); err != nil || string(got) != "old" {
		t.Errorf("original %q %v", got, err)
	}
	if _, err := s.Original(ctx, cp1.ID, "/w/new"); !errors.Is(err, ErrNoOriginal) {
		t.Errorf("created file's original: %v", err)
	}
	all, err := s.Checkpoints(ctx, "s")
	if err != nil {
		t.Fatal(err)
	}
	want := []Checkpoint{
		{ID: cp1.ID, SessionID: "s", Number: 1, Label: "first", Files: []CheckpointFile{
			{Path: "/w/a", Size: 3, Written: "h-1", Status: FilePending},
			{Path: "/w/empty", Written: "h-empty", Status: FilePending},
			{Path: "/w/new", Created: true, Written: "h-2", Status: FilePending},
		}},
		{ID: cp2.ID, SessionID: "s", Number: 2, Label: "second"},
	}
	if diff := cmp.Diff(want, all, cmp.FilterPath(func(p cmp.Path) bool { return p.Last().String() == ".CreatedAt" }, cmp.Ignore())); diff != "" {
		t.Errorf("checkpoints (-want +got):\n%s", diff)
	}
	if err := s.SetFileStatus(ctx, cp1.ID, "/w/a", FileKept); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Original(ctx, cp1.ID, "/w/a"); !errors.Is(err, ErrNoOriginal) {
		t.Errorf("a kept file keeps its original: %v", err)
	}
}

func TestExpireCheckpointsBoundsStorage(t *testing.T) {
	s, _ := openTemp(t)
	ctx := t.Context()
	s.SaveSession(ctx, AgentSession{ID: "s", Cwd: "/w"})
	var ids []int64
	for i := range 4 {
		cp, err := s.NewCheckpoint(ctx, "s", "turn")
		if err != nil {
			t.Fatal(err)
		}
		ids = append(ids, cp.ID)
		s.RecordOriginal(ctx, cp.ID, fmt.Sprintf("/w/f%d", i), make([]byte, 100), "h")
	}
	expired, err := s.ExpireCheckpoints(ctx, "s", 250)
	if err != nil {
		t.Fatal(err)
	}
	if diff := cmp.Diff([]int{1, 2}, expired); diff != "" {
		t.Errorf("expired (-want +got):\n%s", diff)
	}
	if _, err := s.Original(ctx, ids[0], "/w/f0"); !errors.Is(err, ErrNoOriginal) {
		t.Errorf("an expired original is still kept: %v", err)
	}
	if _, err := s.Original(ctx, ids[3], "/w/f3"); err != nil {
		t.Errorf("the newest original is gone: %v", err)
	}
	// The newest checkpoint survives even a budget it alone exceeds.
	if expired, _ := s.ExpireCheckpoints(ctx, "s", 0); len(expired) != 1 || expired[0] != 3 {
		t.Errorf("budget 0 expired %v, want [3]", expired)
	}
}
