package agentproc

// Launch starts an agent process, connects to it as an ACP client and keeps the two
// together, so that a dead process or a peer that does not speak ACP becomes a clear
// error instead of a hang.

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/version"
)

// DefaultInitializeTimeout bounds the wait for an agent's answer to initialize when
// LaunchOptions do not say: agents launched through npx may first install themselves.
const DefaultInitializeTimeout = 60 * time.Second

// Server is a running agent server with its ACP connection.
type Server struct {
	Conn *acp.ClientConn
	Info *acp.InitializeResponse
	proc *Process // nil for an agent reached over a stream (Connect)

	badMu    sync.Mutex
	firstBad error // the first line the agent wrote that was not ACP
}

// LaunchOptions configure Launch.
type LaunchOptions struct {
	Client       acp.Client
	Capabilities acp.ClientCapabilities
	Logger       *slog.Logger
	// Stderr receives the agent's stderr (a log file); nil keeps only its tail for errors.
	Stderr io.Writer
	// InitializeTimeout bounds the wait for initialize (DefaultInitializeTimeout when 0).
	InitializeTimeout time.Duration
	// Conn configures the ACP connection (its Logger and OnBadInput are set by Launch).
	Conn acp.ConnOptions
}

// Launch starts the agent and initializes it.
func Launch(ctx context.Context, spec Spec, opts LaunchOptions) (*Server, error) {
	spec.Stderr = opts.Stderr
	proc, err := Start(spec)
	if err != nil {
		return nil, err
	}
	a := &Server{proc: proc}
	connOpts := opts.Conn
	connOpts.Logger = opts.Logger
	connOpts.OnBadInput = func(err error) {
		a.badMu.Lock()
		if a.firstBad == nil {
			a.firstBad = err
		}
		a.badMu.Unlock()
		if opts.Logger != nil {
			opts.Logger.Warn("the agent wrote something that is not ACP", "error", err)
		}
	}
	if err := a.open(ctx, proc.Stream(), connOpts, opts); err != nil {
		err = a.notAnAgent(spec, a.Explain(fmt.Errorf("initializing %s: %w", spec, err)))
		a.Close()
		return nil, err
	}
	return a, nil
}

// Connect is Launch for an agent that is not a process parley starts: one reached over
// stream, already open (a parley server's WebSocket, internal/remote). name names it in
// messages. The server ends when the stream does; Close closes the stream.
func Connect(ctx context.Context, stream io.ReadWriteCloser, name string, opts LaunchOptions) (*Server, error) {
	a := &Server{}
	connOpts := opts.Conn
	connOpts.Logger = opts.Logger
	if err := a.open(ctx, stream, connOpts, opts); err != nil {
		a.Close()
		return nil, fmt.Errorf("initializing %s: %w", name, err)
	}
	return a, nil
}

// open connects to the agent over stream and initializes it, waiting at most
// opts.InitializeTimeout for its answer.
func (a *Server) open(ctx context.Context, stream io.ReadWriteCloser, connOpts acp.ConnOptions, opts LaunchOptions) error {
	acp.NewClientConn(stream, func(conn *acp.ClientConn) acp.Client { a.Conn = conn; return opts.Client }, &connOpts)
	timeout := opts.InitializeTimeout
	if timeout <= 0 {
		timeout = DefaultInitializeTimeout
	}
	initCtx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	info, err := a.Conn.Initialize(initCtx, &acp.InitializeRequest{
		ClientCapabilities: opts.Capabilities,
		ClientInfo:         &acp.Implementation{Name: "parley", Version: version.String()},
	})
	if err != nil {
		if errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil {
			err = fmt.Errorf("%w: it did not answer within %v", err, timeout)
		}
		return err
	}
	a.Info = info
	return nil
}

// Explain adds what is known about the agent's state to an error from the connection:
// that it exited (and how, with its last stderr), or that it wrote non-ACP output.
func (a *Server) Explain(err error) error {
	if err == nil {
		return nil
	}
	if errors.Is(err, context.DeadlineExceeded) {
		err = fmt.Errorf("%w (the agent did not answer in time)", err)
	}
	if a.proc == nil {
		// Over a stream, the stream's own error says how it ended.
		if cerr := a.Conn.Err(); cerr != nil && !strings.Contains(err.Error(), cerr.Error()) {
			return fmt.Errorf("%w: %v", err, cerr)
		}
		return err
	}
	if acp.IsClosed(err) {
		// The connection closes when the process's stdout does; give the exit a moment to
		// be reaped so that its status can be told.
		a.waitExit(time.Second)
	}
	if exitErr := a.proc.ExitError(); exitErr != nil {
		return fmt.Errorf("%w\n%v", err, exitErr)
	}
	select {
	case <-a.proc.Exited():
		err = fmt.Errorf("%w (the agent exited)", err)
	default:
	}
	a.badMu.Lock()
	bad := a.firstBad
	a.badMu.Unlock()
	if bad != nil {
		return fmt.Errorf("%w\nthe agent wrote output that is not ACP on stdout (is it an ACP agent? does it log to stdout?): %v", err, bad)
	}
	return err
}

func (a *Server) waitExit(d time.Duration) {
	ctx, cancel := context.WithTimeout(context.Background(), d)
	defer cancel()
	a.proc.WaitExited(ctx)
}

// Exited is closed when the agent process has ended (over a stream: when the
// connection has).
func (a *Server) Exited() <-chan struct{} {
	if a.proc == nil {
		return a.Conn.Done()
	}
	return a.proc.Exited()
}

// Close ends the connection and the process (and its process group).
func (a *Server) Close() error {
	err := a.Conn.Close()
	if a.proc == nil {
		return err
	}
	return a.proc.Stop(2 * time.Second)
}
