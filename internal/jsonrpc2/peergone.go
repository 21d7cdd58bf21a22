package jsonrpc2

import (
	"errors"
	"io"
	"net"
	"os"
	"syscall"
)

// peerGone reports whether a write failed because the other side went away (an agent
// that exited, a page closed): the ordinary end of a connection, logged at debug level,
// where another write failure is worth a warning.
func peerGone(err error) bool {
	return errors.Is(err, os.ErrClosed) || errors.Is(err, io.ErrClosedPipe) || errors.Is(err, net.ErrClosed) ||
		errors.Is(err, syscall.EPIPE) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF)
}
