package host

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"strconv"
	"sync"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"github.com/parley-acp/parley/internal/workspace"
)

// MaxAnswerBytes bounds the text fs/read_text_file returns, as JSON: what counts is the
// size on the wire and in memory, where escaping makes a control character six bytes. A
// larger answer would not fit a protocol line any peer accepts; ask for fewer lines with
// line and limit.
const MaxAnswerBytes = 32 << 20

// FileSystem serves fs/read_text_file and fs/write_text_file from the disk, confined to each
// session's workspace roots. (parley has no editor buffers: the disk is its view.)
type FileSystem struct {
	// RootsFor returns a session's roots, or an error for a session it does not know
	// (answered -32002 unless it already is a *jsonrpc2.Error).
	RootsFor func(acp.SessionID) (*workspace.Roots, error)

	readingOnce sync.Once
	reading     chan struct{} // a slot per read in progress: see maxConcurrentReads
}

// maxConcurrentReads bounds the reads served at once, from the start of the read until its
// answer is queued for the writer: an answer may take MaxAnswerBytes and about as much
// again while it is built, so an agent asking for hundreds of large files at once would
// otherwise take gigabytes (300 reads at once: 1.8 GiB; 200 of a 20 MiB file by an agent
// that reads none of the answers: 2.2 GiB). The others wait their turn (or their
// cancellation).
const maxConcurrentReads = 2

var _ acp.FileSystem = (*FileSystem)(nil)

// ReadTextFile returns the file, or its lines from Line (1-based) on, at most Limit of them.
func (f *FileSystem) ReadTextFile(ctx context.Context, req *acp.ReadTextFileRequest) (*acp.ReadTextFileResponse, error) {
	roots, err := sessionRoots(f.RootsFor, req.SessionID)
	if err != nil {
		return nil, err
	}
	f.readingOnce.Do(func() { f.reading = make(chan struct{}, maxConcurrentReads) })
	select {
	case f.reading <- struct{}{}:
	case <-ctx.Done():
		return nil, context.Cause(ctx)
	}
	// The slot is held until the answer is queued: an agent that does not read its answers
	// must not have parley hold more of them than the connection's writer allows.
	release := func() { <-f.reading }
	if !jsonrpc2.WhenQueued(ctx, release) {
		defer release()
	}
	file, err := roots.Open(req.Path) // a regular file with one name, opened without blocking
	if err != nil {
		return nil, pathError(err)
	}
	defer file.Close()
	content, err := readLines(ctx, file, req.Line, req.Limit)
	if errors.Is(err, errTooLarge) {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%s: %v", req.Path, err)
	} else if err != nil {
		return nil, fmt.Errorf("reading %s: %w", req.Path, err)
	}
	if !utf8.Valid(content) || bytes.IndexByte(content, 0) >= 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%s is not UTF-8 text", req.Path)
	}
	return &acp.ReadTextFileResponse{Content: string(content)}, nil
}

// errTooLarge is returned when the text asked for takes more than MaxAnswerBytes as JSON.
var errTooLarge = errors.New("the text asked for takes more than " + strconv.Itoa(MaxAnswerBytes>>20) + " MiB as JSON (control characters take six bytes each); read fewer lines at a time (line, limit)")

// readLines returns the lines [line, line+limit) of r with their line ends; line 0 means
// 1 and limit 0 means all. Skipped lines are never held in memory whole.
func readLines(ctx context.Context, r io.Reader, line, limit uint32) ([]byte, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	for n := uint32(1); n < line; n++ {
		if err := skipLine(br); err == io.EOF {
			return nil, nil
		} else if err != nil {
			return nil, err
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	var out []byte
	encoded := 0 // the size of out as JSON
	add := func(chunk []byte) error {
		if encoded += json.QuotedLen(chunk); encoded > MaxAnswerBytes {
			return errTooLarge
		}
		out = append(out, chunk...)
		return nil
	}
	for n := uint32(0); limit == 0 || n < limit; n++ {
		chunk, err := br.ReadSlice('\n')
		for err == bufio.ErrBufferFull {
			if err := add(chunk); err != nil {
				return nil, err
			}
			chunk, err = br.ReadSlice('\n')
		}
		if err := add(chunk); err != nil {
			return nil, err
		}
		if err == io.EOF {
			break
		} else if err != nil {
			return nil, err
		}
		if n%4096 == 0 && ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	return out, nil
}

func skipLine(br *bufio.Reader) error {
	for {
		_, err := br.ReadSlice('\n')
		if err != bufio.ErrBufferFull {
			return err
		}
	}
}

// WriteTextFile replaces the file's content, creating it and its missing parent directories
// (inside the roots), atomically: see workspace.Roots.WriteFile.
func (f *FileSystem) WriteTextFile(ctx context.Context, req *acp.WriteTextFileRequest) (*acp.WriteTextFileResponse, error) {
	roots, err := sessionRoots(f.RootsFor, req.SessionID)
	if err != nil {
		return nil, err
	}
	if err := roots.WriteFile(req.Path, []byte(req.Content)); err != nil {
		return nil, pathError(err)
	}
	return &acp.WriteTextFileResponse{}, nil
}

// sessionRoots looks up a session's roots; an unknown session is -32002.
func sessionRoots(rootsFor func(acp.SessionID) (*workspace.Roots, error), id acp.SessionID) (*workspace.Roots, error) {
	roots, err := rootsFor(id)
	if err == nil {
		return roots, nil
	}
	if _, ok := errors.AsType[*acp.Error](err); ok {
		return nil, err
	}
	if _, ok := errors.AsType[*jsonrpc2.Error](err); ok {
		return nil, err
	}
	return nil, jsonrpc2.Errorf(acp.CodeResourceNotFound, "unknown session %q: %v", id, err)
}

// pathError gives a workspace error the code the agent sees: a missing file is -32002; a
// relative path, a path outside the roots, one that cannot be resolved, is not a regular
// file, or is protected is invalid params.
func pathError(err error) error {
	if errors.Is(err, fs.ErrNotExist) {
		return jsonrpc2.Errorf(acp.CodeResourceNotFound, "%v", err)
	}
	return jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
}
