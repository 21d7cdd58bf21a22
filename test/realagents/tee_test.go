//go:build linux

package realagents

import (
	"bufio"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"sync"
	"syscall"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// The tee sits between parley and an agent: `<test binary> -realagents-tee LOG -- AGENT
// ARGS...`. It passes stdin and stdout through line by line and appends each line to LOG
// as a teeRecord. It does not start a process group of its own, so whatever parley does
// to the agent's group reaches the agent too.

// teeRecord is one line that crossed the tee.
type teeRecord struct {
	Dir  string  `json:"dir"` // "to-agent" (parley wrote it) or "from-agent"
	T    float64 `json:"t"`   // milliseconds since the tee started
	Line string  `json:"line"`
}

func runTee(args []string) int {
	if len(args) < 3 || args[1] != "--" {
		fmt.Fprintln(os.Stderr, "usage: tee LOG -- AGENT ARGS...")
		return 2
	}
	log, err := os.OpenFile(args[0], os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		fmt.Fprintln(os.Stderr, "tee:", err)
		return 1
	}
	defer log.Close()
	// Ctrl-C in a terminal reaches the whole foreground group; the agent decides what
	// it means, the tee only goes when the agent does. (Caught, not ignored: an ignored
	// signal would stay ignored in the agent.)
	signal.Notify(make(chan os.Signal, 1), syscall.SIGINT)
	cmd := exec.Command(args[2], args[3:]...)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tee:", err)
		return 1
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "tee:", err)
		return 1
	}
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "tee: starting the agent:", err)
		return 127
	}
	start := time.Now()
	var mu sync.Mutex
	record := func(dir, line string) {
		data, _ := json.Marshal(teeRecord{Dir: dir, T: float64(time.Since(start).Microseconds()) / 1000, Line: line})
		mu.Lock()
		log.Write(append(data, '\n'))
		mu.Unlock()
	}
	go func() { // ends with parley's stdin, or with the process
		copyLines(in, os.Stdin, func(l string) { record("to-agent", l) })
		in.Close()
	}()
	copyLines(os.Stdout, out, func(l string) { record("from-agent", l) })
	err = cmd.Wait()
	os.Stdout.Close()
	var exit *exec.ExitError
	switch {
	case err == nil:
		return 0
	case errors.As(err, &exit):
		if ws, ok := exit.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
			return 128 + int(ws.Signal())
		}
		return exit.ExitCode()
	}
	return 1
}

// copyLines copies r to w line by line, calling seen with each line (without its
// newline) before it is written.
func copyLines(w io.Writer, r io.Reader, seen func(string)) {
	br := bufio.NewReaderSize(r, 1<<20)
	for {
		line, err := br.ReadString('\n')
		if line != "" {
			seen(trimNewline(line))
			if _, werr := io.WriteString(w, line); werr != nil {
				return
			}
		}
		if err != nil {
			return
		}
	}
}

func trimNewline(s string) string {
	if n := len(s); n > 0 && s[n-1] == '\n' {
		s = s[:n-1]
	}
	if n := len(s); n > 0 && s[n-1] == '\r' {
		s = s[:n-1]
	}
	return s
}
