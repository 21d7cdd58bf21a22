package conformance

// Issues 19 and 20 in VS Code: what a client that shows more than a model's reply
// (@parley) is told and can do, through parley's additions to the protocol: the
// conversation's usage after each turn, the files each turn changed with their diffs and
// their undo, the agent's questions (elicitations), its settings, and sign-in.

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/vscodelm"
)

// allNotifications is what @parley declares it handles.
var allNotifications = []string{
	vscodelm.NotifyConversation, vscodelm.NotifyUsage, vscodelm.NotifyChanges, vscodelm.NotifyElicitation, vscodelm.NotifySignInRequired,
}

// showing makes a conversation's requests declare the notifications the client handles.
func (cv *conversation) showing(notifications ...string) *conversation {
	cv.Params = func(p *vscodelm.ChatRequestParams) {
		p.Capabilities = &vscodelm.ClientCapabilities{Notifications: notifications}
	}
	return cv
}

// note returns the one notification method of request id, decoded into v; false when
// there is none.
func (c *client) note(id int64, method string, v any) bool {
	c.T.Helper()
	found := false
	for _, n := range c.Notifications(id) {
		if n.Method != method {
			continue
		}
		if found {
			c.T.Fatalf("request %d got %s twice", id, method)
		}
		found = true
		if err := json.Unmarshal(n.Params, v); err != nil {
			c.T.Fatalf("%s: %v", method, err)
		}
	}
	return found
}

// conversationID is the conversation request id continues, from its lm/conversation.
func (c *client) conversationID(id int64) string {
	c.T.Helper()
	var p vscodelm.ConversationParams
	if !c.note(id, vscodelm.NotifyConversation, &p) || p.ConversationID == "" {
		c.T.Fatalf("request %d: no lm/conversation naming the conversation: %+v", id, c.Notifications(id))
	}
	return p.ConversationID
}

func TestUsageAfterATurn(t *testing.T) {
	c := start(t)
	cv := c.conversation(elizaTagged()).showing(allNotifications...)
	id := cv.Send(user("report usage"))
	c.OK(id)
	var u vscodelm.UsageParams
	if !c.note(id, vscodelm.NotifyUsage, &u) {
		t.Fatalf("no lm/usage after a turn that reported usage: %+v", c.Notifications(id))
	}
	if u.Usage == nil || u.Usage.Used != 1200 || u.Usage.Size != 200000 || u.Usage.Cost == nil || u.Usage.Cost.Currency != "USD" {
		t.Errorf("usage %+v, want the agent's usage_update", u.Usage)
	}
	if u.Turn == nil || u.Turn.InputTokens != 1000 || u.Turn.OutputTokens != 200 {
		t.Errorf("turn usage %+v, want the prompt response's", u.Turn)
	}
	if u.ConversationID != c.conversationID(id) {
		t.Errorf("lm/usage names conversation %q", u.ConversationID)
	}
	// A client that did not declare it is told nothing.
	plain := c.conversation(elizaTagged())
	id = plain.Send(user("report usage"))
	c.OK(id)
	if n := c.Notifications(id); len(n) > 0 {
		t.Errorf("notifications %+v to a client that declared none", n)
	}
}

// The files a turn changed come with the turn's answer; their diff shows what the turn
// did; undo restores them, and never overwrites what someone changed since.
func TestChangedFilesReviewAndUndo(t *testing.T) {
	c := start(t)
	dir := c.Cmd.Dir
	cv := c.conversation(elizaTagged()).showing(allNotifications...)
	id := cv.Send(user("write file notes.txt with first words"))
	cv.Record(c.OK(id))
	conv := c.conversationID(id)
	var ch vscodelm.ChangesParams
	if !c.note(id, vscodelm.NotifyChanges, &ch) {
		t.Fatalf("no lm/changes after a turn that wrote a file: %+v", c.Notifications(id))
	}
	path := filepath.Join(dir, "notes.txt")
	if f := ch.Turn.Files; len(f) != 1 || f[0].Path != path || f[0].Kind != "A" || f[0].Added != 1 || !f[0].Undoable {
		t.Fatalf("changed files %+v, want notes.txt created (+1), undoable", ch.Turn.Files)
	}

	var d parleyapi.DiffResult
	c.Result(c.Request("lm/diff", vscodelm.DiffParams{ConversationID: conv, Path: path}), &d)
	if d.Before != nil || d.After == nil || *d.After != "first words\n" || !strings.Contains(d.Unified, "+first words") {
		t.Errorf("diff %+v, want nothing before and the text after", d)
	}

	var list parleyapi.ChangesResult
	c.Result(c.Request("lm/changes", vscodelm.ConversationRequest{ConversationID: conv}), &list)
	if len(list.Turns) != 1 || list.Turns[0].Number != ch.Turn.Number {
		t.Errorf("lm/changes %+v, want the one turn", list)
	}

	var undone parleyapi.UndoResult
	c.Result(c.Request("lm/undo", vscodelm.UndoParams{ConversationID: conv, Turn: ch.Turn.Number}), &undone)
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("notes.txt is still there after the undo (%v)", err)
	}
	if len(undone.Files) != 1 || undone.Files[0].Did != "deleted" || undone.Record == nil {
		t.Errorf("undo %+v, want notes.txt deleted, and the undo's own record", undone)
	}

	// Written again, then changed by hand: the undo stops, names the file, and the hand
	// edit stays.
	id = cv.Send(user("write file notes.txt with second words"))
	cv.Record(c.OK(id))
	if !c.note(id, vscodelm.NotifyChanges, &ch) {
		t.Fatalf("no lm/changes for the second write")
	}
	if err := os.WriteFile(path, []byte("a hand edit\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	err := c.Fails(c.Request("lm/undo", vscodelm.UndoParams{ConversationID: conv, Turn: ch.Turn.Number}), parleyapi.CodeUndoConflict)
	var conflict parleyapi.ConflictData
	if json.Unmarshal(err.Data, &conflict) != nil || len(conflict.Conflicts) != 1 || conflict.Conflicts[0].Path != path || !conflict.Conflicts[0].Since {
		t.Fatalf("conflict %v (data %s), want notes.txt changed since the turn", err, err.Data)
	}
	if got, _ := os.ReadFile(path); string(got) != "a hand edit\n" {
		t.Errorf("notes.txt holds %q after the refused undo, want the hand edit", got)
	}
	c.Result(c.Request("lm/diff", vscodelm.DiffParams{ConversationID: conv, Path: path, Turn: ch.Turn.Number, Since: true}), &d)
	if !d.ChangedSince || !strings.Contains(d.Unified, "+a hand edit") || !strings.Contains(d.Unified, "-second words") {
		t.Errorf("the diff since the turn %+v, want the hand edit", d)
	}
	c.Fails(c.Request("lm/diff", vscodelm.DiffParams{ConversationID: "c99", Path: path}), -32602)
}

// The agent's question reaches a client that shows it, while the request stays open; an
// answer the form refuses is an error naming the field, and the question stays; the
// answer it takes reaches the agent. A client that shows none gets none: parley declines.
func TestElicitationIsShownAndAnswered(t *testing.T) {
	c := start(t)
	cv := c.conversation(elizaTagged()).showing(allNotifications...)
	id := cv.Send(user("ask me about tests"))
	c.WaitFor("the agent's question", func() bool {
		for _, n := range c.Notifications(id) {
			if n.Method == vscodelm.NotifyElicitation {
				return true
			}
		}
		return c.Answered(id)
	})
	var q vscodelm.ElicitationParams
	if !c.note(id, vscodelm.NotifyElicitation, &q) {
		t.Fatalf("the request ended without the question: %q", textOf(c.Parts(id)))
	}
	e := q.Elicitation
	fields := map[string]vscodelm.FieldWire{}
	for _, f := range e.Fields {
		fields[f.Name] = f
	}
	if e.Mode != "form" || !e.Answerable || fields["name"].Kind != "text" || !fields["name"].Required ||
		fields["color"].Kind != "choice" || len(fields["color"].Choices) != 3 || fields["subscribe"].Kind != "boolean" {
		t.Fatalf("question %+v, want the form's three fields", e)
	}
	if c.Answered(id) {
		t.Fatal("the request ended while the agent waits for the answer")
	}
	err := c.Fails(c.Request("lm/answerElicitation", vscodelm.AnswerElicitationParams{ConversationID: q.ConversationID, ID: e.ID, Action: "accept",
		Content: map[string]any{"color": "purple", "name": "Ada"}}), -32602)
	if !strings.Contains(err.Message, "olour") || strings.Contains(err.Message, "purple") {
		t.Errorf("refused answer: %q, want it to name the field and not quote the value", err.Message)
	}
	c.Result(c.Request("lm/answerElicitation", vscodelm.AnswerElicitationParams{ConversationID: q.ConversationID, ID: e.ID, Action: "accept",
		Content: map[string]any{"color": "green", "name": "Ada", "subscribe": true}}), &struct{}{})
	if got := textOf(c.OK(id)); !strings.Contains(got, `you answered: color="green", name="Ada", subscribe=true`) {
		t.Errorf("reply %q, want the answer given to the agent", got)
	}
	// Without lm/elicitation, nobody could answer: declined, and the turn goes on.
	if got := c.conversation(elizaTagged()).Turn("ask me about tests"); !strings.Contains(got, "you chose to decline") {
		t.Errorf("reply %q, want the question declined", got)
	}
}

// lm/cancel while the agent waits for an answer: the question is cancelled, the request
// answered -32800, and the conversation goes on.
func TestCancelWhileAQuestionWaits(t *testing.T) {
	c := start(t)
	cv := c.conversation(elizaTagged()).showing(allNotifications...)
	id := cv.Send(user("ask me about tests"))
	c.WaitFor("the agent's question", func() bool { return len(c.Notifications(id)) > 1 || c.Answered(id) })
	c.Cancel(id)
	wantCancelled(t, c.Fails(id, -32800))
	if got := cv.Turn(alike); !isAlikeReply(got) {
		t.Errorf("the next turn: %q, want an answer to %q", got, alike)
	}
}

// The session's settings, listed and changed; the agent then uses what was set.
func TestSettings(t *testing.T) {
	c := start(t)
	cv := c.conversation(elizaTagged()).showing(allNotifications...)
	id := cv.Send(user("offer settings"))
	cv.Record(c.OK(id))
	conv := c.conversationID(id)
	var got vscodelm.SettingsResult
	c.Result(c.Request("lm/settings", vscodelm.ConversationRequest{ConversationID: conv}), &got)
	byID := map[string]vscodelm.SettingWire{}
	for _, s := range got.Settings {
		byID[s.ID] = s
	}
	if m := byID["mood"]; m.Kind != "select" || m.Current != "calm" || len(m.Values) != 3 || byID["verbose"].Kind != "boolean" {
		t.Fatalf("settings %+v, want the mood (calm of three) and verbose", got)
	}
	err := c.Fails(c.Request("lm/setConfig", vscodelm.SetConfigParams{ConversationID: conv, ID: "mood", Value: "furious"}), -32602)
	if !strings.Contains(err.Message, "cheerful") {
		t.Errorf("an unknown value: %q, want the values listed", err.Message)
	}
	c.Result(c.Request("lm/setConfig", vscodelm.SetConfigParams{ConversationID: conv, ID: "mood", Value: "cheerful"}), &got)
	c.Result(c.Request("lm/setConfig", vscodelm.SetConfigParams{ConversationID: conv, ID: "verbose", Value: "true"}), &got)
	for _, s := range got.Settings {
		byID[s.ID] = s
	}
	if byID["mood"].Current != "cheerful" || byID["verbose"].Current != "true" {
		t.Errorf("settings after setting them: %+v", got)
	}
	if reply := cv.Turn("show settings"); !strings.Contains(reply, "mood=cheerful") || !strings.Contains(reply, "verbose=true") {
		t.Errorf("the agent says %q, want what was set", reply)
	}
}

// An agent that needs a sign-in: the reply says so with the parley command for each
// method, @parley is told the methods, and once the user signed in (lm/signedIn) the
// next request gets a new process, which knows it, and the message the agent could not
// take reaches it as context.
func TestSignInRequired(t *testing.T) {
	marker := filepath.Join(t.TempDir(), "signed-in")
	c := start(t)
	agent := fakeAgent("auth", fakeAuthEnv+"="+marker)
	cv := c.conversation(agent).showing(allNotifications...)
	id := cv.Send(user("first question"))
	parts := c.OK(id)
	text := textOf(parts)
	if !strings.Contains(text, "needs you to sign in") || !strings.Contains(text, "parley login --agent-command") || !strings.Contains(text, "--method token") {
		t.Fatalf("reply %q, want the sign-in and its command", text)
	}
	var s vscodelm.SignInRequiredParams
	if !c.note(id, vscodelm.NotifySignInRequired, &s) || len(s.Methods) != 1 || s.Methods[0].ID != "token" || s.Methods[0].Kind != "agent" {
		t.Fatalf("lm/signInRequired %+v, want the token method", s)
	}
	if cmd := s.Methods[0].Command; len(cmd) < 4 || cmd[0] != "login" || cmd[len(cmd)-2] != "--method" || cmd[len(cmd)-1] != "token" {
		t.Errorf("the method's command %q, want parley login … --method token", cmd)
	}
	cv.Record(parts)
	if err := os.WriteFile(marker, nil, 0o600); err != nil {
		t.Fatal(err)
	}
	c.Notify("lm/signedIn", vscodelm.SignedInParams{ModelID: "fake-auth", Agent: agent})
	r := cv.fakeTurn("second question")
	if !strings.Contains(r.text, "got: second question") || !strings.Contains(r.text, "first question") {
		t.Errorf("after signing in: %q, want the new message answered and the first one given as context", r.text)
	}
}
