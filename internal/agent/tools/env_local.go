package tools

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

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

// maxCapture bounds what Run keeps of a command's output: the head and the tail, each this
// long, are kept; the middle of a flood is dropped before anyone counts its lines.
const maxCapture = 1 << 20

func (e localEnv) Run(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (string, int, error) {
	dir, err := e.roots.Cwd(cwd)
	if err != nil {
		return "", -1, err
	}
	defer dir.Close() // once the command has started
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, command, args...)
	cmd.Dir = dir.ChdirPath()
	cmd.Env = append(os.Environ(), "PWD="+dir.Path())
	setProcessGroup(cmd) // so a timeout kills the whole pipeline, not just sh
	cmd.WaitDelay = 2 * time.Second
	out := &headTail{limit: maxCapture}
	cmd.Stdout, cmd.Stderr = out, out // one pipe: exec serialises writes to an == writer
	err = cmd.Run()
	switch {
	case ctx.Err() != nil:
		return out.String(), -1, ctx.Err()
	case errors.Is(runCtx.Err(), context.DeadlineExceeded):
		return out.String(), -1, fmt.Errorf("%w after %s", ErrTimeout, timeout)
	}
	var exitErr *exec.ExitError
	if errors.As(err, &exitErr) {
		return out.String(), exitErr.ExitCode(), nil
	}
	if err != nil {
		return out.String(), -1, fmt.Errorf("running %s: %w", command, err)
	}
	return out.String(), 0, nil
}

// headTail keeps the first and last limit bytes written to it.
type headTail struct {
	limit   int
	head    []byte
	tail    []byte // a window of the latest bytes, up to 2*limit before compaction
	dropped int64
}

func (h *headTail) Write(p []byte) (int, error) {
	n := len(p)
	if room := h.limit - len(h.head); room > 0 {
		k := min(room, len(p))
		h.head = append(h.head, p[:k]...)
		p = p[k:]
	}
	h.tail = append(h.tail, p...)
	if over := len(h.tail) - h.limit; over > h.limit {
		h.dropped += int64(over)
		h.tail = append(h.tail[:0], h.tail[over:]...)
	}
	return n, nil
}

func (h *headTail) String() string {
	tail := h.tail
	dropped := h.dropped
	if over := len(tail) - h.limit; over > 0 {
		dropped += int64(over)
		tail = tail[over:]
	}
	if dropped == 0 {
		return string(h.head) + string(tail)
	}
	return fmt.Sprintf("%s\n... [%d bytes dropped] ...\n%s", h.head, dropped, tail)
}
