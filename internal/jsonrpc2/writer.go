package jsonrpc2

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"sync"
)

// maxQueuedBytes bounds the bytes queued for the writer, whatever the number of lines: a
// writer waits beyond it (a larger line goes alone), so that a peer that reads slowly or
// not at all cannot make parley hold its answers in memory without limit.
const maxQueuedBytes = 64 << 20

// maxQueuedLines bounds the lines waiting in the buffer (those run is writing aside): a
// sender that outruns the stream waits there, so a flood holds a few hundred lines, not
// maxQueuedBytes of them, and the buffers are reused, not grown.
const maxQueuedLines = 256

// keptBuffer is the largest buffer the writer keeps for the next batch once a batch is
// written; a larger one (a burst of big lines) goes back to the garbage collector.
const keptBuffer = 1 << 20

// lineWriter is a connection's write side: one goroutine (run) that owns the stream's
// writing, and in front of it one buffer of encoded lines, bounded by maxQueuedBytes and
// maxQueuedLines.
//
// A sender appends its line to the buffer under mu and wakes run only when the buffer was
// empty; run takes the whole buffer at once (leaving it a spare) and writes it with one
// call. So a burst costs one append per line and one wake and one system call per batch,
// not a hand-off between goroutines per line; the lines go out in the order they were
// appended, and a lone line goes out at once.
type lineWriter struct {
	logger    *slog.Logger
	abandoned <-chan struct{} // the connection's close deadline passed: waits give up
	onFail    func()          // called once writing has failed (closes the stream under the reader)

	wake chan struct{} // buffered (1): the buffer is no longer empty
	stop chan struct{} // closed when no more lines will be written
	done chan struct{} // closed when run has returned

	mu      sync.Mutex
	buf     []byte        // lines appended and not yet taken by run
	spare   []byte        // the buffer of the batch run wrote last, for the next one
	lines   int           // lines in buf
	writing int           // bytes run took and has not finished writing
	room    chan struct{} // when senders wait for room: closed when run frees some
	queued  int64         // bytes ever appended
	written int64         // bytes ever written (or dropped after a failure)
	flushes []flushWaiter // flush's waiters, by the mark they wait for
	ended   bool          // run has taken its last batch: nothing appended now is written

	failOnce sync.Once
	failed   chan struct{} // closed when writing to the stream has failed
	err      error         // why; set before failed is closed
}

// flushWaiter is a flush waiting for the bytes queued before it (up to mark) to be written.
type flushWaiter struct {
	mark    int64
	written chan struct{}
}

func newLineWriter(logger *slog.Logger, abandoned <-chan struct{}, onFail func()) *lineWriter {
	return &lineWriter{
		logger: logger, abandoned: abandoned, onFail: onFail,
		wake: make(chan struct{}, 1), stop: make(chan struct{}), done: make(chan struct{}),
		failed: make(chan struct{}),
	}
}

// failure is the error every send returns once writing has failed, nil before.
func (w *lineWriter) failure() error {
	select {
	case <-w.failed:
		return fmt.Errorf("%w: %v", ErrClosed, w.err)
	default:
		return nil
	}
}

// send queues one encoded line (a copy: line is the caller's again when send returns),
// waiting while the writer is behind. ctx bounds only the wait: a line that fits goes even
// when ctx has ended (an agent reports how a cancelled turn ended with the turn's context).
func (w *lineWriter) send(ctx context.Context, line []byte) error {
	for {
		if err := w.failure(); err != nil { // a failed stream fails every send, even with room
			return err
		}
		select {
		case <-w.abandoned:
			return ErrClosed
		default:
		}
		w.mu.Lock()
		if w.ended {
			w.mu.Unlock()
			return ErrClosed
		}
		queued := len(w.buf) + w.writing
		if queued == 0 || queued+len(line) <= maxQueuedBytes && w.lines < maxQueuedLines {
			wasEmpty := len(w.buf) == 0
			w.buf = append(w.buf, line...)
			w.lines++
			w.queued += int64(len(line))
			w.mu.Unlock()
			if wasEmpty {
				select {
				case w.wake <- struct{}{}:
				default: // already woken
				}
			}
			return nil
		}
		if w.room == nil {
			w.room = make(chan struct{})
		}
		room := w.room
		w.mu.Unlock()
		select {
		case <-room:
		case <-w.done:
			return ErrClosed
		case <-w.failed:
		case <-w.abandoned:
			return ErrClosed
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// flush waits until every line queued before it has been written to the stream. ctx
// bounds the wait.
func (w *lineWriter) flush(ctx context.Context) error {
	if err := w.failure(); err != nil {
		return err
	}
	w.mu.Lock()
	if w.written >= w.queued {
		w.mu.Unlock()
		return nil
	}
	if w.ended {
		w.mu.Unlock()
		return ErrClosed
	}
	f := flushWaiter{mark: w.queued, written: make(chan struct{})}
	w.flushes = append(w.flushes, f)
	w.mu.Unlock()
	select {
	case <-f.written:
		return nil
	case <-w.failed:
		return fmt.Errorf("%w: %v", ErrClosed, w.err)
	case <-w.done:
		return ErrClosed
	case <-ctx.Done():
		w.mu.Lock()
		for i, g := range w.flushes {
			if g.written == f.written {
				w.flushes = append(w.flushes[:i], w.flushes[i+1:]...)
				break
			}
		}
		w.mu.Unlock()
		return context.Cause(ctx)
	}
}

// finish writes what is queued, then stops run and waits for it.
func (w *lineWriter) finish() {
	close(w.stop)
	<-w.done
}

// run writes what is queued to out until finish: each time it is woken, batch after batch
// until the buffer is empty.
func (w *lineWriter) run(out io.Writer) {
	defer close(w.done)
	for {
		select {
		case <-w.wake:
			w.drain(out, false)
		case <-w.stop:
			w.drain(out, true)
			return
		}
	}
}

// drain writes batches until the buffer is empty; last marks the end (no later line is
// taken) once it is.
func (w *lineWriter) drain(out io.Writer, last bool) {
	for {
		w.mu.Lock()
		batch := w.buf
		if len(batch) == 0 {
			w.ended = last
			w.mu.Unlock()
			return
		}
		w.buf, w.spare = w.spare[:0], nil
		w.lines, w.writing = 0, len(batch)
		w.freeRoom() // the lines taken are room for as many
		w.mu.Unlock()

		if w.failure() == nil {
			if _, err := out.Write(batch); err != nil {
				w.fail(err)
			}
		}

		w.mu.Lock()
		w.writing = 0
		w.written += int64(len(batch))
		if cap(batch) <= keptBuffer && w.spare == nil {
			w.spare = batch[:0]
		}
		w.freeRoom()
		if w.failure() == nil {
			kept := w.flushes[:0]
			for _, f := range w.flushes {
				if f.mark <= w.written {
					close(f.written)
				} else {
					kept = append(kept, f)
				}
			}
			w.flushes = kept
		}
		w.mu.Unlock()
	}
}

// freeRoom wakes the senders waiting for room. w.mu is held.
func (w *lineWriter) freeRoom() {
	if w.room != nil {
		close(w.room)
		w.room = nil
	}
}

// fail records that writing failed: senders fail from now on, and the connection is taken
// down.
func (w *lineWriter) fail(err error) {
	select {
	case <-w.abandoned: // the close deadline passed: the failure was ours
	default:
		if peerGone(err) {
			w.logger.Debug("jsonrpc2: the peer is gone; closing", "error", err)
		} else {
			w.logger.Warn("jsonrpc2: write failed; closing", "error", err)
		}
	}
	w.failOnce.Do(func() {
		w.err = err
		close(w.failed)
	})
	go w.onFail()
}
