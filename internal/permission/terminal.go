package permission

import (
	"context"
	"fmt"
	"sync/atomic"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// maxApproved bounds how many just-approved commands a session keeps for its
// terminal/create; the oldest are dropped first (they only spare a second question).
const maxApproved = 32

// approve records that what runs was just allowed in session.
func (p *Policy) approve(session acp.SessionID, runs string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.approved == nil {
		p.approved = map[acp.SessionID][]string{}
	}
	list := append(p.approved[session], runs)
	if len(list) > maxApproved {
		list = list[len(list)-maxApproved:]
	}
	p.approved[session] = list
}

// takeApproval uses up an approval of what runs in session, if there is one.
func (p *Policy) takeApproval(session acp.SessionID, runs string) bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	list := p.approved[session]
	for i, r := range list {
		if r == runs {
			p.approved[session] = append(list[:i:i], list[i+1:]...)
			return true
		}
	}
	return false
}

// TerminalDecision is whether a terminal/create may run, and the question asked about
// it, if one was.
type TerminalDecision struct {
	Allowed bool
	// Reason says why it was refused, for the agent and the user.
	Reason string
	// Request and Response are the question parley asked on its own (nil when it asked
	// none), for the front-end to show like a request from the agent.
	Request  *acp.RequestPermissionRequest
	Response *acp.RequestPermissionResponse
	// By says who decided the question asked, when one was.
	By Decider
	// Err is a problem the user should hear about (asking failed); the decision already
	// fails closed for it.
	Err error
}

var terminalQuestions atomic.Int64

// DecideTerminal decides whether the agent may run argv in dir (terminal/create), which
// it may send whether or not it asked first. The user's rules hold there too: a command
// a configured rule refuses is refused; one a rule says to ask about, and a critical
// one, is asked about, unless the user has just allowed that same command in this
// session's request_permission (each such approval is used once). Everything else
// runs: the agent's own permission requests are where other commands are asked about.
//
// The environment the agent sets for the command is judged with it (BASH_ENV, LD_PRELOAD,
// GIT_SSH_COMMAND… run code), as `env NAME=value … command`.
func (p *Policy) DecideTerminal(ctx context.Context, session acp.SessionID, argv []string, env []acp.EnvVariable, dir string) TerminalDecision {
	if len(env) > 0 {
		withEnv := []string{"env", "--"}
		for _, v := range env {
			withEnv = append(withEnv, v.Name+"="+v.Value)
		}
		argv = append(withEnv, argv...)
	}
	a := JudgeCommand("", argv, p.context(dir))
	s := Subject{Kind: acp.ToolKindExecute, Command: a.Line, Analysis: a, Key: execKey(a.Shape().Key())}
	action := p.configured(s)
	switch {
	case action == ActionReject:
		return TerminalDecision{Reason: fmt.Sprintf("parley refused to run %s: a rule in your configuration refuses it", a.Line)}
	case action != ActionAsk && !s.Critical():
		return TerminalDecision{Allowed: true}
	case p.takeApproval(session, a.Runs()):
		return TerminalDecision{Allowed: true}
	}
	command, _ := json.Marshal(argv)
	req := &acp.RequestPermissionRequest{
		SessionID: session,
		ToolCall: acp.ToolCallUpdate{
			ToolCallID: acp.ToolCallID(fmt.Sprintf("parley-terminal-%d", terminalQuestions.Add(1))),
			Title:      "Run " + a.Line,
			Kind:       acp.ToolKindExecute,
			RawInput:   []byte(`{"command":` + string(command) + `}`),
		},
		Options: []acp.PermissionOption{
			{OptionID: "parley-allow", Name: "Allow", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "parley-reject", Name: "Reject", Kind: acp.PermissionOptionKindRejectOnce},
		},
	}
	// Nothing is remembered from this question: the agent did not ask it.
	s.NoAlwaysAllow = true
	out, by, err := p.ask(ctx, req, s, nil)
	d := TerminalDecision{Request: req, Response: &acp.RequestPermissionResponse{Outcome: out}, By: by, Err: err}
	if out.Selected != nil && out.Selected.OptionID == "parley-allow" {
		d.Allowed = true
		return d
	}
	d.Reason = fmt.Sprintf("parley refused to run %s: the user did not allow it", a.Line)
	if p.Ask == nil {
		d.Reason = fmt.Sprintf("parley refused to run %s: your configuration or its risk (%s) needs a question, and there is nobody to ask", a.Line, a.Tier)
	}
	return d
}
