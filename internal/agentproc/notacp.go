package agentproc

import (
	"errors"
	"fmt"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// notAnAgent leads an initialize failure with what it says of the program, when it says
// the program is no ACP agent at all (the mistake of --agent-command cat, or of a
// program's name instead of its ACP mode): one that has no initialize method (cat sends
// back what it reads, so parley's own answer "method not found" comes back as the
// agent's), one that exits (with no error) before it answers, one that writes lines that are not
// JSON-RPC and never answers. Other failures are left as they are.
func (a *Server) notAnAgent(spec Spec, err error) error {
	var rpcErr *acp.Error
	a.badMu.Lock()
	bad := a.firstBad
	a.badMu.Unlock()
	exited := false
	select {
	case <-a.proc.Exited():
		exited = true
	default:
	}
	var why string
	switch {
	case bad != nil:
		why = "what it writes on stdout is not ACP (JSON-RPC, one message a line)"
	case errors.As(err, &rpcErr) && rpcErr.Code == jsonrpc2.CodeMethodNotFound:
		why = "it has no initialize method, which every ACP agent answers"
	case exited && a.proc.ExitError() == nil:
		// Exited with status 0, as a program that has nothing to do does; an agent that
		// fails as it starts exits with an error, told by Explain.
		why = "it ended, with no error, before it answered initialize"
	default:
		return err
	}
	return fmt.Errorf("%s is not an ACP agent, or not started in its ACP mode: %s (see `parley agents` for the agents parley knows, and the agent's documentation for the command that speaks ACP on stdin and stdout)\n%w", spec, why, err)
}
