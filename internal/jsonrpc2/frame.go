package jsonrpc2

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"io"
)

// DefaultMaxLineBytes is the default limit on one incoming line: ACP messages carry
// images and whole files, and VS Code requests carry the whole conversation.
const DefaultMaxLineBytes = 64 << 20

// LineTooLongError reports an incoming line over the limit. The line was skipped; Prefix
// holds its beginning so that its id, if any, can still be answered.
type LineTooLongError struct {
	Limit  int
	Prefix []byte
}

func (e *LineTooLongError) Error() string {
	return fmt.Sprintf("message exceeds the line limit of %d bytes", e.Limit)
}

// prefixKeep is how much of an oversized line is kept to find its id.
const prefixKeep = 64 << 10

// LineReader reads newline-delimited messages. Empty lines are skipped and a trailing
// carriage return is dropped: a line may end in \n or \r\n.
type LineReader struct {
	r     *bufio.Reader
	limit int
}

// NewLineReader returns a reader of lines of at most limit bytes (DefaultMaxLineBytes
// when limit <= 0).
func NewLineReader(r io.Reader, limit int) *LineReader {
	if limit <= 0 {
		limit = DefaultMaxLineBytes
	}
	return &LineReader{r: bufio.NewReaderSize(r, 64<<10), limit: limit}
}

// ReadLine returns the next non-empty line in a fresh slice the caller owns. It returns a
// *LineTooLongError for an oversized line (and is ready to read the next), and io.EOF at
// the end of the input. A last line without a newline is still returned.
func (lr *LineReader) ReadLine() ([]byte, error) {
	for {
		line, err := lr.readRaw()
		if err != nil && (len(line) == 0 || !errors.Is(err, io.EOF)) {
			return nil, err
		}
		line = bytes.TrimRight(line, "\r\n")
		if len(bytes.TrimSpace(line)) > 0 {
			return line, nil
		}
		if err != nil {
			return nil, err
		}
	}
}

func (lr *LineReader) readRaw() ([]byte, error) {
	chunk, err := lr.r.ReadSlice('\n')
	if contentLen(nil, chunk, errors.Is(err, bufio.ErrBufferFull)) > lr.limit {
		return nil, lr.skipRest(nil, chunk, err)
	}
	if !errors.Is(err, bufio.ErrBufferFull) {
		return bytes.Clone(chunk), err
	}
	// A long line: gather it piece by piece, up to the limit.
	buf := bytes.Clone(chunk)
	for {
		chunk, err = lr.r.ReadSlice('\n')
		if contentLen(buf, chunk, errors.Is(err, bufio.ErrBufferFull)) > lr.limit {
			return nil, lr.skipRest(buf, chunk, err)
		}
		buf = append(buf, chunk...)
		if !errors.Is(err, bufio.ErrBufferFull) {
			return buf, err
		}
	}
}

// skipRest discards the rest of an oversized line.
func (lr *LineReader) skipRest(buf, chunk []byte, err error) error {
	prefix := buf
	if len(prefix) < prefixKeep {
		prefix = append(prefix, chunk[:min(len(chunk), prefixKeep-len(prefix))]...)
	}
	prefix = bytes.Clone(prefix[:min(len(prefix), prefixKeep)])
	for errors.Is(err, bufio.ErrBufferFull) {
		_, err = lr.r.ReadSlice('\n')
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return err
	}
	return &LineTooLongError{Limit: lr.limit, Prefix: prefix}
}

// contentLen is the length of the line read so far (buf, then chunk) without its end,
// \n or \r\n (Windows programs writing in text mode end lines so), which the limit does
// not count. more says that the line goes on after chunk: a \r that ends chunk then may
// be the start of its end.
func contentLen(buf, chunk []byte, more bool) int {
	n := len(buf) + len(chunk)
	if len(chunk) == 0 {
		return n
	}
	switch last := chunk[len(chunk)-1]; {
	case last == '\n':
		n--
		if len(chunk) >= 2 && chunk[len(chunk)-2] == '\r' || len(chunk) == 1 && len(buf) > 0 && buf[len(buf)-1] == '\r' {
			n--
		}
	case last == '\r' && more:
		n--
	}
	return n
}
