package vscodelm

import "sync"

// mailbox is an unbounded queue of messages with one reader. The router posts to workers
// through it, so the router never waits for a worker (while a worker may wait for the
// router): no cycle of waits, whatever the load. It holds only the router's messages
// (requests, cancels, close), at most a few per client request.
type mailbox struct {
	mu    sync.Mutex
	queue []any
	ready chan struct{} // has a token while queue is not empty
}

func newMailbox() *mailbox { return &mailbox{ready: make(chan struct{}, 1)} }

// post appends msg; it never blocks.
func (m *mailbox) post(msg any) {
	m.mu.Lock()
	m.queue = append(m.queue, msg)
	m.mu.Unlock()
	select {
	case m.ready <- struct{}{}:
	default:
	}
}

// take returns the queued messages in order and empties the queue. The reader calls it
// when ready has a token.
func (m *mailbox) take() []any {
	m.mu.Lock()
	defer m.mu.Unlock()
	msgs := m.queue
	m.queue = nil
	return msgs
}
