package cli

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"sync"
	"syscall"

	"github.com/parley-acp/parley/internal/linechat"
	"github.com/parley-acp/parley/internal/proc"
	"github.com/spf13/cobra"
)

// Signals. The first Ctrl-C or SIGTERM asks a command to stop in order (cancel the turn,
// close the connection, stop the agent: each step has a deadline). Once a command is on
// its way out, one more signal ends parley at once: every process it started is killed
// and it exits with status 130, so that no peer that stopped answering can hold it.

// stopSignals are the signals that ask parley to stop. On Windows, Go delivers Ctrl-C and
// Ctrl-Break as os.Interrupt and the console's closing, the user's logoff and the
// system's shutdown as SIGTERM, so the same two mean the same there. The processes
// parley starts are in process groups of their own (internal/proc) and do not see the
// terminal's Ctrl-C: parley decides when they stop.
var stopSignals = []os.Signal{os.Interrupt, syscall.SIGTERM}

// interruptible is ctx ended by the first Ctrl-C or SIGTERM; a second one ends parley at
// once. stop releases the signals.
func interruptible(ctx context.Context) (context.Context, context.CancelFunc) {
	ctx, cancel := context.WithCancel(ctx)
	sigs := make(chan os.Signal, 4)
	signal.Notify(sigs, stopSignals...)
	release := forceExitOnSignal(sigs, func() {
		fmt.Fprintln(os.Stderr, "\nparley: stopping (press Ctrl-C again to quit at once)")
		cancel()
	})
	return ctx, func() {
		release()
		signal.Stop(sigs)
		cancel()
	}
}

// forceExitOnSignal watches sigs: first runs on the first signal (nil: the first one
// already came), and the next one ends parley at once. release stops watching.
func forceExitOnSignal(sigs <-chan os.Signal, first func()) (release func()) {
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		if first != nil {
			select {
			case <-sigs:
				first()
			case <-done:
				return
			}
		}
		select {
		case sig := <-sigs:
			forceExit(sig)
		case <-done:
		}
	})
	return func() {
		close(done)
		wg.Wait()
	}
}

// forceExit ends parley now: everything it started is killed (agents, terminals, their
// leftovers), then it exits 130 as an interrupted program does.
func forceExit(sig os.Signal) {
	fmt.Fprintf(os.Stderr, "\nparley: %v again: quitting now\n", sig)
	proc.KillAll()
	os.Exit(exitCancelled)
}

// catchBrokenPipe makes a write to a stdout whose reader went away fail with EPIPE instead
// of killing parley with SIGPIPE (which would leave the agent running and explain
// nothing): the console notices the error and ends the turn. The signal is caught, not
// ignored, so that the commands parley starts still get SIGPIPE as usual. (Windows has
// no SIGPIPE: the write fails there anyway, and this changes nothing.)
func catchBrokenPipe() (release func()) {
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGPIPE)
	return func() { signal.Stop(sigs) }
}

// byHand handles an ACP agent command (parley agent, parley eliza) started by hand in a
// terminal instead of by a client: it says what the command is and how to talk to the
// agent, and makes Ctrl-C end it at once (a read of a terminal cannot be interrupted, so
// an orderly stop would wait for a line nobody types). release undoes the signal
// handling; nothing is done when stdin is not a terminal.
func byHand(cmd *cobra.Command, what, agentName string) (release func()) {
	if !linechat.IsTerminal(cmd.InOrStdin()) {
		return func() {}
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, stopSignals...) // before the message: a Ctrl-C after it is caught
	fmt.Fprintf(cmd.ErrOrStderr(), "%s is an ACP agent: it speaks JSON-RPC on stdin and stdout, for a client that starts it.\nTo talk to it, run: parley chat --agent %s   (Ctrl-C quits)\n", what, agentName)
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		select {
		case <-sigs:
			fmt.Fprintln(cmd.ErrOrStderr())
			proc.KillAll()
			os.Exit(exitCancelled)
		case <-done:
		}
	})
	return func() {
		signal.Stop(sigs)
		close(done)
		wg.Wait()
	}
}
