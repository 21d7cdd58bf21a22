package acpserver

import (
	"context"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/toolui"
)

// Sign-in and elicitations, relayed. A sign-in is parley's to run (it starts the agent
// again, or calls its authenticate): the page is told which methods the agent offers
// (_parley/sign_in_required) and picks one (_parley/sign_in). An elicitation is the
// agent's question, passed to the page as the agent sent it (elicitation/create); the
// core checks the answer against the form before it reaches the agent.

// signInMethods are the agent's methods as the page is told them; agent is the name parley
// knows the agent by (what `parley login --agent` takes).
func signInMethods(agent string, ms []conversation.AuthMethod) []parleyapi.SignInMethod {
	out := []parleyapi.SignInMethod{}
	for _, m := range ms {
		sm := parleyapi.SignInMethod{ID: m.ID, Name: toolui.SafeText(m.Name), Description: toolui.SafeText(m.Description), Kind: string(m.Kind),
			Command: []string{"login", "--agent", agent, "--method", string(m.ID)},
			Program: m.Command, EnvNames: m.EnvNames, Link: m.Link, Effect: m.Effect(), Refused: m.Refused}
		if m.Run != nil {
			sm.Run = m.Run.Lines()
		}
		for _, v := range m.Vars {
			sm.Vars = append(sm.Vars, v.Name)
			sm.Fields = append(sm.Fields, parleyapi.SignInVar{Name: v.Name, Label: v.Label, Secret: v.Secret, Optional: v.Optional})
		}
		out = append(out, sm)
	}
	return out
}

// elicit puts an elicitation to the page, as the agent asked it but about parley's
// session. An answer the core refuses (a value the form does not take) is told to the
// page as a notice, and the page is asked again.
func (v *view) elicit(q conversation.ElicitationAsked) {
	if !v.c.takes(q.Elicitation.Mode) {
		return // a client that cannot answer it is not asked: another view may be, or the agent withdraws it
	}
	ctx, cancel := context.WithCancel(v.c.ctx)
	v.mu.Lock()
	v.asks[q.ID] = cancel
	v.mu.Unlock()
	e := q.Elicitation
	req := *e.Request
	req.ElicitationSessionScope = acp.ElicitationSessionScope{SessionID: v.ss.id, ToolCallID: e.ToolCallID}
	req.ElicitationRequestScope = acp.ElicitationRequestScope{}
	if e.Form != nil {
		// The fields in the order the agent wrote them (a decoded schema keeps no order).
		order := []string{}
		for _, f := range e.Form.Fields {
			order = append(order, f.Name)
		}
		meta := acp.Meta{}
		for k, v := range e.Request.Meta {
			meta[k] = v
		}
		meta["parley"] = parleyMeta(parleyapi.ElicitationMeta{Order: order})["parley"]
		req.Meta = meta
	}
	v.wg.Go(func() {
		defer cancel()
		for range 3 {
			resp, err := v.c.ac.CreateElicitation(ctx, &req)
			if err != nil {
				return // withdrawn, or the page went away: the question waits for another view
			}
			answer := conversation.ElicitationAnswer{Action: resp.Action}
			if resp.Action == acp.ElicitationActionAccept && e.Form != nil {
				answer.Content = formValues(e.Form, resp.Content)
			}
			taken, err := v.ss.conv.AnswerElicitationFirst(q.ID, answer)
			if err == nil {
				if taken {
					v.logAnswer(q.ID, "action", string(answer.Action))
				}
				return
			}
			v.c.notify(ctx, parleyapi.MethodNotice, parleyapi.NoticeNotification{SessionID: v.ss.id, Text: toolui.SafeText(err.Error())})
		}
	})
}

// formValues reads the page's answers as the Go values the core's form takes.
func formValues(form *conversation.Form, content map[string]acp.ElicitationContentValue) map[string]any {
	out := map[string]any{}
	for _, f := range form.Fields {
		raw, ok := content[f.Name]
		if !ok {
			continue
		}
		var v any
		switch f.Kind {
		case conversation.FieldInteger:
			var n int64
			if json.Unmarshal(raw, &n) == nil {
				v = n
			}
		case conversation.FieldNumber:
			var n float64
			if json.Unmarshal(raw, &n) == nil {
				v = n
			}
		case conversation.FieldBoolean:
			var b bool
			if json.Unmarshal(raw, &b) == nil {
				v = b
			}
		case conversation.FieldMultiChoice:
			var ss []string
			if json.Unmarshal(raw, &ss) == nil {
				v = ss
			}
		default:
			var s string
			if json.Unmarshal(raw, &s) == nil {
				v = s
			}
		}
		if v == nil {
			json.Unmarshal(raw, &v) // of another type: the core's check says what was wrong
		}
		out[f.Name] = v
	}
	return out
}
