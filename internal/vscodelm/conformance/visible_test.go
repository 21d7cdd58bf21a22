package conformance

// Issue 26, class 6, for VS Code's language-model provider: the agent's reply and
// thoughts reach VS Code made visible (every invisible or control character as <U+XXXX>,
// judged across chunks), and the history VS Code sends back with that text continues the
// same conversation.

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/vscodelm"
)

// lmHidden are characters of the class, each with how parley shows it.
var lmHidden = []struct{ raw, shown string }{
	{"\U000E0041\U000E0042", "<U+E0041><U+E0042>"}, // tag characters: ASCII smuggled in the text
	{"\u202egnp.exe", "<U+202E>gnp.exe"},           // a bidi override
	{"\u009b2J", "<U+009B>2J"},                     // a C1 control
	{"ex\u00adtra", "ex<U+00AD>tra"},               // the soft hyphen
	{"a\u200bb", "a<U+200B>b"},                     // a zero-width space
	{"rm\ufe0f", "rm<U+FE0F>"},                     // a variation selector after ASCII
}

// lmKept stay as they are, though their joiner or selector comes in a chunk of its own.
var lmKept = []struct{ pieces, shown string }{
	{"\U0001F469|\u200d|\U0001F4BB", "\U0001F469\u200d\U0001F4BB"},
	{"\u26a0|\ufe0f", "\u26a0\ufe0f"},
}

func wantVisible(t *testing.T, where, text string) {
	t.Helper()
	for _, h := range lmHidden {
		if !strings.Contains(text, h.shown) {
			t.Errorf("%s: %+q is not shown as %q:\n%+q", where, h.raw, h.shown, text)
		}
	}
	for _, raw := range []rune{0xE0041, 0x202E, 0x9B, 0xAD, 0x200B} {
		if strings.ContainsRune(text, raw) {
			t.Errorf("%s: %U reached VS Code raw:\n%+q", where, raw, text)
		}
	}
}

func hiddenLine() string {
	var raws []string
	for _, h := range lmHidden {
		raws = append(raws, h.raw)
	}
	return strings.Join(raws, " ")
}

func TestReplyWithHiddenCharactersIsShownAndStillMatches(t *testing.T) {
	prompt := hiddenLine()
	for _, k := range lmKept {
		prompt += "\npieces " + k.pieces
	}
	t.Run("as VS Code echoes it", func(t *testing.T) {
		c := start(t)
		cv := c.conversation(fakeAgent("ok"))
		first := cv.fakeTurn(prompt) // echoed back as "got: <line>", the characters with it
		wantVisible(t, "the reply", first.text)
		for _, k := range lmKept {
			if !strings.Contains(first.text, k.shown) {
				t.Errorf("%+q, streamed in pieces, is not kept as it is:\n%+q", k.shown, first.text)
			}
		}
		second := cv.fakeTurn("after")
		wantOnly(t, second, first.session, 2, "after", "pieces")
		third := cv.fakeTurn("again")
		wantOnly(t, third, first.session, 3, "again", "after")
	})
	t.Run("echoed raw and trimmed", func(t *testing.T) {
		// A client that kept the agent's characters (or trims the reply) still continues
		// the conversation: assistant text compares made visible on both sides.
		c := start(t)
		cv := c.conversation(fakeAgent("ok"))
		parts := c.OK(cv.Send(user(prompt)))
		first := fakeReply(t, parts)
		echo := strings.TrimSpace(first.text)
		for _, h := range lmHidden {
			echo = strings.ReplaceAll(echo, h.shown, h.raw)
		}
		if echo == strings.TrimSpace(first.text) {
			t.Fatalf("the reply %+q shows none of the characters", first.text)
		}
		cv.History = append(cv.History, vscodelm.Message{Role: vscodelm.RoleAssistant, Content: []vscodelm.ContentPart{vscodelm.TextPart(echo)}})
		wantOnly(t, cv.fakeTurn("after"), first.session, 2, "after", "pieces")
	})
	t.Run("thinking", func(t *testing.T) {
		c := start(t)
		id := c.Request("lm/provideLanguageModelChatResponse", map[string]any{
			"modelId": "eliza", "agent": fakeAgent("ok"),
			"messages":     []vscodelm.Message{user("think " + hiddenLine())},
			"capabilities": map[string]any{"parts": []string{"thinking"}},
		})
		var thought strings.Builder
		for _, p := range c.OK(id) {
			if p.Type == "thinking" {
				var v struct{ Value string }
				if err := json.Unmarshal(p.Raw, &v); err != nil {
					t.Fatalf("thinking part %s: %v", p.Raw, err)
				}
				thought.WriteString(v.Value)
			}
		}
		wantVisible(t, "the thought", thought.String())
	})
}

// The model picker shows an agent's name and detail made visible; its id, which the
// client sends back, stays as it is.
func TestModelPickerShowsHiddenCharacters(t *testing.T) {
	c := start(t)
	name := "mine\u202etxt.exe"
	_, result, err := c.Await(c.Request("lm/provideLanguageModelChatInformation", map[string]any{
		"agentServers": map[string]any{name: map[string]any{"command": "/nonexistent/my\u00adagent\u009b"}},
	}))
	if err != nil {
		t.Fatal(err)
	}
	var res struct {
		Models []struct{ ID, Name, Detail string }
	}
	if err := json.Unmarshal(result, &res); err != nil {
		t.Fatal(err)
	}
	for _, m := range res.Models {
		if m.ID != name {
			continue
		}
		if want := "mine<U+202E>txt.exe (parley)"; m.Name != want {
			t.Errorf("name %+q, want %+q", m.Name, want)
		}
		if !strings.Contains(m.Detail, "/nonexistent/my<U+00AD>agent<U+009B>") || strings.ContainsAny(m.Detail, "\u00ad\u009b") {
			t.Errorf("detail %+q, want the command made visible", m.Detail)
		}
		return
	}
	t.Errorf("no model %+q in %s", name, result)
}
