package changes

import "time"

// Limits bound what the record keeps and costs. The zero value of a field means its
// default; config.json's "changes" section sets them (internal/config).
type Limits struct {
	// MaxFileBytes: a file larger than this is recorded by its size and times, not read:
	// a change to it is listed but cannot be undone (default 1 MiB). A file written through
	// parley is always kept whole up to workspace.MaxReadBytes.
	MaxFileBytes int64
	// MaxBytes is the content one workspace keeps (default 256 MiB). The first snapshot
	// keeps files until three quarters of it are used (later files are recorded by hash:
	// a change to them is listed, not undoable); past it, the oldest turns expire.
	MaxBytes int64
	// MaxAge: turns older than this are forgotten, and workspaces not used for as long
	// with everything kept for them (default 30 days).
	MaxAge time.Duration
	// MaxFiles: a workspace with more files (that git would not ignore) is not followed:
	// only what the agent writes through parley is recorded (default 100,000).
	MaxFiles int
	// Off: nothing is recorded.
	Off bool
}

const (
	defaultMaxFileBytes = 1 << 20
	defaultMaxBytes     = 256 << 20
	defaultMaxAge       = 30 * 24 * time.Hour
	defaultMaxFiles     = 100_000
)

func (l Limits) withDefaults() Limits {
	if l.MaxFileBytes <= 0 {
		l.MaxFileBytes = defaultMaxFileBytes
	}
	if l.MaxBytes <= 0 {
		l.MaxBytes = defaultMaxBytes
	}
	if l.MaxAge <= 0 {
		l.MaxAge = defaultMaxAge
	}
	if l.MaxFiles <= 0 {
		l.MaxFiles = defaultMaxFiles
	}
	return l
}

// baselineBytes is what the first snapshot may keep of the workspace's files.
func (l Limits) baselineBytes() int64 { return l.MaxBytes / 4 * 3 }
