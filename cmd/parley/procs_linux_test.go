package main

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// TestRunReleasedTerminalEndsWhatLeftItsGroup: a command started in a terminal that puts a
// process in a session of its own (setsid: a daemon) does not keep it running once the
// terminal is released.
func TestRunReleasedTerminalEndsWhatLeftItsGroup(t *testing.T) {
	t.Parallel()
	w := newWorkspace(t)
	r := w.run(t, `run 100 sh -c 'setsid sh -c "echo \$\$ > daemon.pid; exec sleep 100" & while [ ! -s daemon.pid ]; do sleep 0.01; done'`)
	if r.code != 0 || !strings.HasPrefix(r.stdout, "exit 0") {
		t.Fatalf("exit %d: %s%s", r.code, r.stdout, r.stderr)
	}
	data, err := os.ReadFile(filepath.Join(w.dir, "daemon.pid"))
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if !waitProcessEnd(t, pid, 10*time.Second) {
		t.Fatalf("the daemon (pid %d) outlived its released terminal", pid)
	}
}

// waitProcessEnd waits up to d for the process pid (not necessarily a child) to end, through
// a pidfd, which becomes readable when it does.
func waitProcessEnd(t *testing.T, pid int, d time.Duration) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return true
	} else if err != nil {
		t.Fatalf("pidfd_open(%d): %v", pid, err)
	}
	defer unix.Close(fd)
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, int(d.Milliseconds()))
	if err != nil {
		t.Fatalf("poll: %v", err)
	}
	return n == 1
}
