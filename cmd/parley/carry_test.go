package main

import (
	"bufio"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// Carrying a conversation on (internal/conversation/carry.go): parley run --continue,
// --session, --fork and --from, and parley sessions, against Eliza, which offers
// session/resume, load and fork and keeps its sessions between processes, and Eliza
// --no-reopen, which offers none of them.

// noReopenEliza is an --agent-command for Eliza without load, resume and fork.
func noReopenEliza(t *testing.T) string { return self(t) + " eliza --no-reopen" }

type keptJSON struct {
	ID, Agent, AgentSessionID, Title, From, How string
	Turns, FromTurns                            int
}

// kept lists the workspace's kept conversations (parley sessions --json).
func kept(t *testing.T, w workspaceFixture) []keptJSON {
	t.Helper()
	r := parleyIn(t, w.dir, w.env, "", "sessions", "--json")
	if r.code != 0 {
		t.Fatalf("parley sessions: exit %d, stderr %s", r.code, r.stderr)
	}
	var out []keptJSON
	sc := bufio.NewScanner(strings.NewReader(r.stdout))
	for sc.Scan() {
		var k keptJSON
		if err := json.Unmarshal(sc.Bytes(), &k); err != nil {
			t.Fatalf("parley sessions --json: %v in %q", err, sc.Text())
		}
		out = append(out, k)
	}
	return out
}

// carriedEvent is the "carried" line of a run's --json output.
func carriedEvent(t *testing.T, r result) (how, session string) {
	t.Helper()
	for _, line := range strings.Split(r.stdout, "\n") {
		var ev struct{ Type, How, SessionID string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "carried" {
			return ev.How, ev.SessionID
		}
	}
	t.Fatalf("no carried event in:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	return "", ""
}

// jsonReplyText is the text of a run's --json output.
func jsonReplyText(r result) string {
	var b strings.Builder
	for _, line := range strings.Split(r.stdout, "\n") {
		var ev struct{ Type, Text string }
		if json.Unmarshal([]byte(line), &ev) == nil && ev.Type == "text" {
			b.WriteString(ev.Text)
		}
	}
	return b.String()
}

func TestRunContinueGoesOnInTheAgentsSession(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	if r := parleyIn(t, w.dir, w.env, "", "run", "hello there"); r.code != 0 {
		t.Fatalf("first run: exit %d, stderr %s", r.code, r.stderr)
	}
	list := kept(t, w)
	if len(list) != 1 || list[0].Agent != "eliza" || list[0].Title != "hello there" || list[0].Turns != 1 || list[0].AgentSessionID != "eliza-1" {
		t.Fatalf("kept after one run: %+v", list)
	}
	r := parleyIn(t, w.dir, w.env, "", "run", "--continue", "--json", "recall")
	if r.code != 0 {
		t.Fatalf("--continue: exit %d, stderr %s", r.code, r.stderr)
	}
	if how, sid := carriedEvent(t, r); how != "resume" || sid != "eliza-1" {
		t.Errorf("--continue went on by %q in %q; want resume in eliza-1", how, sid)
	}
	// The agent's own session: it remembers the first prompt, and sees the second in it.
	if text := jsonReplyText(r); !strings.Contains(text, "I remember 2 prompts in session eliza-1:\n1.\n| hello there\n2.\n| recall") {
		t.Errorf("the agent's reply: %q", text)
	}
	list = kept(t, w)
	if len(list) != 1 || list[0].Turns != 2 {
		t.Errorf("kept after --continue: %+v; want the one conversation, of two turns", list)
	}
	if !strings.Contains(r.stdout, `"conversation":"`+list[0].ID+`"`) {
		t.Errorf("the carried event does not name the conversation the run went on in:\n%s", r.stdout)
	}
	// In words, on stderr, without --json.
	r = parleyIn(t, w.dir, w.env, "", "run", "--session", list[0].ID[:4], "recall")
	if r.code != 0 || !strings.Contains(r.stderr, "going on with conversation "+list[0].ID+" (2 turns) in eliza's session eliza-1 (session/resume)") {
		t.Errorf("--session: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestRunForkUsesSessionForkOrSeeds(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	parleyIn(t, w.dir, w.env, "", "run", "hello there")
	orig := kept(t, w)[0]
	r := parleyIn(t, w.dir, w.env, "", "run", "--fork", orig.ID, "--json", "recall")
	if how, sid := carriedEvent(t, r); how != "fork" || sid == "eliza-1" {
		t.Errorf("--fork with an agent that forks: %q in %q; want fork, in a new session", how, sid)
	}
	if text := jsonReplyText(r); !strings.Contains(text, "I remember 2 prompts in session eliza-2:\n1.\n| hello there") {
		t.Errorf("the fork's reply: %q", text)
	}
	list := kept(t, w)
	if len(list) != 2 || list[0].From != orig.ID || list[0].How != "fork" || list[0].Turns != 2 || list[1].Turns != 1 {
		t.Errorf("kept after the fork: %+v; want the fork (of two turns) from the original, which is as it was", list)
	}

	// An agent that cannot fork gets a new session seeded with the transcript.
	w2 := newWorkspace(t)
	parleyIn(t, w2.dir, w2.env, "", "run", "--agent-command", noReopenEliza(t), "hello there")
	orig = kept(t, w2)[0]
	r = parleyIn(t, w2.dir, w2.env, "", "run", "--fork", orig.ID, "--json", "recall")
	if how, _ := carriedEvent(t, r); how != "seeded" {
		t.Errorf("--fork with an agent that cannot: %q; want seeded", how)
	}
	text := jsonReplyText(r)
	if !strings.Contains(text, "I remember 1 prompts") || !strings.Contains(text, "| | hello there") || !strings.Contains(text, "| recall") {
		t.Errorf("the seeded session's first prompt, as the agent recalls it: %q", text)
	}
}

func TestRunFromHandsTheConversationToAnotherAgent(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	parleyIn(t, w.dir, w.env, "", "run", "my mother is worried about my tests")
	orig := kept(t, w)[0]
	if r := parleyIn(t, w.dir, w.env, "", "run", "--from", orig.ID, "recall"); r.code != 2 || !strings.Contains(r.stderr, "--agent") {
		t.Errorf("--from without --agent: exit %d, stderr %q", r.code, r.stderr)
	}
	r := parleyIn(t, w.dir, w.env, "", "run", "--from", orig.ID, "--agent-command", noReopenEliza(t), "--json", "recall")
	if how, _ := carriedEvent(t, r); how != "seeded" {
		t.Errorf("--from: %q; want seeded", how)
	}
	text := jsonReplyText(r)
	for _, want := range []string{"This conversation goes on from an earlier session with eliza", "| | my mother is worried about my tests", "| recall"} {
		if !strings.Contains(text, want) {
			t.Errorf("the other agent's first prompt lacks %q:\n%s", want, text)
		}
	}
	list := kept(t, w)
	if len(list) != 2 || list[0].From != orig.ID || list[0].Agent == "eliza" || list[0].Turns != 2 {
		t.Errorf("kept after the hand-off: %+v", list)
	}

	// Too long for the budget: summarised, and the summary shown.
	r = parleyIn(t, w.dir, append(w.env, "PARLEY_SEED_BUDGET=200"), "", "run", "--from", orig.ID, "--agent-command", noReopenEliza(t), "recall")
	if r.code != 0 || !strings.Contains(r.stderr, "seeded with a summary of the transcript") || !strings.Contains(r.stderr, "<transcript>") {
		t.Errorf("a summarised hand-off: exit %d, stderr %q", r.code, r.stderr)
	}
}

func TestRunCarryErrors(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	for _, args := range [][]string{
		{"--continue"},
		{"--session", "nothere"},
		{"--continue", "--fork", "x"},
	} {
		r := parleyIn(t, w.dir, w.env, "", append(append([]string{"run"}, args...), "hello")...)
		if r.code != 2 || r.stderr == "" {
			t.Errorf("run %v: exit %d, stderr %q; want a usage error that says why", args, r.code, r.stderr)
		}
	}
}

func TestRunTimeoutCancelsTheTurn(t *testing.T) {
	t.Parallel()
	r := parley(t, "", "run", "--timeout", "200ms", "slowly "+strings.Repeat("word ", 200))
	if r.code != 8 || !strings.Contains(r.stderr, "--timeout") {
		t.Errorf("exit %d, stderr %q; want 8 and the timeout named", r.code, r.stderr)
	}
}

func TestRunAllowAndDenyByKind(t *testing.T) {
	t.Parallel()
	for _, c := range []struct {
		flags []string
		code  int
		reply string
	}{
		{nil, 7, "permission: reject"},
		{[]string{"--allow", "read"}, 7, "permission: reject"},
		{[]string{"--allow", "execute"}, 0, "permission: allow"},
		{[]string{"--allow", "all", "--deny", "execute"}, 7, "permission: reject"},
		{[]string{"--allow", "sideways"}, 2, ""},
	} {
		r := parley(t, "", append(append([]string{"run"}, c.flags...), "request permission deploy")...)
		if r.code != c.code || !strings.Contains(r.stdout, c.reply) {
			t.Errorf("run %v: exit %d, stdout %q, stderr %q; want %d and %q", c.flags, r.code, r.stdout, r.stderr, c.code, c.reply)
		}
	}
}

// /rewind TURN in a chat brings the files back to before the turn and the conversation
// too: the agent's next session starts from before it, and the old one stays kept.
func TestChatRewindTakesFilesAndConversationBack(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := parleyIn(t, w.dir, w.env, "hello there\nwrite file a.txt with changed\n/rewind 1\nrecall\n", "chat", "--plain")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if b, _ := os.ReadFile(filepath.Join(w.dir, "a.txt")); string(b) != "inside" {
		t.Errorf("a.txt after /rewind 1: %q; want it as it was before turn 1", b)
	}
	if !strings.Contains(r.stderr, "a.txt: restored") || !strings.Contains(r.stderr, "Going on in a new session (eliza-2)") {
		t.Errorf("stderr:\n%s", r.stderr)
	}
	// The new session's first prompt carries what came before turn 1, not turn 1.
	if !strings.Contains(r.stdout, "I remember 1 prompts in session eliza-2") || !strings.Contains(r.stdout, "| | hello there") ||
		strings.Contains(r.stdout, "| | write file") {
		t.Errorf("the agent's session after the rewind, as it recalls it:\n%s", r.stdout)
	}
	list := kept(t, w)
	if len(list) != 2 || list[0].From != list[1].ID || list[0].How != "seeded" || list[1].Turns != 2 {
		t.Errorf("kept: %+v; want the rewound conversation, and the old one whole", list)
	}
}

// /fork goes on in a fork; /handoff AGENT with another agent, seeded.
func TestChatForkAndHandoff(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := parleyIn(t, w.dir, w.env, "hello there\n/fork\nrecall\n/handoff eliza\nrecall\n", "chat", "--plain")
	if r.code != 0 {
		t.Fatalf("exit %d, stderr:\n%s", r.code, r.stderr)
	}
	if !strings.Contains(r.stderr, "Going on in a fork of the conversation (1 turn): the agent's session eliza-2 (session/fork)") {
		t.Errorf("/fork: stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "I remember 2 prompts in session eliza-2:\n1.\n| hello there") {
		t.Errorf("the fork, as the agent recalls it:\n%s", r.stdout)
	}
	if !strings.Contains(r.stderr, "goes on with the conversation. Going on in a new session (eliza-3); its first prompt will carry the transcript of 2 turns") {
		t.Errorf("/handoff: stderr:\n%s", r.stderr)
	}
	if !strings.Contains(r.stdout, "I remember 1 prompts in session eliza-3") || !strings.Contains(r.stdout, "| | hello there") {
		t.Errorf("the hand-off, as the agent recalls it:\n%s", r.stdout)
	}
	if list := kept(t, w); len(list) != 3 {
		t.Errorf("kept: %+v; want the conversation, its fork and the hand-off", list)
	}
}

// An agent that loads but does not resume (gemini-cli): --continue loads its session, and
// the replay is not printed before the reply.
func TestRunContinueLoadsWhereTheAgentCannotResume(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	agent := self(t) + " eliza --no-resume"
	first := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", agent, "write file b.txt with once")
	if first.code != 0 || !strings.Contains(first.stdout, "wrote b.txt") {
		t.Fatalf("first run: exit %d, stdout %q, stderr %s", first.code, first.stdout, first.stderr)
	}
	r := parleyIn(t, w.dir, w.env, "", "run", "--agent-command", agent, "--continue", "--json", "recall")
	if how, sid := carriedEvent(t, r); how != "load" || sid != "eliza-1" {
		t.Errorf("--continue went on by %q in %q; want load in eliza-1", how, sid)
	}
	text := jsonReplyText(r)
	if strings.Contains(text, "wrote b.txt") || !strings.Contains(text, "I remember 2 prompts in session eliza-1") {
		t.Errorf("the reply (without the replay): %q", text)
	}
}

// An agent that no longer has the session (its state was cleared): the conversation goes
// on in a new session seeded with the transcript, and parley says why.
func TestRunContinueSeedsWhenTheAgentLostTheSession(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	parleyIn(t, w.dir, w.env, "", "run", "hello there")
	cache := ""
	for _, kv := range w.env {
		if v, ok := strings.CutPrefix(kv, "XDG_CACHE_HOME="); ok {
			cache = v
		}
	}
	if cache == "" {
		t.Fatal("no XDG_CACHE_HOME in the test environment")
	}
	if err := os.RemoveAll(filepath.Join(cache, "parley-eliza")); err != nil {
		t.Fatal(err)
	}
	r := parleyIn(t, w.dir, w.env, "", "run", "--continue", "--json", "recall")
	if how, _ := carriedEvent(t, r); how != "seeded" {
		t.Errorf("--continue after the agent lost its session: %q; want seeded", how)
	}
	if !strings.Contains(r.stdout, `"why":"session/resume`) || !strings.Contains(jsonReplyText(r), "| | hello there") {
		t.Errorf("stdout:\n%s\nstderr:\n%s", r.stdout, r.stderr)
	}
}

// A conversation a client of parley acp (the page, an editor) held is kept as run's are:
// parley sessions lists it once parley acp has ended, and run --continue goes on with it.
func TestACPConversationIsKeptForRunContinue(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	conn, _, _ := startParleyACP(t, w, acp.ClientCapabilities{})
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	defer cancel()
	s, err := conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: w.dir, MCPServers: []acp.MCPServer{}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := promptACP(t, conn, s.SessionID, acp.TextBlock("slowly from the editor")); err != nil {
		t.Fatal(err)
	}
	conn.Close() // parley acp ends with its stdin: its conversations are written before it exits
	list := kept(t, w)
	if len(list) != 1 || list[0].Agent != "eliza" || list[0].Turns != 1 {
		t.Fatalf("kept after parley acp: %+v", list)
	}
	r := parleyIn(t, w.dir, w.env, "", "run", "--continue", "--json", "recall")
	if r.code != 0 || !strings.Contains(jsonReplyText(r), "from the editor") {
		t.Errorf("run --continue after parley acp: exit %d, reply %q, stderr %s", r.code, jsonReplyText(r), r.stderr)
	}
}

// A conversation handed to another agent goes on in its record of changes: the new
// agent's turn is turn 2 of it, and undoing turn 1 still reaches the first agent's file.
func TestRunFromGoesOnInTheRecordOfChanges(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	if r := parleyIn(t, w.dir, w.env, "", "run", "--yolo", "write file one.txt with first"); r.code != 0 {
		t.Fatalf("first run: exit %d, stderr %s", r.code, r.stderr)
	}
	id := kept(t, w)[0].ID
	r := parleyIn(t, w.dir, w.env, "", "run", "--yolo", "--from", id, "--agent-command", noReopenEliza(t), "write file two.txt with second")
	if r.code != 0 {
		t.Fatalf("run --from: exit %d, stderr %s", r.code, r.stderr)
	}
	if r := parleyIn(t, w.dir, w.env, "", "changes"); r.code != 0 || !strings.Contains(r.stderr, "turn 2,") || !strings.Contains(r.stdout, "A two.txt") {
		t.Errorf("parley changes after the hand-off: exit %d\n%s%s\nwant turn 2: A two.txt", r.code, r.stdout, r.stderr)
	}
	if r := parleyIn(t, w.dir, w.env, "", "undo", "--turn", "1"); r.code != 0 || !strings.Contains(r.stdout, "one.txt: deleted") {
		t.Errorf("parley undo --turn 1 after the hand-off: exit %d\n%s%s", r.code, r.stdout, r.stderr)
	}
	if _, err := os.Stat(filepath.Join(w.dir, "one.txt")); !os.IsNotExist(err) {
		t.Errorf("one.txt after undoing turn 1: %v", err)
	}
}
