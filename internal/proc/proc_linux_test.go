package proc

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

// daemonScript starts a process in a session of its own that writes its pid to the FIFO
// $1, then runs $2.
const daemonScript = `setsid sh -c 'echo $$ > "$1"; exec sleep 100' sh "$1" & $2`

func startDaemonScript(t *testing.T, then string) (*Process, int) {
	t.Helper()
	fifo := filepath.Join(t.TempDir(), "daemon.pid")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Start(exec.Command("sh", "-c", daemonScript, "sh", fifo, then))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(t.Context(), 0) })
	data, err := os.ReadFile(fifo) // returns once the daemon has written its pid
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if then == "exit" {
		<-p.Exited()
	}
	return p, pid
}

// ended waits up to 10 s for pid (not a child) to end, through a pidfd.
func ended(t *testing.T, pid int) bool {
	t.Helper()
	fd, err := unix.PidfdOpen(pid, 0)
	if err == unix.ESRCH {
		return true
	} else if err != nil {
		t.Fatal(err)
	}
	defer unix.Close(fd)
	n, err := unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, 10_000)
	if err != nil {
		t.Fatal(err)
	}
	return n == 1
}

func TestStopEndsWhatLeftTheGroup(t *testing.T) {
	for _, then := range []string{"sleep 100", "exit"} {
		t.Run(then, func(t *testing.T) {
			p, daemon := startDaemonScript(t, then)
			if err := p.Stop(t.Context(), time.Second); err != nil {
				t.Fatal(err)
			}
			if !ended(t, daemon) {
				t.Errorf("the daemon %d survived Stop", daemon)
			}
		})
	}
}

func TestKillAll(t *testing.T) {
	p, daemon := startDaemonScript(t, "sleep 100")
	KillAll()
	<-p.Exited()
	if ws := p.State().Sys().(syscall.WaitStatus); !ws.Signaled() || ws.Signal() != syscall.SIGKILL {
		t.Errorf("after KillAll: %v", p.State())
	}
	if !ended(t, daemon) {
		t.Errorf("the daemon %d survived KillAll", daemon)
	}
}

func TestStopEscalates(t *testing.T) {
	ready := filepath.Join(t.TempDir(), "ready")
	if err := syscall.Mkfifo(ready, 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := Start(exec.Command("sh", "-c", `trap "" TERM; echo > "$1"; while :; do :; done`, "sh", ready))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := os.ReadFile(ready); err != nil { // returns once the trap is set
		t.Fatal(err)
	}
	if err := p.Stop(t.Context(), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if ws := p.State().Sys().(syscall.WaitStatus); ws.Signal() != syscall.SIGKILL {
		t.Errorf("exit %v, want SIGKILL", p.State())
	}
	if err := p.Stop(t.Context(), 0); err != nil { // again: nothing left to do
		t.Error(err)
	}
}

func TestMarkersAreInherited(t *testing.T) {
	cmd := exec.Command("sh", "-c", `printf %s "$`+MarkerVar+`"`)
	cmd.Env = append(os.Environ(), MarkerVar+"=outer.1")
	var out strings.Builder
	cmd.Stdout = &out
	p, err := Start(cmd)
	if err != nil {
		t.Fatal(err)
	}
	<-p.Exited()
	p.Stop(t.Context(), 0)
	if got, want := out.String(), "outer.1:"+p.marker; got != want {
		t.Errorf("%s = %q, want %q", MarkerVar, got, want)
	}
	if !carries([]byte("A=1\x00"+MarkerVar+"=x.1:"+p.marker+"\x00"), p.marker) || carries([]byte(MarkerVar+"=x.12"), "x.1") {
		t.Error("carries is wrong")
	}
}
