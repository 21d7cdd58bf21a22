package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

//go:embed run_terminal_command.md
var runTerminalCommandDescription string

const (
	defaultTimeout = 120 * time.Second
	maxTimeout     = 600 * time.Second
)

type runTerminalCommandParams struct {
	Command        string  `json:"command"`
	Cwd            string  `json:"cwd"`
	TimeoutSeconds float64 `json:"timeout_seconds"`
}

type runTerminalCommand struct{}

func (runTerminalCommand) Name() string        { return "run_terminal_command" }
func (runTerminalCommand) Description() string { return runTerminalCommandDescription }
func (runTerminalCommand) Kind() acp.ToolKind  { return acp.ToolKindExecute }
func (runTerminalCommand) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"command":{"type":"string"},` +
		`"cwd":{"type":"string","description":"default: the workspace root"},` +
		`"timeout_seconds":{"type":"number","description":"default 120, at most 600"}},` +
		`"required":["command"]}`)
}

func (runTerminalCommand) Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error) {
	var p runTerminalCommandParams
	if err := decodeArgs(args, &p); err != nil {
		return modelError("Run", "%v", err), nil
	}
	if p.Command == "" {
		return modelError("Run", "command is required"), nil
	}
	title := "Run `" + p.Command + "`"
	cwd, _, msg := s.resolveDir(p.Cwd)
	if msg != "" {
		r := modelError(title, "cwd: %s", msg)
		r.Command = p.Command
		return r, nil
	}
	timeout := defaultTimeout
	if p.TimeoutSeconds > 0 {
		timeout = min(time.Duration(p.TimeoutSeconds*float64(time.Second)), maxTimeout)
	}
	if refused, err := s.checkCommand(ctx, Command{Line: p.Command, Dir: cwd}); refused != "" || err != nil {
		r := modelError(title, "%s", refused)
		r.Command = p.Command
		return r, err
	}
	r, err := runChecked(ctx, s, "sh", []string{"-c", p.Command}, cwd, timeout)
	r.Title, r.Command = title, p.Command
	r.Output = "Command: " + p.Command + "\n" + r.Output
	return r, err
}

// runChecked runs a command through the session's Env and reports it the way the model
// reads commands: cleaned, truncated output, then the exit code or the timeout.
func runChecked(ctx context.Context, s *Session, command string, args []string, cwd string, timeout time.Duration) (Result, error) {
	out, code, err := s.Env.Run(ctx, command, args, cwd, timeout)
	out = truncateOutput(cleanTerminal(out))
	if out != "" {
		out += "\n"
	}
	switch {
	case errors.Is(err, ErrTimeout):
		return Result{Output: out + fmt.Sprintf("Timed out after %s; the command was killed. Exit code: unknown", timeout), IsError: true,
			Locations: []acp.ToolCallLocation{{Path: cwd}}}, nil
	case err != nil && ctx.Err() != nil:
		return Result{}, ctx.Err()
	case err != nil:
		return Result{}, fmt.Errorf("running %s: %w", command, err)
	}
	return Result{Output: out + fmt.Sprintf("Exit code: %d", code), IsError: code != 0,
		Locations: []acp.ToolCallLocation{{Path: cwd}}}, nil
}
