package proc

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/creack/pty"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// TestMain lets the test binary play the processes the tests need (PROC_TEST_ROLE).
func TestMain(m *testing.M) {
	switch os.Getenv("PROC_TEST_ROLE") {
	case "":
		goleak.VerifyTestMain(m)
	case "own-group":
		ownGroup(os.Args[1])
	case "on-a-terminal":
		onATerminal()
	}
}

// ownGroup moves to a process group of its own, in the same session, with no marker in
// its environment (it was started with an empty one), writes its pid to fifo and waits
// to be killed.
func ownGroup(fifo string) {
	if err := syscall.Setpgid(0, 0); err != nil {
		os.Exit(3)
	}
	os.WriteFile(fifo, []byte(strconv.Itoa(os.Getpid())), 0)
	time.Sleep(time.Hour) // not select{}: the runtime would end a process with nothing to wake it
}

// onATerminal runs, with the test's pseudo-terminal as its controlling terminal, a
// command through Start that tries to open its controlling terminal, and tells what the
// command said.
func onATerminal() {
	var out strings.Builder
	script := `if true 2>/dev/null 4<>/dev/tty; then echo opened; else echo refused; fi
if [ -t 3 ]; then echo fd3-leaked; else echo fd3-closed; fi
read -r _ _ _ _ _ sid _ < /proc/$$/stat; echo $sid`
	cmd := exec.Command("sh", "-c", script)
	cmd.Stdout, cmd.Stderr = &out, &out
	p, err := Start(cmd)
	if err != nil {
		os.Stdout.WriteString(err.Error())
		os.Exit(1)
	}
	<-p.Exited()
	p.Stop(context.Background(), 0)
	os.Stdout.WriteString(out.String() + "pid " + strconv.Itoa(p.Pid()) + "\n")
	os.Exit(0)
}

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

// TestStopEndsWhatLeftTheGroupButNotTheSession: a process that moved to a group of its
// own (a shell's background job) and dropped parley's marker is still in the session Start
// made, and ends with the rest.
func TestStopEndsWhatLeftTheGroupButNotTheSession(t *testing.T) {
	fifo := filepath.Join(t.TempDir(), "pid")
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Fatal(err)
	}
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	script := `env -i PROC_TEST_ROLE=own-group "$0" "$1" & wait`
	p, err := Start(exec.Command("sh", "-c", script, exe, fifo))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { p.Stop(t.Context(), 0) })
	data, err := os.ReadFile(fifo)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(string(data))
	if err != nil {
		t.Fatalf("the helper wrote %q", data)
	}
	t.Cleanup(func() { syscall.Kill(pid, syscall.SIGKILL) })
	if pgid, _ := syscall.Getpgid(pid); pgid == p.Pid() {
		t.Fatalf("the helper %d did not leave the group %d", pid, p.Pid())
	}
	if err := p.Stop(t.Context(), time.Second); err != nil {
		t.Fatal(err)
	}
	if !ended(t, pid) {
		t.Errorf("the process %d, in the session but not the group, survived Stop", pid)
	}
}

// TestStartedProcessHasNoTerminal: parley on a terminal starts a command, which cannot
// open that terminal (it has no controlling terminal), does not inherit the terminal
// parley was handed on fd 3, and leads a session of its own.
func TestStartedProcessHasNoTerminal(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	// The helper leads a session whose controlling terminal is the pty (its stdin).
	cmd := exec.Command(exe)
	cmd.Env = append(os.Environ(), "PROC_TEST_ROLE=on-a-terminal")
	cmd.Stdin = tty
	cmd.ExtraFiles = []*os.File{tty} // fd 3, left open for its children
	var out strings.Builder
	cmd.Stdout, cmd.Stderr = &out, &out
	cmd.SysProcAttr = &syscall.SysProcAttr{Setsid: true, Setctty: true, Ctty: 0}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	tty.Close()
	if err := cmd.Wait(); err != nil {
		t.Fatalf("%v: %s", err, out.String())
	}
	fields := strings.Fields(out.String())
	if len(fields) != 5 || fields[0] != "refused" || fields[1] != "fd3-closed" || fields[2] != fields[4] {
		t.Errorf("the command said %q: want it refused /dev/tty, no terminal on fd 3, and its session to be its own pid", out.String())
	}
}

func TestStartRefusesATerminal(t *testing.T) {
	ptm, tty, err := pty.Open()
	if err != nil {
		t.Fatal(err)
	}
	defer ptm.Close()
	defer tty.Close()
	for _, set := range []func(*exec.Cmd){
		func(c *exec.Cmd) { c.Stdin = tty },
		func(c *exec.Cmd) { c.Stdout = tty },
		func(c *exec.Cmd) { c.Stderr = tty },
		func(c *exec.Cmd) { c.ExtraFiles = []*os.File{tty} },
	} {
		cmd := exec.Command("true")
		set(cmd)
		if p, err := Start(cmd); err == nil {
			<-p.Exited()
			p.Stop(t.Context(), 0)
			t.Errorf("Start gave the terminal to a command")
		} else if !strings.Contains(err.Error(), "terminal") {
			t.Errorf("the error does not say why: %v", err)
		}
	}
}
