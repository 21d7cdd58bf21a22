// Package logfile is a log file of bounded size: once it reaches its limit it is renamed
// to NAME.1 (replacing the previous one) and started afresh, so an agent that writes to
// its stderr without end costs at most twice the limit on disk.
package logfile

import (
	"fmt"
	"os"
	"sync"
)

// File appends to a log, rotating it at a size limit. Safe for concurrent use.
type File struct {
	path  string
	limit int64

	mu   sync.Mutex
	f    *os.File
	size int64
	err  error // the first failure to rotate: writes are dropped from then on
}

// Open opens (or creates, mode 0600) the log at path for appending.
func Open(path string, limit int64) (*File, error) {
	l := &File{path: path, limit: limit}
	if err := l.open(); err != nil {
		return nil, err
	}
	return l, nil
}

func (l *File) open() error {
	f, err := os.OpenFile(l.path, os.O_CREATE|os.O_APPEND|os.O_WRONLY, 0o600)
	if err != nil {
		return err
	}
	info, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	l.f, l.size = f, info.Size()
	return nil
}

// Name is the log's path.
func (l *File) Name() string { return l.path }

// Write appends p, rotating first when p would take the log past its limit. It never
// fails for the writer's sake: a log that cannot be written drops what comes (the writer
// is an agent's stderr, which must keep flowing).
func (l *File) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.err != nil || l.f == nil {
		return len(p), nil
	}
	if l.size > 0 && l.size+int64(len(p)) > l.limit {
		if err := l.rotate(); err != nil {
			l.err = err
			return len(p), nil
		}
	}
	n, err := l.f.Write(p)
	l.size += int64(n)
	if err != nil {
		l.err = err
	}
	return len(p), nil
}

func (l *File) rotate() error {
	l.f.Close()
	l.f = nil
	if err := os.Rename(l.path, l.path+".1"); err != nil {
		return fmt.Errorf("rotating %s: %w", l.path, err)
	}
	return l.open()
}

// Err is the first error writing or rotating the log, if any.
func (l *File) Err() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}

// Close closes the log.
func (l *File) Close() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.f == nil {
		return nil
	}
	err := l.f.Close()
	l.f = nil
	return err
}
