package main

import (
	"bufio"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestRunEndsOnSignalWhenTheAgentStopsReading: the agent floods parley with requests and
// stops reading its stdin, so parley's answers jam the pipe. A SIGINT still ends parley
// (in order, within its deadlines), two end it at once; the agent is ended either way.
func TestRunEndsOnSignalWhenTheAgentStopsReading(t *testing.T) {
	// Not parallel: it bounds how long parley takes to end (wall-clock).
	for _, signals := range []int{1, 2} {
		t.Run(strconv.Itoa(signals), func(t *testing.T) {
			w := newWorkspace(t)
			file := filepath.Join(w.dir, "big.txt")
			mustWrite(t, file, strings.Repeat("x", 1<<20)) // one answer is more than the pipe holds
			fifo := filepath.Join(t.TempDir(), "asked")
			if err := syscall.Mkfifo(fifo, 0o644); err != nil {
				t.Fatal(err)
			}
			// The agent tells its pid through the FIFO: a confined agent writes it only when told.
			cmd := exec.Command(self(t), "run", "--sandbox-write", filepath.Dir(fifo), "--agent-command", fakeAgentCommand(t, "hostile-deaf"), file+" "+fifo)
			cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), w.env...)
			cmd.Dir = w.dir
			stderrPipe, err := cmd.StderrPipe()
			if err != nil {
				t.Fatal(err)
			}
			if err := cmd.Start(); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { cmd.Process.Kill() })
			var said strings.Builder // parley's stderr, once it has exited
			lines := make(chan string, 1024)
			exited := make(chan struct{})
			go func() {
				defer close(exited)
				sc := bufio.NewScanner(stderrPipe)
				for sc.Scan() {
					said.WriteString(sc.Text() + "\n")
					select {
					case lines <- sc.Text():
					default:
					}
				}
				cmd.Wait()
			}()
			pids := make(chan string, 1)
			go func() { data, _ := os.ReadFile(fifo); pids <- string(data) }()
			var agentPid int
			select {
			case data := <-pids: // the agent has asked and stopped reading
				agentPid, _ = strconv.Atoi(data)
			case <-exited:
				if f, err := os.OpenFile(fifo, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close() // ends the read above
				}
				t.Fatalf("parley ended before the agent got its turn: %v\n%s", cmd.ProcessState, said.String())
			}
			t.Cleanup(func() { syscall.Kill(agentPid, syscall.SIGKILL) })

			start := time.Now()
			cmd.Process.Signal(os.Interrupt)
			for stopping := false; !stopping; {
				select {
				case line := <-lines:
					stopping = strings.Contains(line, "parley: stopping")
				case <-exited:
					stopping = true
				}
			}
			if signals == 2 {
				cmd.Process.Signal(os.Interrupt)
			}
			select {
			case <-exited:
			case <-time.After(30 * time.Second): // a hang guard
				cmd.Process.Kill()
				<-exited
				t.Fatalf("parley did not end after %d SIGINT; stderr:\n%s", signals, said.String())
			}
			took := time.Since(start)
			t.Logf("%d SIGINT: parley ended in %v with status %d", signals, took.Round(time.Millisecond), cmd.ProcessState.ExitCode())
			if code := cmd.ProcessState.ExitCode(); code != exitCancelled {
				t.Errorf("exit status %d, want %d; stderr:\n%s", code, exitCancelled, said.String())
			}
			if signals == 1 && !strings.Contains(said.String(), "does not read what it is sent") {
				// told at once, not after waiting out the grace for an answer that cannot come
				t.Errorf("parley did not say the agent stopped reading; stderr:\n%s", said.String())
			}
			if signals == 2 && took > 10*time.Second {
				t.Errorf("a second SIGINT took %v to end parley", took)
			}
			if !waitProcessEnd(t, agentPid, 10*time.Second) {
				t.Errorf("the agent (pid %d) outlived parley", agentPid)
			}
		})
	}
}

const exitCancelled = 130

// TestRunNoticesAClosedStdout: when the reader of parley's stdout goes away mid-reply,
// parley stops the turn and says why at once, instead of dying of SIGPIPE (leaving the
// agent behind) or streaming on into nothing.
func TestRunNoticesAClosedStdout(t *testing.T) {
	// Not parallel: it bounds how long parley takes to notice (wall-clock).
	cmd := exec.Command(self(t), "run", "slowly "+strings.Repeat("word ", 500))
	cmd.Env = append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), isolatedXDG(t)...)
	cmd.Dir = t.TempDir()
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill() })
	if _, err := stdout.Read(make([]byte, 4)); err != nil { // the reply has begun
		t.Fatal(err)
	}
	stdout.Close()
	start := time.Now()
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	select {
	case <-exited:
	case <-time.After(30 * time.Second): // a hang guard; the reply alone takes 10 s
		cmd.Process.Kill()
		<-exited
		t.Fatalf("parley did not stop; stderr:\n%s", stderr.String())
	}
	t.Logf("parley ended %v after its stdout closed, status %v", time.Since(start).Round(time.Millisecond), cmd.ProcessState)
	if code := cmd.ProcessState.ExitCode(); code != 1 || !strings.Contains(stderr.String(), "output") {
		t.Errorf("status %v, want exit 1 and a message about the output; stderr:\n%s", cmd.ProcessState, stderr.String())
	}
	if took := time.Since(start); took > 5*time.Second {
		t.Errorf("parley took %v to notice", took)
	}
}
