package webui

import (
	"bytes"
	"context"
	"io"
	"sync"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/json"
)

// wsStream is a WebSocket as the newline-delimited stream parley's JSON-RPC reads and
// writes: each text frame is one message (ACP's WebSocket transport), read as one line;
// each line written is sent as one text frame. Binary frames are ignored, as the
// transport has it.
type wsStream struct {
	ws     *websocket.Conn
	ctx    context.Context
	cancel context.CancelFunc

	readBuf []byte // the rest of the frame being read

	wmu     sync.Mutex
	partial []byte // a line written in pieces

	cmu         sync.Mutex
	closeStatus websocket.StatusCode // how Close ends the connection: normally, unless told otherwise
	closeReason string
}

func newWSStream(ws *websocket.Conn) *wsStream {
	ctx, cancel := context.WithCancel(context.Background())
	return &wsStream{ws: ws, ctx: ctx, cancel: cancel, closeStatus: websocket.StatusNormalClosure}
}

// closeWith sets the status and reason Close will end the connection with.
func (s *wsStream) closeWith(status websocket.StatusCode, reason string) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	s.closeStatus, s.closeReason = status, reason
}

func (s *wsStream) Read(p []byte) (int, error) {
	for len(s.readBuf) == 0 {
		typ, data, err := s.ws.Read(s.ctx)
		if err != nil {
			if websocket.CloseStatus(err) != -1 {
				return 0, io.EOF
			}
			return 0, err
		}
		if typ != websocket.MessageText {
			continue
		}
		// One message per frame: a frame written with line breaks between its tokens is
		// still one line to the reader.
		line, err := json.Compact(data)
		if err != nil {
			line = bytes.ReplaceAll(data, []byte("\n"), []byte(" ")) // answered as a parse error
		}
		s.readBuf = append(line, '\n')
	}
	n := copy(p, s.readBuf)
	s.readBuf = s.readBuf[n:]
	return n, nil
}

func (s *wsStream) Write(p []byte) (int, error) {
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
		if err := s.ws.Write(s.ctx, websocket.MessageText, line); err != nil {
			return 0, err
		}
		p = p[i+1:]
	}
	return n, nil
}

func (s *wsStream) Close() error {
	s.cmu.Lock()
	status, reason := s.closeStatus, s.closeReason
	s.cmu.Unlock()
	err := s.ws.Close(status, reason)
	s.cancel()
	return err
}
