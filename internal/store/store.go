// Package store is parley's SQLite database: what parley keeps between runs. The
// permission decisions a user chose to remember (rules.go, for every front-end and for
// parley's own agent), the coding agent's sessions and their conversations
// (sessions.go), and the record of changes (changes.go; internal/changes holds its
// logic): per workspace, its files as the last snapshot saw them and the content kept to
// undo, per conversation its turns and the files each changed. Each concern has its own
// file with a few small methods on Store; the schema is a list of embedded migrations.
//
// The database is opened with one connection (SQLite has one writer anyway), in WAL mode
// with a busy timeout, so several parley processes can share the file: a second process
// waits for the lock instead of failing.
package store

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"

	"github.com/parley-acp/parley/internal/xdg"
	_ "modernc.org/sqlite" // the "sqlite" database/sql driver
)

// Store is an open parley database. It is safe for concurrent use.
type Store struct {
	db   *sql.DB
	path string
}

// DefaultPath is where parley keeps its database: parley.db in the XDG data directory.
func DefaultPath() string { return filepath.Join(xdg.DataDir(), "parley.db") }

// Open opens the database at path, creating it (and its directory, readable only by the
// user) if needed, and brings its schema up to date.
func Open(path string) (*Store, error) {
	if path == "" {
		return nil, errors.New("opening the parley database: no path given")
	}
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("opening the parley database %s: %w", path, err)
	}
	if err := create(abs); err != nil {
		return nil, fmt.Errorf("opening the parley database: %w", err)
	}
	db, err := sql.Open("sqlite", dsn(abs))
	if err != nil {
		return nil, fmt.Errorf("opening the parley database %s: %w", abs, err)
	}
	// One connection: writes are serialised by SQLite anyway, and one connection can never
	// wait on another connection of the same process. The connection is kept open.
	db.SetMaxOpenConns(1)
	db.SetMaxIdleConns(1)
	db.SetConnMaxLifetime(0)
	db.SetConnMaxIdleTime(0)
	s := &Store{db: db, path: abs}
	if err := s.migrate(context.Background()); err != nil {
		db.Close()
		return nil, fmt.Errorf("opening the parley database %s: %w", abs, err)
	}
	return s, nil
}

// create makes the database's directory (0700) and an empty file (0600) if they are
// missing, so that SQLite, which creates files with the process umask, never makes a
// database other users can read. SQLite gives its -wal and -shm files the database file's
// permissions.
func create(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return err
	}
	return f.Close()
}

// dsn is the modernc.org/sqlite data source name for path: a file: URI (so that any
// character in the path survives) with the connection settings as query parameters.
func dsn(path string) string {
	u := url.URL{Scheme: "file", OmitHost: true, Path: filepath.ToSlash(path)}
	q := url.Values{}
	// modernc applies _pragma values in order, on every new connection: the busy timeout
	// first, so that even switching to WAL waits for another process's lock.
	q.Add("_pragma", "busy_timeout(5000)")  // wait up to 5 s for another process's lock
	q.Add("_pragma", "journal_mode(WAL)")   // readers do not block the writer, nor it them
	q.Add("_pragma", "synchronous(NORMAL)") // durable at checkpoints; safe with WAL
	q.Add("_pragma", "foreign_keys(1)")     // for the tables that will reference each other
	q.Set("_txlock", "immediate")           // BEGIN takes the write lock: no upgrade deadlocks
	u.RawQuery = q.Encode()
	return u.String()
}

// Path is the database file's absolute path.
func (s *Store) Path() string { return s.path }

// Close closes the database.
func (s *Store) Close() error { return s.db.Close() }
