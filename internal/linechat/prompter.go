package linechat

import (
	"bufio"
	"bytes"
	"errors"
	"io"
	"os"
	"sync"
)

// A prompter reads the user's lines: one goroutine reads the input, and the one goroutine
// that owns the prompter (the chat loop, or run's question server) takes them from lines.
//
// A permission question must be answered by what the user typed after seeing it, never
// by type-ahead: a line typed during the turn for the next prompt, or input pushed into
// the terminal by something else. So every line carries the epoch it was read in, and
// discardTypeAhead starts a new epoch: it empties the terminal's input queue (what was
// typed and not read yet) and marks every line already read (the one the reading
// goroutine may be holding) as stale. On a terminal the goroutine reads only when a line
// is ready, under the same lock as discardTypeAhead, so a line is either read before the
// discard (and stale) or typed after it.
type Prompter struct {
	// lines carries the lines, without their line ending. Unbuffered: a line waits in
	// the reading goroutine until its owner takes it.
	lines chan InputLine
	eof   chan struct{} // closed when the input has ended (after its last line)

	mu    sync.Mutex
	epoch uint64 // bumped by discardTypeAhead
	term  *terminalInput
	tty   bool // the input is a terminal (term may still be nil where it cannot be read line by line)

	hidden bool // hideInput turned the echo off: close turns it back on

	stopping chan struct{} // closed by close
	done     chan struct{} // closed when the reading goroutine has ended
}

// inputLine is a line and the epoch it was read in.
type InputLine struct {
	Text  string
	Epoch uint64
}

// maxInputLine bounds a line (a terminal in canonical mode sends at most 4 KiB; a pipe
// or a terminal left in raw mode could send anything).
const maxInputLine = 16 << 20

func NewPrompter(in io.Reader) *Prompter {
	p := &Prompter{
		lines:    make(chan InputLine),
		eof:      make(chan struct{}),
		stopping: make(chan struct{}),
		done:     make(chan struct{}),
	}
	if f, ok := in.(*os.File); ok && IsTerminal(f) {
		p.tty = true
		if term, err := openTerminalInput(f); err == nil {
			p.term = term
			go p.readTerminal()
			return p
		}
	}
	go p.readStream(in)
	return p
}

// readStream reads a pipe or a file. Nothing is asked when the input is not a terminal,
// so its lines are never discarded; a blocked read cannot be interrupted, so close does
// not wait for this goroutine (it ends with the input, or with parley).
func (p *Prompter) readStream(in io.Reader) {
	close(p.done)
	defer close(p.eof)
	sc := bufio.NewScanner(in)
	sc.Buffer(make([]byte, 64<<10), maxInputLine)
	for sc.Scan() {
		p.mu.Lock()
		epoch := p.epoch
		p.mu.Unlock()
		if !p.send(InputLine{sc.Text(), epoch}) {
			return
		}
	}
}

// readTerminal reads a terminal: it waits, without the lock, until a line is ready, then
// reads it under the lock, unless discardTypeAhead emptied the queue meanwhile.
func (p *Prompter) readTerminal() {
	defer close(p.done)
	defer close(p.eof)
	defer p.term.Close()
	buf := make([]byte, 64<<10)
	var partial []byte // a line begun in an earlier read (raw mode, or a line longer than buf)
	var partialEpoch uint64
	for {
		if !p.term.wait() {
			return // closed, or the terminal is gone
		}
		p.mu.Lock()
		n, end := p.term.readReady(buf)
		epoch := p.epoch
		p.mu.Unlock()
		if epoch != partialEpoch {
			partial, partialEpoch = nil, epoch // begun before a discard: stale
		}
		partial = append(partial, buf[:n]...)
		for {
			i := bytes.IndexByte(partial, '\n')
			if i < 0 && len(partial) >= maxInputLine {
				i = len(partial)
			}
			if i < 0 {
				break
			}
			line := string(bytes.TrimSuffix(partial[:i], []byte("\r")))
			partial = partial[min(i+1, len(partial)):]
			if !p.send(InputLine{line, epoch}) {
				return
			}
		}
		if end {
			if len(partial) > 0 {
				p.send(InputLine{string(partial), epoch})
			}
			return
		}
	}
}

// send hands a line to the owner; false when the prompter is closing.
func (p *Prompter) send(l InputLine) bool {
	select {
	case p.lines <- l:
		return true
	case <-p.stopping:
		return false
	}
}

// discardTypeAhead drops everything typed before now and returns the epoch of what comes
// after: a line from lines with an older epoch is stale. dropped says whether a whole
// line was waiting in the terminal's input queue.
func (p *Prompter) DiscardTypeAhead() (mark uint64, dropped bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.term != nil {
		dropped = p.term.discardQueued()
	}
	p.epoch++
	return p.epoch, dropped
}

// hideInput stops (or resumes) showing what is typed, for a secret. Nothing shows what
// is typed into a pipe; a terminal parley cannot control is an error, and the secret is
// not asked there.
func (p *Prompter) hideInput(hide bool) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	switch {
	case !p.tty:
		return nil
	case p.term == nil:
		return errors.New("parley cannot hide what is typed on this terminal")
	}
	if err := p.term.setEcho(!hide); err != nil {
		return err
	}
	p.hidden = hide
	return nil
}

// suspend stops reading the terminal until resume is called, so that a program run in
// it (a terminal sign-in) gets what is typed; resume then discards what that program
// left unread. The reading goroutine waits for the lock this holds.
func (p *Prompter) suspend() (resume func()) {
	p.mu.Lock()
	return func() {
		p.mu.Unlock()
		p.DiscardTypeAhead()
	}
}

// close ends the reading goroutine and, on a terminal, waits for it.
func (p *Prompter) Close() {
	p.mu.Lock()
	if p.hidden && p.term != nil {
		p.term.setEcho(true)
		p.hidden = false
	}
	p.mu.Unlock()
	close(p.stopping)
	if p.term != nil {
		p.term.wake()
	}
	<-p.done
}

// Lines are the input's lines, one at a time; EOF is closed once the input has ended.
func (p *Prompter) Lines() <-chan InputLine { return p.lines }
func (p *Prompter) EOF() <-chan struct{}    { return p.eof }
