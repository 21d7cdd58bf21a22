package proc

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// The contract every platform's implementation keeps, tested with the test binary itself
// as the processes: a "leader" that starts a "daemon" which leaves the leader's group
// (setsid on Unix, a detached process group on Windows) and tells its pid, then stays or
// exits. Both hold the write end of one pipe as their stdout, so the test's read end sees
// EOF exactly when the whole tree has ended, on any platform, without looking at pids.

const roleVar = "PARLEY_PROC_TEST_ROLE"

// TestHelperProcess is the leader or the daemon when roleVar says so; otherwise it does
// nothing.
func TestHelperProcess(t *testing.T) {
	role, then, _ := strings.Cut(os.Getenv(roleVar), ":")
	switch role {
	case "":
		return
	case "daemon":
		time.Sleep(time.Hour)
	case "leader":
		switch then {
		case "ignore": // Stop's polite request goes unheard
			signal.Notify(make(chan os.Signal, 1), os.Interrupt, syscall.SIGTERM)
		case "graceful": // ends at once, with its own status, when asked
			sigs := make(chan os.Signal, 1)
			signal.Notify(sigs, os.Interrupt, syscall.SIGTERM)
			go func() { <-sigs; os.Exit(3) }()
		}
		daemon := helperCommand("daemon")
		detach(daemon)
		daemon.Stdout = os.Stdout
		if err := daemon.Start(); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(2)
		}
		fmt.Println(daemon.Process.Pid)
		if then == "exit" {
			os.Exit(0)
		}
		time.Sleep(time.Hour)
	}
	os.Exit(0)
}

func helperCommand(role string) *exec.Cmd {
	cmd := exec.Command(os.Args[0], "-test.run=^TestHelperProcess$")
	// GORACE: a -race binary otherwise sleeps a second at exit.
	cmd.Env = append(os.Environ(), roleVar+"="+role, "GORACE=atexit_sleep_ms=0")
	return cmd
}

// processTree is a leader started through Start, and what tells when its tree ended.
type processTree struct {
	p      *Process
	daemon int
	out    *bufio.Reader
	eof    chan struct{} // closed when every holder of the pipe has ended
}

// startTree starts a leader (then says what it does once its daemon runs: "exit",
// "ignore", "graceful" or "" to wait) and returns once the daemon runs.
func startTree(t *testing.T, then string) *processTree {
	t.Helper()
	r, w, err := os.Pipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd := helperCommand("leader:" + then)
	cmd.Stdout = w
	cmd.Stderr = os.Stderr
	p, err := Start(cmd)
	w.Close()
	if err != nil {
		r.Close()
		t.Fatal(err)
	}
	tr := &processTree{p: p, out: bufio.NewReader(r), eof: make(chan struct{})}
	line, err := tr.out.ReadString('\n')
	if err != nil {
		p.Stop(t.Context(), 0)
		r.Close()
		t.Fatalf("the leader did not start its daemon: %v", err)
	}
	if tr.daemon, err = strconv.Atoi(strings.TrimSpace(line)); err != nil {
		t.Fatal(err)
	}
	go func() {
		io.Copy(io.Discard, tr.out)
		close(tr.eof)
	}()
	t.Cleanup(func() {
		p.Stop(t.Context(), 0)
		select {
		case <-tr.eof:
		default: // the test failed: do not leave the daemon behind
			if d, err := os.FindProcess(tr.daemon); err == nil {
				d.Kill()
			}
		}
		r.Close()
		<-tr.eof
	})
	return tr
}

// ended waits up to 10 s for every process of the tree to end.
func (tr *processTree) ended() bool {
	timer := time.NewTimer(10 * time.Second)
	defer timer.Stop()
	select {
	case <-tr.eof:
		return true
	case <-timer.C:
		return false
	}
}

func TestStopEndsTheWholeTree(t *testing.T) {
	for _, then := range []string{"", "exit"} {
		t.Run("leader "+map[string]string{"": "running", "exit": "exited"}[then], func(t *testing.T) {
			tr := startTree(t, then)
			if then == "exit" {
				<-tr.p.Exited()
			}
			if err := tr.p.Stop(t.Context(), time.Second); err != nil {
				t.Fatal(err)
			}
			if !tr.ended() {
				t.Errorf("the daemon %d, which left the leader's group, survived Stop", tr.daemon)
			}
		})
	}
}

func TestStopEndsALeaderThatIgnoresTheRequest(t *testing.T) {
	tr := startTree(t, "ignore")
	if err := tr.p.Stop(t.Context(), 50*time.Millisecond); err != nil {
		t.Fatal(err)
	}
	if tr.p.State() == nil || tr.p.State().Success() {
		t.Errorf("the leader ended with %v, want killed", tr.p.State())
	}
	if !tr.ended() {
		t.Errorf("the tree survived Stop")
	}
}

func TestStopAsksFirst(t *testing.T) {
	if !sharesConsole() {
		t.Skip("Ctrl-Break reaches only processes that share parley's console, and this test has none")
	}
	tr := startTree(t, "graceful")
	if err := tr.p.Stop(t.Context(), time.Minute); err != nil {
		t.Fatal(err)
	}
	if code := tr.p.State().ExitCode(); code != 3 {
		t.Errorf("the leader ended with %v, want its own exit status 3 (it was asked before it was killed)", tr.p.State())
	}
	if !tr.ended() {
		t.Errorf("the daemon %d survived Stop", tr.daemon)
	}
}

func TestKillAllEndsEveryTree(t *testing.T) {
	a, b := startTree(t, ""), startTree(t, "exit")
	KillAll()
	for _, tr := range []*processTree{a, b} {
		if !tr.ended() {
			t.Errorf("a tree survived KillAll (daemon %d)", tr.daemon)
		}
	}
}
