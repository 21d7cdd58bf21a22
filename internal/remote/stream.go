package remote

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/json"
)

// Stream is the connection as a newline-delimited stream of JSON-RPC messages, for
// parley's own ACP client: each message read is one line, each line written is sent
// as one message. A read after the server went fails with a *GoneError that says how.
// Close ends the connection normally.
func (c *Conn) Stream() io.ReadWriteCloser { return &stream{c: c} }

type stream struct {
	c       *Conn
	readBuf []byte

	wmu     sync.Mutex
	partial []byte // a line written in pieces

	once sync.Once
}

func (s *stream) Read(p []byte) (int, error) {
	for len(s.readBuf) == 0 {
		typ, data, err := s.c.ws.Read(context.Background()) // Close ends it
		if err != nil {
			return 0, &GoneError{Addr: s.c.Addr(), Reason: s.c.Gone(err)}
		}
		if typ != websocket.MessageText {
			continue
		}
		if bytes.IndexByte(data, '\n') >= 0 {
			if compact, err := json.Compact(data); err == nil {
				data = compact
			} else {
				data = bytes.ReplaceAll(data, []byte("\n"), []byte(" "))
			}
		}
		s.readBuf = append(data, '\n')
	}
	n := copy(p, s.readBuf)
	s.readBuf = s.readBuf[n:]
	return n, nil
}

func (s *stream) Write(p []byte) (int, error) {
	s.wmu.Lock()
	defer s.wmu.Unlock()
	n := len(p)
	for len(p) > 0 {
		i := bytes.IndexByte(p, '\n')
		if i < 0 {
			s.partial = append(s.partial, p...)
			break
		}
		line := p[:i]
		if len(s.partial) > 0 {
			line = append(s.partial, line...)
			s.partial = nil
		}
		if len(bytes.TrimSpace(line)) > 0 {
			if err := s.c.ws.Write(context.Background(), websocket.MessageText, line); err != nil {
				return 0, &GoneError{Addr: s.c.Addr(), Reason: s.c.Gone(err)}
			}
		}
		p = p[i+1:]
	}
	return n, nil
}

func (s *stream) Close() error {
	var err error
	s.once.Do(func() { err = s.c.Close("the client is leaving") })
	return err
}
