package remote

import (
	"context"
	"io"
	"sync"

	"github.com/parley-acp/parley/internal/wsline"
)

// Stream is the connection as a newline-delimited stream of JSON-RPC messages, for
// parley's own ACP client: each message read is one line, each line written is sent
// as one message. A read after the server went fails with a *GoneError that says how.
// Close ends the connection normally.
func (c *Conn) Stream() io.ReadWriteCloser {
	return &stream{c: c, Stream: wsline.Stream{WS: c.ws, Ctx: context.Background(), // Close ends it
		Err: func(err error) error { return &GoneError{Addr: c.Addr(), Reason: c.Gone(err)} }}}
}

type stream struct {
	wsline.Stream
	c    *Conn
	once sync.Once
}

func (s *stream) Close() error {
	var err error
	s.once.Do(func() { err = s.c.Close("the client is leaving") })
	return err
}
