package acp

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"time"
)

// DefaultExitGrace is ConnOptions.ExitGrace's default: how long Close of a connection
// made by StartAgent lets the agent exit by itself once its stdin is closed.
const DefaultExitGrace = 5 * time.Second

// How long an agent that was asked to stop has before it is killed, and how long the
// connection keeps reading after the agent exited (a process it left behind may still
// hold its stdout open).
const (
	stopGrace = 2 * time.Second
	exitDrain = time.Second
)

// StartAgent starts cmd, an agent program, and connects to it as its client over the
// program's standard input and output. bind is as for NewClientConn.
//
// The connection owns the process. Close ends the connection in order, which closes the
// agent's stdin; it then waits up to ConnOptions.ExitGrace for the agent to exit, asks
// it to stop (SIGTERM on Unix, to its whole process group when cmd.SysProcAttr has
// Setpgid), and kills it if it is still running two seconds later. When the agent exits
// by itself, the connection ends once it has read what the agent wrote, and Err says how
// the agent ended. Done is closed when both the connection and the process have ended.
//
// cmd must not have been started, and its Stdin and Stdout must be nil: they become the
// connection. Its Stderr is the agent's log (nil discards it). A zero cmd.WaitDelay is set
// to one second, so that a process the agent leaves holding its stderr cannot keep the
// connection from ending.
func StartAgent(cmd *exec.Cmd, bind func(conn *ClientConn) Client, opts *ConnOptions) (*ClientConn, error) {
	if cmd.Process != nil {
		return nil, errors.New("acp: StartAgent needs a command that has not been started")
	}
	if cmd.Stdin != nil || cmd.Stdout != nil {
		return nil, errors.New("acp: StartAgent needs a command without Stdin and Stdout: they become the connection")
	}
	// Pipes of our own, not cmd.StdoutPipe: Wait closes those as soon as the process
	// exits, which would lose what the agent wrote just before.
	agentIn, toAgent, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("acp: starting %s: %w", cmd.Path, err)
	}
	fromAgent, agentOut, err := os.Pipe()
	if err != nil {
		agentIn.Close()
		toAgent.Close()
		return nil, fmt.Errorf("acp: starting %s: %w", cmd.Path, err)
	}
	cmd.Stdin, cmd.Stdout = agentIn, agentOut
	if cmd.WaitDelay == 0 {
		cmd.WaitDelay = time.Second
	}
	err = cmd.Start()
	agentIn.Close() // the child's ends: ours are toAgent and fromAgent
	agentOut.Close()
	if err != nil {
		toAgent.Close()
		fromAgent.Close()
		return nil, fmt.Errorf("acp: starting agent %s: %w", cmd.Path, err)
	}
	grace := DefaultExitGrace
	if opts != nil && opts.ExitGrace > 0 {
		grace = opts.ExitGrace
	}
	p := &agentProcess{cmd: cmd, grace: grace, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	c := newClientConn(&pipeStream{r: fromAgent, w: toAgent}, bind, opts)
	c.proc = p
	c.done = make(chan struct{})
	go c.superviseAgent()
	return c, nil
}

// superviseAgent ties the process to the connection: when either ends, the other is
// ended too; done closes once both have.
func (c *ClientConn) superviseAgent() {
	defer close(c.done)
	select {
	case <-c.rpc.Done():
	case <-c.proc.exited:
		timer := time.NewTimer(exitDrain)
		select {
		case <-c.rpc.Done():
		case <-timer.C:
			c.rpc.Close()
		}
		timer.Stop()
	}
	c.proc.stop()
	<-c.rpc.Done()
}

// agentProcess is an agent StartAgent started.
type agentProcess struct {
	cmd      *exec.Cmd
	grace    time.Duration
	exited   chan struct{} // closed when Wait has returned
	waitErr  error         // set before exited closes
	stopOnce sync.Once
	stopErr  error
	stopped  atomic.Bool // we signalled it: how it ended is our doing, not news
}

// stop waits for the agent to exit after its stdin closed, then asks it to stop, then
// kills it. It returns an error only when even the kill did not end it.
func (p *agentProcess) stop() error {
	p.stopOnce.Do(func() {
		if p.waitExit(p.grace) {
			return
		}
		p.stopped.Store(true)
		if terminate(p.cmd) == nil && p.waitExit(stopGrace) {
			return
		}
		kill(p.cmd)
		if !p.waitExit(stopGrace) {
			p.stopErr = fmt.Errorf("acp: agent %s (pid %d) did not end, even when killed", p.cmd.Path, p.cmd.Process.Pid)
		}
	})
	return p.stopErr
}

func (p *agentProcess) waitExit(d time.Duration) bool {
	timer := time.NewTimer(d)
	defer timer.Stop()
	select {
	case <-p.exited:
		return true
	case <-timer.C:
		return false
	}
}

// exitError is how the agent ended when that is news: it exited by itself, and not with
// status 0.
func (p *agentProcess) exitError() error {
	select {
	case <-p.exited:
	default:
		return nil
	}
	if p.stopped.Load() || p.waitErr == nil {
		return nil
	}
	return p.waitErr
}

// pipeStream is an agent's stdout and stdin as one stream.
type pipeStream struct {
	r *os.File
	w *os.File
}

func (s *pipeStream) Read(b []byte) (int, error)  { return s.r.Read(b) }
func (s *pipeStream) Write(b []byte) (int, error) { return s.w.Write(b) }
func (s *pipeStream) Close() error                { return errors.Join(s.w.Close(), s.r.Close()) }
