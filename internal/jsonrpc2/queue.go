package jsonrpc2

import "sync"

// item is one entry of the ordered queue between the reader and the dispatcher: a request
// or notification to dispatch, or a response to hand to its caller once every earlier
// notification has been handled (the response barrier).
type item struct {
	req  *Request
	call *pendingCall
	resp callResult
}

// orderedQueue is the bounded FIFO between the reader and the dispatcher. When it is full,
// push blocks, which stops the reader and so slows the peer (backpressure, not loss); the
// bound is lifted while a notification handler waits on a call of its own (nested > 0),
// because the response it waits for is behind the items that fill the queue.
type orderedQueue struct {
	mu       sync.Mutex
	notEmpty sync.Cond
	notFull  sync.Cond
	items    []item
	limit    int
	nested   int  // calls in flight from inside notification handlers
	busy     bool // the dispatcher holds a batch it has not finished
	closed   bool
}

func newOrderedQueue(limit int) *orderedQueue {
	q := &orderedQueue{limit: limit}
	q.notEmpty.L = &q.mu
	q.notFull.L = &q.mu
	return q
}

// push appends it, waiting while the queue is full. It reports false once the queue is
// closed.
func (q *orderedQueue) push(it item) bool {
	q.mu.Lock()
	defer q.mu.Unlock()
	for len(q.items) >= q.limit && q.nested == 0 && !q.closed {
		q.notFull.Wait()
	}
	if q.closed {
		return false
	}
	q.items = append(q.items, it)
	q.notEmpty.Signal()
	return true
}

// deliverOrPush hands a response to its caller at once when nothing is queued before it
// and the dispatcher is idle (the common case, one channel hop saved); otherwise it queues
// it behind the notifications that arrived first. Responses never wait for room: they are
// what frees it.
func (q *orderedQueue) deliverOrPush(it item) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if len(q.items) == 0 && !q.busy || q.closed {
		it.call.deliver(it.resp)
		return
	}
	q.items = append(q.items, it)
	q.notEmpty.Signal()
}

// popAll waits for items and returns them all, swapping in spare as the new backing
// store. It reports false when the queue is closed and empty.
func (q *orderedQueue) popAll(spare []item) ([]item, bool) {
	q.mu.Lock()
	defer q.mu.Unlock()
	q.busy = false
	for len(q.items) == 0 && !q.closed {
		q.notEmpty.Wait()
	}
	if len(q.items) == 0 {
		return nil, false
	}
	batch := q.items
	q.items = spare[:0]
	q.busy = true
	q.notFull.Broadcast()
	return batch, true
}

// addNested records that a notification handler started (+1) or finished (-1) waiting
// on a call.
func (q *orderedQueue) addNested(delta int) {
	q.mu.Lock()
	q.nested += delta
	q.mu.Unlock()
	q.notFull.Broadcast()
}

// close wakes everyone; the dispatcher still drains what is queued.
func (q *orderedQueue) close() {
	q.mu.Lock()
	q.closed = true
	q.mu.Unlock()
	q.notEmpty.Broadcast()
	q.notFull.Broadcast()
}
