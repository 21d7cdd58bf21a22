package jsonrpc2

import (
	"bufio"
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

// lineWriter is a connection's write side: one goroutine (run) that owns the stream's
// writing, a bounded queue of encoded lines in front of it, and the failure that ends it.
// Every line a Conn sends goes through send; the lines go out in the order they were
// queued, batched into few system calls and flushed whenever the queue runs dry.
type lineWriter struct {
	logger    *slog.Logger
	abandoned <-chan struct{} // the connection's close deadline passed: waits give up
	onFail    func()          // called once writing has failed (closes the stream under the reader)

	lines   chan []byte        // encoded lines for run; bounded, so senders wait
	mu      sync.Mutex         // guards queued and freed
	queued  int                // bytes in lines and not yet written: see maxQueuedBytes
	freed   chan struct{}      // when senders wait for room: closed when run frees some
	flushes chan chan struct{} // flush's waiters, closed once what was queued before is written
	stop    chan struct{}      // closed when no more lines will be written
	done    chan struct{}      // closed when run has returned

	failOnce sync.Once
	failed   chan struct{} // closed when writing to the stream has failed
	err      error         // why; set before failed is closed
}

func newLineWriter(logger *slog.Logger, abandoned <-chan struct{}, onFail func()) *lineWriter {
	return &lineWriter{
		logger: logger, abandoned: abandoned, onFail: onFail,
		lines: make(chan []byte, 256), flushes: make(chan chan struct{}),
		stop: make(chan struct{}), done: make(chan struct{}), failed: make(chan struct{}),
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

// send queues one encoded line, waiting while the writer is behind. ctx bounds only the
// wait: a line that fits in the queue goes even when ctx has ended (an agent reports how
// a cancelled turn ended with the turn's context).
func (w *lineWriter) send(ctx context.Context, line []byte) error {
	if err := w.failure(); err != nil { // a failed stream fails every send, even with room
		return err
	}
	if err := w.reserve(ctx, len(line)); err != nil {
		return err
	}
	if ctx.Err() != nil {
		select {
		case <-w.done:
		case <-w.abandoned:
		default:
			select {
			case w.lines <- line:
				return nil
			default:
			}
		}
	}
	var err error
	select {
	case w.lines <- line:
		return nil
	case <-w.done:
		err = ErrClosed
	case <-w.failed:
		err = fmt.Errorf("%w: %v", ErrClosed, w.err)
	case <-w.abandoned:
		err = ErrClosed
	case <-ctx.Done():
		err = context.Cause(ctx)
	}
	w.release(len(line))
	return err
}

// reserve counts n bytes as queued, waiting while that would pass maxQueuedBytes.
func (w *lineWriter) reserve(ctx context.Context, n int) error {
	for {
		w.mu.Lock()
		if w.queued == 0 || w.queued+n <= maxQueuedBytes {
			w.queued += n
			w.mu.Unlock()
			return nil
		}
		if w.freed == nil {
			w.freed = make(chan struct{})
		}
		freed := w.freed
		w.mu.Unlock()
		select {
		case <-freed:
		case <-w.done:
			return ErrClosed
		case <-w.failed:
			return fmt.Errorf("%w: %v", ErrClosed, w.err)
		case <-w.abandoned:
			return ErrClosed
		case <-ctx.Done():
			return context.Cause(ctx)
		}
	}
}

// release uncounts n queued bytes (written, or never queued) and wakes the senders waiting.
func (w *lineWriter) release(n int) {
	w.mu.Lock()
	w.queued -= n
	if w.freed != nil {
		close(w.freed)
		w.freed = nil
	}
	w.mu.Unlock()
}

// flush waits until every line queued before it has been written to the stream. ctx
// bounds the wait.
func (w *lineWriter) flush(ctx context.Context) error {
	written := make(chan struct{})
	select {
	case w.flushes <- written:
	case <-w.failed:
		return fmt.Errorf("%w: %v", ErrClosed, w.err)
	case <-w.done:
		return ErrClosed
	case <-ctx.Done():
		return context.Cause(ctx)
	}
	select {
	case <-written:
		return nil
	case <-w.failed:
		return fmt.Errorf("%w: %v", ErrClosed, w.err)
	case <-ctx.Done():
		return context.Cause(ctx)
	}
}

// finish writes what is queued, then stops run and waits for it.
func (w *lineWriter) finish() {
	close(w.stop)
	<-w.done
}

// run writes queued lines to out until finish, flushing whenever the queue runs dry so
// that a burst goes out in few system calls and a lone message goes out at once.
func (w *lineWriter) run(out io.Writer) {
	defer close(w.done)
	bw := bufio.NewWriterSize(out, 64<<10)
	var failed error
	fail := func(err error) {
		failed = err
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
			close(w.failed) // senders fail from now on, and the connection is taken down
		})
		go w.onFail()
	}
	put := func(line []byte) {
		defer w.release(len(line))
		if failed != nil {
			return
		}
		if _, err := bw.Write(line); err != nil {
			fail(err)
		}
	}
	flush := func() {
		if failed == nil {
			if err := bw.Flush(); err != nil {
				fail(err)
			}
		}
	}
	drain := func() { // writes every line queued by now, then flushes
		for {
			select {
			case line := <-w.lines:
				put(line)
			default:
				flush()
				return
			}
		}
	}
	for {
		select {
		case line := <-w.lines:
			put(line)
			drain()
		case written := <-w.flushes:
			drain()
			if failed == nil {
				close(written)
			}
		case <-w.stop:
			drain()
			return
		}
	}
}
