package acpserver

import (
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// The agent's terminals run in parley (it is the agent's client), so the page cannot
// read them: a tool call that shows a terminal gets its output from parley, polled while
// the command runs and sent when it changed (_parley/terminal_output).

// terminalPoll is how often a running terminal's output is read.
const terminalPoll = 150 * time.Millisecond

type terminalOutput struct {
	Output     string
	Truncated  bool
	ExitStatus *acp.TerminalExitStatus
}

func (t *terminalOutput) notification(session acp.SessionID, id acp.TerminalID) *parleyapi.TerminalOutputNotification {
	return &parleyapi.TerminalOutputNotification{SessionID: session, TerminalID: id, Output: t.Output, Truncated: t.Truncated, ExitStatus: t.ExitStatus}
}

// watchTerminals starts following the terminals a tool call shows (called under ss.mu).
func (ss *session) watchTerminals(u acp.SessionUpdate) {
	var content []acp.ToolCallContent
	switch {
	case u.ToolCall != nil:
		content = u.ToolCall.Content
	case u.ToolCallUpdate != nil:
		content = u.ToolCallUpdate.Content
	}
	for _, c := range content {
		if c.Terminal == nil {
			continue
		}
		id := c.Terminal.TerminalID
		if _, ok := ss.terminals[id]; ok {
			continue
		}
		ss.terminals[id] = &terminalOutput{}
		ss.pollers.Add(1)
		go func() {
			defer ss.pollers.Done()
			ss.pollTerminal(id)
		}()
	}
}

// pollTerminal reads the terminal's output until its command has exited, the agent
// released it, or the session ended.
func (ss *session) pollTerminal(id acp.TerminalID) {
	tick := time.NewTicker(terminalPoll)
	defer tick.Stop()
	for {
		resp, err := ss.conv.TerminalOutput(ss.ctx, id)
		if err != nil {
			return // released, or the session is gone: the last output shown stays
		}
		ss.mu.Lock()
		last := ss.terminals[id]
		if last.Output != resp.Output || last.Truncated != resp.Truncated || (resp.ExitStatus != nil) != (last.ExitStatus != nil) {
			*last = terminalOutput{Output: resp.Output, Truncated: resp.Truncated, ExitStatus: resp.ExitStatus}
			n := last.notification(ss.id, id)
			for v := range ss.views {
				v.post(viewEvent{terminal: n})
			}
		}
		ss.mu.Unlock()
		if resp.ExitStatus != nil {
			return
		}
		select {
		case <-tick.C:
		case <-ss.ctx.Done():
			return
		}
	}
}
