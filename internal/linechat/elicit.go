package linechat

import (
	"fmt"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
)

// An elicitation (the agent asking the user something) is asked on the terminal like a
// permission question, by the goroutine that reads the input: a form one field at a time,
// then a summary to send, start over, decline or cancel; a URL shown whole with its host
// (and a warning when the host may imitate another name), opened only once the user says
// so. As for permission questions, only what is typed once the question is on screen
// answers it. A secret field is typed without echo, and its value is never shown back.

// elicitScreen is an elicitation on screen.
type ElicitScreen struct {
	conversation.ElicitationAsked
	send   func(conversation.ElicitationAnswer) error // the conversation's AnswerElicitation
	con    *Console
	in     *Prompter
	mark   uint64
	field  int            // the field being asked; len(Fields) is the summary
	values map[string]any // the answers so far
	hidden bool           // the terminal's echo is off for a secret field
	done   bool           // answered
	// pending is what to say before the next prompt (why an answer was refused): it is
	// written after the discard of what was typed, like the prompt, so that a line
	// typed as soon as it shows is never discarded.
	pending string
}

// showElicitation puts e on screen and asks its first question; send answers it.
func (c *Console) ShowElicitation(e conversation.ElicitationAsked, send func(conversation.ElicitationAnswer) error, in *Prompter) *ElicitScreen {
	s := &ElicitScreen{ElicitationAsked: e, send: send, con: c, in: in, values: map[string]any{}}
	c.mu.Lock()
	if c.live != nil {
		c.live.Detach()
	}
	c.flush()
	c.mu.Unlock()
	el := e.Elicitation
	var b strings.Builder
	if s.own() {
		fmt.Fprintf(&b, "\n%s\n", indentSafe(el.Message))
	} else {
		fmt.Fprintf(&b, "\nThe agent (%s) asks: %s\n", OneLineSafe(el.Agent), indentSafe(el.Message))
	}
	switch {
	case el.URL != nil:
		u := el.URL
		fmt.Fprintf(&b, "  It asks you to open this page:\n    %s\n  host: %s\n", OneLineSafe(u.URL), OneLineSafe(u.Host))
		if u.Punycode {
			b.WriteString("  Warning: the host name has international characters (punycode): it may imitate another site's name.\n")
		}
		s.write(b.String())
		s.askURL()
	case el.Form != nil:
		f := el.Form
		if f.Title != "" {
			fmt.Fprintf(&b, "  %s\n", OneLineSafe(f.Title))
		}
		if f.Description != "" {
			fmt.Fprintf(&b, "  %s\n", indentSafe(f.Description))
		}
		if !f.Answerable {
			b.WriteString("  parley cannot show every field of this form.\n")
			s.write(b.String())
			s.field = len(f.Fields)
			s.ask("  [d] decline [c] cancel\n? ")
			return s
		}
		b.WriteString("  One field at a time: an empty line keeps the default or skips an optional field; /decline or /cancel answers the whole form.\n")
		s.write(b.String())
		s.next(0)
	}
	return s
}

func (s *ElicitScreen) write(text string) { fmt.Fprint(s.con.stderr, text) }

// own reports a form of parley's own (ID 0: the variables of a sign-in), sent once its
// last field is answered, without the summary an agent's form gets.
func (s *ElicitScreen) own() bool { return s.ID == 0 }

// ask shows a prompt: what was typed before it is discarded first.
func (s *ElicitScreen) ask(prompt string) {
	s.mark = s.discard()
	s.write(s.pending + prompt)
	s.pending = ""
}

// refuse says why an answer did not do, before the next prompt.
func (s *ElicitScreen) refuse(why string) { s.pending += "  " + why + "\n" }

func (s *ElicitScreen) discard() uint64 {
	if s.in == nil {
		return 0
	}
	mark, _ := s.in.DiscardTypeAhead()
	return mark
}

func (s *ElicitScreen) askURL() {
	s.ask("  [o] open it in your browser  [a] I will open it myself  [d] decline  [c] cancel\n? ")
}

// next asks field i, or shows the summary after the last one. Fields parley cannot ask
// (optional ones of a kind it does not know) are skipped.
func (s *ElicitScreen) next(i int) {
	fields := s.Elicitation.Form.Fields
	for i < len(fields) && fields[i].Kind == conversation.FieldUnknown {
		i++
	}
	s.field = i
	if i == len(fields) {
		if s.own() {
			s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionAccept, Content: s.values})
			return
		}
		s.summary()
		return
	}
	f := fields[i]
	var b strings.Builder
	fmt.Fprintf(&b, "  %s", OneLineSafe(f.Label()))
	if hint := f.Hint(); hint != "" {
		fmt.Fprintf(&b, " (%s)", OneLineSafe(hint))
	}
	if f.Description != "" {
		fmt.Fprintf(&b, "\n    %s", indentSafe(f.Description))
	}
	for n, c := range f.Choices {
		fmt.Fprintf(&b, "\n    %d) %s", n+1, OneLineSafe(c.Value))
		if c.Title != "" && c.Title != c.Value {
			fmt.Fprintf(&b, " — %s", OneLineSafe(c.Title))
		}
		if c.Description != "" {
			fmt.Fprintf(&b, ": %s", OneLineSafe(c.Description))
		}
	}
	if f.Default != nil && !f.Secret {
		fmt.Fprintf(&b, "\n    default: %s", OneLineSafe(f.Show(f.Default)))
	}
	b.WriteString("\n  > ")
	if f.Secret {
		if err := s.in.hideInput(true); err != nil {
			s.write(s.pending + fmt.Sprintf("  %s: it is secret, and %v: the form is cancelled.\n", OneLineSafe(f.Label()), err))
			s.pending = ""
			s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionCancel})
			return
		}
		s.hidden = true
		b.WriteString("(hidden) ")
	}
	s.ask(b.String())
}

func (s *ElicitScreen) summary() {
	var b strings.Builder
	b.WriteString("  Your answers:\n")
	for _, f := range s.Elicitation.Form.Fields {
		v, ok := s.values[f.Name]
		if !ok {
			continue
		}
		fmt.Fprintf(&b, "    %s: %s\n", OneLineSafe(f.Label()), OneLineSafe(f.Show(v)))
	}
	s.ask(b.String() + "  [y] send  [r] start over  [d] decline  [c] cancel\n? ")
}

// read takes a line typed while the elicitation is on screen: done once it is answered
// (quit: /quit, which cancels it and leaves).
func (s *ElicitScreen) Read(l InputLine) (done, quit bool) {
	if s.hidden {
		s.in.hideInput(false)
		s.hidden = false
		s.write("\n")
	}
	if l.Epoch < s.mark {
		s.refuse("(ignored what was typed before the question)")
		s.again()
		return false, false
	}
	text := strings.TrimSpace(l.Text)
	switch text {
	case "/quit", "/exit":
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionCancel}), true
	case "/decline":
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionDecline}), false
	case "/cancel":
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionCancel}), false
	}
	el := s.Elicitation
	switch {
	case el.URL != nil:
		return s.readURL(text), false
	case s.field >= len(el.Form.Fields):
		return s.readSummary(text), false
	}
	f := el.Form.Fields[s.field]
	v, err := f.Parse(l.Text)
	if err != nil {
		s.refuse(fmt.Sprintf("✗ %v", err)) // the error never quotes what was typed
		s.next(s.field)
		return false, false
	}
	if v == nil {
		delete(s.values, f.Name)
	} else {
		s.values[f.Name] = v
	}
	s.next(s.field + 1) // the last one of parley's own form sends it
	return s.done, false
}

// again asks the current question again.
func (s *ElicitScreen) again() {
	switch {
	case s.Elicitation.URL != nil:
		s.askURL()
	case s.field >= len(s.Elicitation.Form.Fields):
		if s.Elicitation.Form.Answerable {
			s.summary()
		} else {
			s.ask("  [d] decline [c] cancel\n? ")
		}
	default:
		s.next(s.field)
	}
}

func (s *ElicitScreen) readSummary(text string) bool {
	switch strings.ToLower(text) {
	case "y", "yes", "s", "send":
		if !s.Elicitation.Form.Answerable {
			break
		}
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionAccept, Content: s.values})
	case "r":
		if !s.Elicitation.Form.Answerable {
			break
		}
		s.values = map[string]any{}
		s.next(0)
		return false
	case "d", "decline":
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionDecline})
	case "c", "cancel":
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionCancel})
	}
	s.again()
	return false
}

func (s *ElicitScreen) readURL(text string) bool {
	u := s.Elicitation.URL
	switch strings.ToLower(text) {
	case "o", "open":
		if err := conversation.CheckPageURL(u.URL); err != nil { // the core declined it already; a second look costs nothing
			s.write(fmt.Sprintf("  parley will not open it: %v\n", err))
			return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionDecline})
		}
		if err := s.con.open(u.URL); err != nil {
			s.write(fmt.Sprintf("  parley could not open it (%v): open it yourself.\n", err))
		} else {
			s.write("  (opened in your browser)\n")
		}
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionAccept})
	case "a":
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionAccept})
	case "d", "decline":
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionDecline})
	case "c", "cancel":
		return s.answer(conversation.ElicitationAnswer{Action: acp.ElicitationActionCancel})
	}
	s.askURL()
	return false
}

// answer sends the answer; false (and the form asked again) when the conversation
// refused it as invalid.
func (s *ElicitScreen) answer(a conversation.ElicitationAnswer) bool {
	if err := s.send(a); err != nil {
		s.refuse(fmt.Sprintf("✗ %v", err))
		if s.Elicitation.Form != nil && s.Elicitation.Form.Answerable {
			s.values = map[string]any{}
			s.next(0)
		}
		return false
	}
	s.done = true
	return true
}

// cancelled answers the elicitation "cancel" (Ctrl-C, the end of the input).
func (s *ElicitScreen) Cancelled() {
	if s.hidden {
		s.in.hideInput(false)
		s.hidden = false
	}
	s.send(conversation.ElicitationAnswer{Action: acp.ElicitationActionCancel})
}

// indentSafe is the agent's text made safe to print, its later lines indented.
func indentSafe(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i, l := range lines {
		lines[i] = OneLineSafe(l)
	}
	return strings.Join(lines, "\n    ")
}
