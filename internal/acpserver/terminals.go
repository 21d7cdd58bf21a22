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

// watchTerminals starts following the terminals a tool call shows, each once: a view
// polls the terminals it shows itself (called on the view's goroutine).
func (v *view) watchTerminals(u acp.SessionUpdate) {
	var content []acp.ToolCallContent
	switch {
	case u.ToolCall != nil:
		content = u.ToolCall.Content
	case u.ToolCallUpdate != nil:
		content = u.ToolCallUpdate.Content
	}
	for _, c := range content {
		if c.Terminal == nil || v.polled[c.Terminal.TerminalID] {
			continue
		}
		id := c.Terminal.TerminalID
		v.polled[id] = true
		v.wg.Go(func() { v.pollTerminal(id) })
	}
}

// pollTerminal reads the terminal's output until its command has exited, the agent
// released it (TerminalReleased then carries its last output), or the view ended, and
// hands what changed to the view.
func (v *view) pollTerminal(id acp.TerminalID) {
	tick := time.NewTicker(terminalPoll)
	defer tick.Stop()
	last := &acp.TerminalOutputResponse{}
	for {
		resp, err := v.ss.conv.TerminalOutput(v.ctx, id)
		if err != nil {
			return // released, or the session is gone: the last output shown stays
		}
		if last.Output != resp.Output || last.Truncated != resp.Truncated || (resp.ExitStatus != nil) != (last.ExitStatus != nil) {
			last = resp
			v.side.Post(sideEvent{terminal: &parleyapi.TerminalOutputNotification{SessionID: v.ss.id, TerminalID: id, Output: resp.Output, Truncated: resp.Truncated, ExitStatus: resp.ExitStatus}})
		}
		if resp.ExitStatus != nil {
			return
		}
		select {
		case <-tick.C:
		case <-v.ctx.Done():
			return
		}
	}
}
