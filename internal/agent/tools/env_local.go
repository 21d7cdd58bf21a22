package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"time"
)

// LocalEnv returns an Env acting on the local machine.
func LocalEnv() Env { return localEnv{} }

type localEnv struct{}

func (localEnv) ReadFile(_ context.Context, path string) (string, error) {
	data, err := os.ReadFile(path)
	return string(data), err
}

// WriteFile keeps an existing file's mode; new files get 0644.
func (localEnv) WriteFile(_ context.Context, path, content string) error {
	mode := os.FileMode(0o644)
	if info, err := os.Stat(path); err == nil {
		mode = info.Mode().Perm()
	}
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return err
	}
	return os.WriteFile(path, []byte(content), mode)
}

func (localEnv) Remove(_ context.Context, path string) error {
	if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return err
	}
	return nil
}

// maxCapture bounds what Run keeps of a command's output: the head and the tail, each this
// long, are kept; the middle of a flood is dropped before anyone counts its lines.
const maxCapture = 1 << 20

func (localEnv) Run(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (string, int, error) {
	runCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	cmd := exec.CommandContext(runCtx, command, args...)
	cmd.Dir = cwd
	setProcessGroup(cmd) // so a timeout kills the whole pipeline, not just sh
	cmd.WaitDelay = 2 * time.Second
	out := &headTail{limit: maxCapture}
	cmd.Stdout, cmd.Stderr = out, out // one pipe: exec serialises writes to an == writer
	err := cmd.Run()
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
