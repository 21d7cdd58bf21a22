package coder

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/coder/tools"
	"github.com/parley-acp/parley/internal/workspace"
)

// clientEnv makes the tools act through the ACP client where it offered to (so that an
// editor sees and can review every edit, and runs commands in its own terminals), and on
// this machine where it did not.
type clientEnv struct {
	conn    *acp.AgentConn
	session acp.SessionID
	caps    acp.ClientCapabilities
	local   tools.Env
	sandbox Sandbox // confines what runs here; nil runs it unconfined
	roots   *workspace.Roots
}

// Sandbox confines the commands the agent runs on this machine: Wrap returns the
// command that runs command with args, able to write only in writable (and a temp
// directory). Commands the client runs in its own terminals are the client's to confine.
type Sandbox interface {
	Wrap(writable []string, command string, args []string) (string, []string)
}

func newClientEnv(conn *acp.AgentConn, session acp.SessionID, caps acp.ClientCapabilities, sandbox Sandbox, roots *workspace.Roots) *clientEnv {
	return &clientEnv{conn: conn, session: session, caps: caps, local: tools.LocalEnv(roots), sandbox: sandbox, roots: roots}
}

func (e *clientEnv) ReadFile(ctx context.Context, path string) (string, error) {
	if !e.caps.FS.ReadTextFile {
		return e.local.ReadFile(ctx, path)
	}
	resp, err := e.conn.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: e.session, Path: path})
	if e, ok := errors.AsType[*acp.Error](err); ok && e.Code == acp.CodeResourceNotFound {
		return "", fmt.Errorf("%s: %w", path, fs.ErrNotExist) // the tools' contract for a missing file
	}
	if err != nil {
		return "", fmt.Errorf("the client could not read %s: %w", path, err)
	}
	return resp.Content, nil
}

func (e *clientEnv) WriteFile(ctx context.Context, path, content string) error {
	if !e.caps.FS.WriteTextFile {
		return e.local.WriteFile(ctx, path, content)
	}
	if _, err := e.conn.WriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: e.session, Path: path, Content: content}); err != nil {
		return fmt.Errorf("the client could not write %s: %w", path, err)
	}
	return nil
}

// Remove deletes locally: ACP has no way to delete a file through the client.
func (e *clientEnv) Remove(ctx context.Context, path string) error { return e.local.Remove(ctx, path) }

// outputLimit bounds what a client terminal keeps of a command's output.
const outputLimit = 1 << 20

func (e *clientEnv) Run(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (string, int, error) {
	if !e.caps.Terminal {
		if e.sandbox != nil {
			command, args = e.sandbox.Wrap(e.roots.Dirs(), command, args)
		}
		return e.local.Run(ctx, command, args, cwd, timeout)
	}
	limit := uint64(outputLimit)
	term, err := e.conn.CreateTerminal(ctx, &acp.CreateTerminalRequest{SessionID: e.session, Command: command, Args: args, Cwd: cwd, OutputByteLimit: &limit})
	if err != nil {
		return "", -1, fmt.Errorf("the client could not start %s: %w", command, err)
	}
	id := term.TerminalID
	// Release whatever happens, even when the turn was cancelled.
	defer e.conn.ReleaseTerminal(context.WithoutCancel(ctx), &acp.ReleaseTerminalRequest{SessionID: e.session, TerminalID: id})
	waitCtx := ctx
	if timeout > 0 {
		var cancel context.CancelFunc
		waitCtx, cancel = context.WithTimeout(ctx, timeout)
		defer cancel()
	}
	exit, werr := e.conn.WaitForTerminalExit(waitCtx, &acp.WaitForTerminalExitRequest{SessionID: e.session, TerminalID: id})
	timedOut := werr != nil && errors.Is(waitCtx.Err(), context.DeadlineExceeded) && ctx.Err() == nil
	if werr != nil {
		e.conn.KillTerminal(context.WithoutCancel(ctx), &acp.KillTerminalRequest{SessionID: e.session, TerminalID: id})
		if !timedOut {
			return "", -1, werr
		}
	}
	out, err := e.conn.TerminalOutput(context.WithoutCancel(ctx), &acp.TerminalOutputRequest{SessionID: e.session, TerminalID: id})
	if err != nil {
		return "", -1, fmt.Errorf("reading the output of %s: %w", command, err)
	}
	if timedOut { // the Env contract: the output so far, and ErrTimeout
		return out.Output, -1, fmt.Errorf("%w after %s", tools.ErrTimeout, timeout)
	}
	code := -1
	if exit.ExitCode != nil {
		code = int(*exit.ExitCode)
	}
	return out.Output, code, nil
}
