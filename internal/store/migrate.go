package store

import (
	"context"
	"database/sql"
	"embed"
	"fmt"
	"io/fs"
	"path"
	"strconv"
	"strings"
	"time"
)

// migrations are the schema's steps, NNNN_what.sql, applied in order. PRAGMA user_version
// records how many have run. A migration is never edited once released: add the next one.
//
//go:embed migrations/*.sql
var migrations embed.FS

type migration struct {
	version int
	name    string
	sql     string
}

// loadMigrations returns the embedded migrations in order, checking that their numbers
// run 1, 2, 3... without gaps.
func loadMigrations() ([]migration, error) {
	files, err := fs.Glob(migrations, "migrations/*.sql")
	if err != nil {
		return nil, err
	}
	var out []migration
	for i, file := range files { // fs.Glob returns names sorted
		name := path.Base(file)
		num, _, ok := strings.Cut(name, "_")
		version, err := strconv.Atoi(num)
		if !ok || err != nil || version != i+1 {
			return nil, fmt.Errorf("migration %s: want a name starting %04d_", name, i+1)
		}
		body, err := migrations.ReadFile(file)
		if err != nil {
			return nil, err
		}
		out = append(out, migration{version: version, name: name, sql: string(body)})
	}
	return out, nil
}

// migrate applies the migrations the database has not seen, all in one transaction. The
// transaction begins IMMEDIATE (the _txlock setting), so two processes opening a new
// database at once take turns, and the second finds the work done.
func (s *Store) migrate(ctx context.Context) error {
	all, err := loadMigrations()
	if err != nil {
		return err
	}
	tx, err := s.beginMigration(ctx)
	if err != nil {
		return fmt.Errorf("starting the schema migration: %w", err)
	}
	defer tx.Rollback()
	var current int
	if err := tx.QueryRowContext(ctx, "PRAGMA user_version").Scan(&current); err != nil {
		return fmt.Errorf("reading the schema version: %w", err)
	}
	if current > len(all) {
		return fmt.Errorf("the database has schema version %d, newer than this parley knows (%d); upgrade parley", current, len(all))
	}
	if current == len(all) {
		return nil
	}
	for _, m := range all[current:] {
		if _, err := tx.ExecContext(ctx, m.sql); err != nil {
			return fmt.Errorf("migration %s: %w", m.name, err)
		}
	}
	// PRAGMA takes no parameters; the number is ours, not input.
	if _, err := tx.ExecContext(ctx, "PRAGMA user_version = "+strconv.Itoa(len(all))); err != nil {
		return fmt.Errorf("recording schema version %d: %w", len(all), err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("committing the schema migration: %w", err)
	}
	return nil
}

// beginMigration begins the migration's transaction. SQLite answers SQLITE_BUSY without
// waiting on the busy timeout while another process switches a new database to WAL, so
// that case is retried here for a few seconds.
func (s *Store) beginMigration(ctx context.Context) (*sql.Tx, error) {
	deadline := time.Now().Add(5 * time.Second)
	for delay := 5 * time.Millisecond; ; delay = min(2*delay, 200*time.Millisecond) {
		tx, err := s.db.BeginTx(ctx, nil)
		if err == nil || !strings.Contains(err.Error(), "SQLITE_BUSY") || time.Now().After(deadline) {
			return tx, err
		}
		select {
		case <-time.After(delay):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}
