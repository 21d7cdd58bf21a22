// Package mailbox is an unbounded queue with one reader, for an actor that must never
// wait for the one it posts to: posting never blocks, so two actors that post to each
// other can never wait on each other, whatever the load. What it holds is bounded by what
// its posters send, so each use says why that is small or why holding it all is right.
package mailbox

import "sync"

// Box is an unbounded queue of T with one reader. The zero value is not usable; use New.
type Box[T any] struct {
	mu     sync.Mutex
	queue  []T
	closed bool
	ready  chan struct{} // has a token while the queue is not empty (or the box closed)
}

// New returns an empty Box.
func New[T any]() *Box[T] { return &Box[T]{ready: make(chan struct{}, 1)} }

// Post appends v; it never blocks. It reports false, and drops v, once the box is closed.
func (b *Box[T]) Post(v T) bool {
	b.mu.Lock()
	if b.closed {
		b.mu.Unlock()
		return false
	}
	b.queue = append(b.queue, v)
	b.mu.Unlock()
	b.signal()
	return true
}

func (b *Box[T]) signal() {
	select {
	case b.ready <- struct{}{}:
	default:
	}
}

// Ready has a token when there may be something to Take: the reader waits on it, then
// takes.
func (b *Box[T]) Ready() <-chan struct{} { return b.ready }

// Take returns what was posted, in order, and empties the box.
func (b *Box[T]) Take() []T {
	b.mu.Lock()
	defer b.mu.Unlock()
	q := b.queue
	b.queue = nil
	return q
}

// Close makes later posts fail; what was posted before can still be taken.
func (b *Box[T]) Close() {
	b.mu.Lock()
	b.closed = true
	b.mu.Unlock()
	b.signal()
}
