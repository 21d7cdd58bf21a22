package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"time"

	"github.com/parley-acp/parley/internal/proc"
	"github.com/parley-acp/parley/internal/workspace"
)

// LocalEnv returns an Env acting on the local machine, confined to roots: every read,
// write and command's working directory goes through the workspace's confined access.
func LocalEnv(roots *workspace.Roots) Env { return localEnv{roots: roots} }

type localEnv struct{ roots *workspace.Roots }

// ReadFile reads a regular file of at most workspace.MaxReadBytes.
func (e localEnv) ReadFile(_ context.Context, path string) (string, error) {
	data, err := e.roots.ReadFile(path, workspace.MaxReadBytes)
	return string(data), err
}

// WriteFile replaces the file atomically, keeping an existing file's mode.
func (e localEnv) WriteFile(_ context.Context, path, content string) error {
	return e.roots.WriteFile(path, []byte(content))
}

// Remove deletes a file inside the roots (not through a symlink to elsewhere).
func (e localEnv) Remove(_ context.Context, path string) error {
	if err := e.roots.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// maxCapture bounds what Run keeps of a command's output: the head and the tail, each this
// long, are kept; the middle of a flood is dropped before anyone counts its lines.
const maxCapture = 1 << 20

// killGrace is how long a command that ran out of time has between SIGTERM and SIGKILL.
const killGrace = 2 * time.Second

func (e localEnv) Run(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (string, int, error) {
	if err := ctx.Err(); err != nil { // a command that exits at once would race the select below
		return "", -1, err
	}
	dir, err := e.roots.Cwd(cwd)
	if err != nil {
		return "", -1, err
	}
	defer dir.Close() // once the command has started
	cmd := exec.Command(command, args...)
	cmd.Dir = dir.ChdirPath()
	cmd.Env = append(os.Environ(), "PWD="+dir.Path())
	cmd.WaitDelay = killGrace // background processes holding the pipe are ended below
	out := proc.NewOutput(maxCapture, maxCapture)
	cmd.Stdout, cmd.Stderr = out, out // one pipe: exec serialises writes to an == writer
	p, err := proc.Start(cmd)
	if err != nil {
		return "", -1, fmt.Errorf("running %s: %w", command, err)
	}
	timer := time.NewTimer(timeout)
	defer timer.Stop()
	var stopErr error
	select {
	case <-p.Exited():
		stopErr = p.Stop(context.Background(), 0) // what it left running goes too
	case <-timer.C:
		p.Stop(context.Background(), killGrace)
		return captured(out), -1, fmt.Errorf("%w after %s", ErrTimeout, timeout)
	case <-ctx.Done():
		p.Stop(context.Background(), 0)
		return captured(out), -1, ctx.Err()
	}
	if stopErr != nil {
		return captured(out), -1, stopErr
	}
	var exitErr *exec.ExitError
	if err := p.Err(); errors.As(err, &exitErr) {
		return captured(out), exitErr.ExitCode(), nil
	} else if err != nil {
		return captured(out), -1, fmt.Errorf("running %s: %w", command, err)
	}
	return captured(out), 0, nil
}

// captured is a command's output: its head and tail, with what was dropped between them.
func captured(out *proc.Output) string {
	head, tail, dropped := out.Snapshot(true)
	if dropped == 0 {
		return string(head) + string(tail)
	}
	return fmt.Sprintf("%s\n... [%d bytes dropped] ...\n%s", head, dropped, tail)
}
