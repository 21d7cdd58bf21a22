package webui

import (
	"context"
	"io"
	"sync"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/wsline"
)

// wsStream is /acp's WebSocket as the newline-delimited stream parley's JSON-RPC reads
// and writes (wsline), ended with the status and reason closeWith set.
type wsStream struct {
	wsline.Stream
	ws     *websocket.Conn
	cancel context.CancelFunc

	cmu         sync.Mutex
	closeStatus websocket.StatusCode // how Close ends the connection: normally, unless told otherwise
	closeReason string
}

func newWSStream(ws *websocket.Conn) *wsStream {
	ctx, cancel := context.WithCancel(context.Background())
	return &wsStream{ws: ws, cancel: cancel, closeStatus: websocket.StatusNormalClosure,
		Stream: wsline.Stream{WS: ws, Ctx: ctx, Err: func(err error) error {
			if websocket.CloseStatus(err) != -1 {
				return io.EOF // the client closed it
			}
			return err
		}}}
}

// closeWith sets the status and reason Close will end the connection with.
func (s *wsStream) closeWith(status websocket.StatusCode, reason string) {
	s.cmu.Lock()
	defer s.cmu.Unlock()
	s.closeStatus, s.closeReason = status, reason
}

func (s *wsStream) Close() error {
	s.cmu.Lock()
	status, reason := s.closeStatus, s.closeReason
	s.cmu.Unlock()
	err := s.ws.Close(status, reason)
	s.cancel()
	return err
}
