package vscodelm

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changesrpc"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/toolui"
)

// What the worker tells a client that shows more than a model's reply (@parley), as
// notifications about the open request (wire_features.go): the conversation it
// continues, the usage after each turn, the files each turn changed, the agent's
// questions, and that the agent needs a sign-in. Like parts, a notification that comes
// while no request is open is held for the next one.

// note is a notification about the open request; params takes the request's id.
type note struct {
	method string
	params func(requestID json.RawMessage) any
}

// emitNote sends a notification the client declared it handles.
func (w *worker) emitNote(method string, params func(requestID json.RawMessage) any) {
	if !w.caps.Handles(method) {
		return
	}
	w.emit(said{note: &note{method: method, params: params}, transient: true})
}

// openExchange makes r the open request: the client learns which conversation it
// continues, and what was held for it goes out.
func (w *worker) openExchange(r *chatRequest) {
	w.open, w.answer = r, nil
	if w.caps.Handles(NotifyConversation) {
		w.s.notify(r, NotifyConversation, ConversationParams{RequestID: r.id, ConversationID: w.convID})
	}
	w.flush()
}

// noteUsage tells the client what the agent reported of its usage, after a turn.
func (w *worker) noteUsage(e conversation.TurnEnded) {
	usage := w.session.Usage
	if usage == nil && e.Usage == nil {
		return
	}
	conv := w.convID
	w.emitNote(NotifyUsage, func(id json.RawMessage) any {
		return UsageParams{RequestID: id, ConversationID: conv, Usage: usage, Turn: e.Usage}
	})
}

// noteChanges tells the client which files a turn changed, if it changed any.
func (w *worker) noteChanges(e conversation.TurnChanges) {
	if e.Err != nil {
		w.logger.Warn("the record of the turn's changes is incomplete", "error", e.Err)
	}
	if len(e.Record.Changes) == 0 {
		return
	}
	conv, turn := w.convID, changesrpc.Turn(e.Record)
	w.emitNote(NotifyChanges, func(id json.RawMessage) any {
		return ChangesParams{RequestID: id, ConversationID: conv, Turn: turn}
	})
}

// onElicitation shows the agent's question to a client that can answer it; for another
// one, nobody can, and it is declined (the turn goes on).
func (w *worker) onElicitation(e conversation.ElicitationAsked) {
	if !w.caps.Handles(NotifyElicitation) || w.turn == nil || w.turn.draining {
		w.logger.Debug("declined the agent's question: this client cannot show it", "message", e.Elicitation.Message)
		w.conv.AnswerElicitation(e.ID, conversation.ElicitationAnswer{Action: acp.ElicitationActionDecline})
		return
	}
	w.elicits = append(w.elicits, e.ID)
	conv, el := w.convID, elicitationWire(e.ID, e.Elicitation)
	w.emitNote(NotifyElicitation, func(id json.RawMessage) any {
		return ElicitationParams{RequestID: id, ConversationID: conv, Elicitation: el}
	})
}

// onElicitationClosed forgets a question that was answered or withdrawn.
func (w *worker) onElicitationClosed(id int) {
	w.elicits = slices.DeleteFunc(w.elicits, func(x int) bool { return x == id })
}

// cancelElicitations answers the questions still open "cancel": their turn is over or
// cancelled.
func (w *worker) cancelElicitations() {
	for _, id := range w.elicits {
		w.conv.AnswerElicitation(id, conversation.ElicitationAnswer{Action: acp.ElicitationActionCancel})
	}
	w.elicits = nil
}

func elicitationWire(id int, e *conversation.Elicitation) ElicitationWire {
	out := ElicitationWire{ID: id, Agent: e.Agent, Message: e.Message, Mode: string(e.Mode)}
	if f := e.Form; f != nil {
		out.Title, out.Description, out.Answerable = f.Title, f.Description, f.Answerable
		for _, field := range f.Fields {
			fw := FieldWire{
				Name: field.Name, Title: field.Label(), Description: field.Description, Kind: string(field.Kind),
				Required: field.Required, Secret: field.Secret, Default: field.Default,
				MinLength: field.MinLength, MaxLength: field.MaxLength, Pattern: field.Pattern, Format: field.Format,
				Min: field.Min, Max: field.Max, MinItems: field.MinItems, MaxItems: field.MaxItems,
			}
			if field.Secret {
				fw.Default = nil // never shown
			}
			for _, c := range field.Choices {
				title := c.Title
				if title == "" {
					title = c.Value
				}
				fw.Choices = append(fw.Choices, ChoiceWire{Value: c.Value, Title: title, Description: c.Description})
			}
			out.Fields = append(out.Fields, fw)
		}
	}
	if u := e.URL; u != nil {
		out.Answerable = true
		out.URL = &URLWire{URL: u.URL, Host: u.Host, Punycode: u.Punycode}
	}
	return out
}

// signIn answers request r, which the agent cannot serve before the user signs in: its
// reply says so, with the parley command that signs in with each of the agent's methods,
// and a client that handles lm/signInRequired is told the methods (@parley offers them).
// The request completes normally (VS Code shows the reply); what it carried was not
// prompted, and is context for the next prompt.
func (w *worker) signIn(r *chatRequest, ae *conversation.AuthRequiredError) {
	if w.open != r {
		w.openExchange(r)
	}
	methods := make([]parleyapi.SignInMethod, 0, len(ae.Methods))
	for _, m := range ae.Methods {
		sm := parleyapi.SignInMethod{ID: m.ID, Name: m.Name, Description: m.Description, Kind: string(m.Kind), Command: w.s.loginArgs(w.def, string(m.ID)),
			Effect: m.Effect(), Refused: m.Refused}
		for _, v := range m.Vars {
			sm.Vars = append(sm.Vars, v.Name)
		}
		methods = append(methods, sm)
	}
	// The agent's name and its methods' names and reasons, made visible.
	w.emit(said{part: TextPart(toolui.SafeText(signInText(ae.Agent, methods))), display: true})
	agent, model := ae.Agent, r.params.ModelID
	w.emitNote(NotifySignInRequired, func(id json.RawMessage) any {
		return SignInRequiredParams{RequestID: id, Agent: agent, ModelID: model, Methods: methods}
	})
	w.endExchange("signin", nil)
}

// signInText says, in Markdown, that the agent needs a sign-in and how to do it.
func signInText(agent string, methods []parleyapi.SignInMethod) string {
	var b strings.Builder
	fmt.Fprintf(&b, "**%s needs you to sign in** before it can answer.\n\n", agent)
	if len(methods) == 0 {
		b.WriteString("It offers no sign-in method parley can carry out: sign in with the agent's own tools, then send your message again.\n")
		return b.String()
	}
	b.WriteString("To sign in, run one of these in a terminal, then send your message again:\n\n")
	for _, m := range methods {
		if m.Refused != "" {
			fmt.Fprintf(&b, "- %s: parley refuses it: %s\n", m.Name, m.Refused)
			continue
		}
		fmt.Fprintf(&b, "- %s: `parley %s`", m.Name, safety.JoinArgv(m.Command))
		if m.Kind == string(conversation.AuthTerminal) {
			b.WriteString(" (it shows the whole program it runs and asks first)")
		}
		if len(m.Vars) > 0 {
			fmt.Fprintf(&b, " (after setting %s)", strings.Join(m.Vars, ", "))
		}
		b.WriteString("\n")
	}
	return b.String()
}

// authRequired returns the sign-in the error asks for, if it does.
func authRequired(err error) (*conversation.AuthRequiredError, bool) {
	return errors.AsType[*conversation.AuthRequiredError](err)
}
