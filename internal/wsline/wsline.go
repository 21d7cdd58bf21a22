// Package wsline is a WebSocket as the newline-delimited stream parley's JSON-RPC reads
// and writes (ACP's WebSocket transport: one message per text frame). Each text frame
// read is one line; each line written is sent as one text frame; binary frames are
// ignored. parley web's /acp (internal/webui) and its clients (internal/remote) use it.
package wsline

import (
	"bytes"
	"context"
	"sync"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/json"
)

// Stream reads and writes lines over WS. Its zero value is not usable: set WS and Ctx.
type Stream struct {
	WS *websocket.Conn
	// Ctx bounds every read and write: cancelling it ends them.
	Ctx context.Context
	// Err, when set, is what a failed read or write returns instead of the WebSocket's
	// error (the connection's end, said the caller's way).
	Err func(error) error

	readBuf []byte // the rest of the frame being read

	wmu     sync.Mutex
	partial []byte // a line written in pieces
}

func (s *Stream) fail(err error) error {
	if s.Err != nil {
		return s.Err(err)
	}
	return err
}

func (s *Stream) Read(p []byte) (int, error) {
	for len(s.readBuf) == 0 {
		typ, data, err := s.WS.Read(s.Ctx)
		if err != nil {
			return 0, s.fail(err)
		}
		if typ != websocket.MessageText {
			continue
		}
		s.readBuf = append(OneLine(data), '\n')
	}
	n := copy(p, s.readBuf)
	s.readBuf = s.readBuf[n:]
	return n, nil
}

func (s *Stream) Write(p []byte) (int, error) {
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
			if err := s.WS.Write(s.Ctx, websocket.MessageText, line); err != nil {
				return 0, s.fail(err)
			}
		}
		p = p[i+1:]
	}
	return n, nil
}

// OneLine is a frame's message as one line: a message written with line breaks between
// its tokens is compacted; one that is not JSON has its line breaks made spaces (a parse
// error for the reader to answer, not several messages).
func OneLine(msg []byte) []byte {
	if bytes.IndexByte(msg, '\n') < 0 {
		return msg
	}
	if compact, err := json.Compact(msg); err == nil {
		return compact
	}
	return bytes.ReplaceAll(msg, []byte("\n"), []byte(" "))
}
