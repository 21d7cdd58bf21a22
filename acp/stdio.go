package acp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
)

// Stdio is the process's standard input and output as one stream, for an agent that its
// client started: reads come from stdin, writes go to stdout, and Close closes both (the
// client sees the end of the agent's output).
//
// On Unix, when stdin is a pipe or a socket (as a client sets it up), the stream reads it
// through a non-blocking duplicate that the Go runtime's poller serves, so that Close
// also ends a read in progress: a connection that ends because its context did need not
// wait for the client's next message. Elsewhere Close cannot interrupt a read of stdin.
//
// Nothing else may write to stdout while the stream is in use; log to stderr.
func Stdio() io.ReadWriteCloser {
	return stdio()
}

// stdioStream is stdin and stdout as one stream.
type stdioStream struct {
	in      io.ReadCloser
	out     io.WriteCloser
	restore func() // undoes what made stdin interruptible, after in is closed
}

func (s *stdioStream) Read(b []byte) (int, error)  { return s.in.Read(b) }
func (s *stdioStream) Write(b []byte) (int, error) { return s.out.Write(b) }

func (s *stdioStream) Close() error {
	errIn := s.in.Close()
	if s.restore != nil {
		s.restore()
	}
	return errors.Join(errIn, s.out.Close())
}

// Serve serves an agent on stream until the client closes it, ctx ends or the connection
// fails, and closes the connection in order before it returns (see AgentConn.Close). It
// returns nil when the client closed the stream or ctx ended, and otherwise why the
// connection failed. bind is as for NewAgentConn.
func Serve(ctx context.Context, stream io.ReadWriteCloser, bind func(conn *AgentConn) Agent, opts *ConnOptions) error {
	conn := NewAgentConn(stream, bind, opts)
	select {
	case <-conn.Done():
	case <-ctx.Done():
		if err := conn.Close(); err != nil {
			return fmt.Errorf("acp: closing the connection: %w", err)
		}
		return nil
	}
	if err := conn.Err(); err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, os.ErrClosed) {
		return fmt.Errorf("acp: the connection to the client failed: %w", err)
	}
	return nil
}

// ServeStdio is Serve on the process's stdin and stdout (see Stdio): the whole main loop
// of an agent program that its client starts.
func ServeStdio(ctx context.Context, bind func(conn *AgentConn) Agent, opts *ConnOptions) error {
	return Serve(ctx, Stdio(), bind, opts)
}
