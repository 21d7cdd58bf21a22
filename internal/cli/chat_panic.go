package cli

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/logfile"
	"github.com/parley-acp/parley/internal/tui"
	"github.com/parley-acp/parley/internal/version"
	"github.com/parley-acp/parley/internal/xdg"
)

// panicLogLimit bounds the log of the terminal UI's panics (rotated past it).
const panicLogLimit = 1 << 20

// panicLogPath is where the terminal UI's panics are kept: beside the agents' logs.
func panicLogPath() string { return filepath.Join(xdg.StateDir(), "logs", "parley-chat-panics.log") }

// reportTUIPanic keeps a panic of the terminal UI (its value and stack) in the panic log,
// and is the short error parley chat ends with, which names the log. It is called once
// the terminal is restored and before the conversations are closed, so that the stack is
// kept even if closing them goes wrong.
func reportTUIPanic(p *tui.Panic) error {
	path := panicLogPath()
	short := strings.TrimSpace(fmt.Sprint(p.Value))
	if line, _, cut := strings.Cut(short, "\n"); cut || len(line) > 200 {
		short = truncate(line, 200) + "…"
	}
	if err := writePanicLog(path, p); err != nil {
		// The stack is then said on stderr: there is nowhere else left for it.
		return &exitError{code: exitFailure, err: fmt.Errorf("the terminal UI failed (panic in %s: %s), and it could not be kept in %s: %v\n%s", p.Where, short, path, err, p.Stack)}
	}
	return &exitError{code: exitFailure, err: fmt.Errorf("the terminal UI failed (panic in %s: %s); the terminal was restored and the conversations closed. The panic and its stack are in %s", p.Where, short, path)}
}

func writePanicLog(path string, p *tui.Panic) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	log, err := logfile.Open(path, panicLogLimit)
	if err != nil {
		return err
	}
	fmt.Fprintf(log, "=== %s parley %s: parley chat's terminal UI panicked in %s\npanic: %v\n\n%s\n", time.Now().UTC().Format(time.RFC3339), version.String(), p.Where, p.Value, p.Stack)
	if err := log.Err(); err != nil {
		log.Close()
		return err
	}
	return log.Close()
}

func truncate(s string, n int) string {
	if r := []rune(s); len(r) > n {
		return string(r[:n])
	}
	return s
}
