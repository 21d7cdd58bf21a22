-- The record of changes (internal/changes), which replaces the coding agent's own
-- checkpoints (dropped with what they held). Per workspace: its files as the last
-- snapshot saw them, and the content kept to undo. Per conversation with an agent there:
-- its turns (and undos), and the files each one created, changed or deleted. Times are
-- Unix milliseconds; a file's mtime and ctime are Unix nanoseconds.

DROP TABLE checkpoint_originals;
DROP TABLE checkpoint_files;
DROP TABLE checkpoints;

CREATE TABLE change_workspaces (
	id      INTEGER PRIMARY KEY,
	root    TEXT    NOT NULL UNIQUE, -- the first workspace root, symlinks resolved
	used_at INTEGER NOT NULL
);

-- A file as the workspace's last snapshot saw it: what it is compared with to find
-- changes. hash is the SHA-256 (hex) of its content, NULL when it was too large to read;
-- the content itself is in change_blobs when it is kept.
CREATE TABLE change_files (
	workspace_id INTEGER NOT NULL REFERENCES change_workspaces (id) ON DELETE CASCADE,
	path         TEXT    NOT NULL,
	size         INTEGER NOT NULL,
	mtime        INTEGER NOT NULL,
	ctime        INTEGER NOT NULL,
	inode        INTEGER NOT NULL,
	mode         INTEGER NOT NULL,
	kind         TEXT    NOT NULL CHECK (kind IN ('text', 'binary', 'large')),
	hash         TEXT,
	PRIMARY KEY (workspace_id, path)
) WITHOUT ROWID;

-- Content kept, by hash, once per workspace however many files and turns share it.
CREATE TABLE change_blobs (
	workspace_id INTEGER NOT NULL REFERENCES change_workspaces (id) ON DELETE CASCADE,
	hash         TEXT    NOT NULL,
	size         INTEGER NOT NULL,
	content      BLOB    NOT NULL,
	PRIMARY KEY (workspace_id, hash)
);

-- A conversation with an agent in the workspace: one ACP session of parley chat or run,
-- or of parley's own agent.
CREATE TABLE change_sessions (
	id            INTEGER PRIMARY KEY,
	workspace_id  INTEGER NOT NULL REFERENCES change_workspaces (id) ON DELETE CASCADE,
	agent         TEXT    NOT NULL,
	agent_session TEXT    NOT NULL,
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
);

CREATE INDEX change_sessions_by_workspace ON change_sessions (workspace_id, updated_at);
CREATE INDEX change_sessions_by_agent_session ON change_sessions (agent_session);

-- A turn that changed files, or an undo: numbered 1, 2, 3... in its session.
CREATE TABLE change_turns (
	id         INTEGER PRIMARY KEY,
	session_id INTEGER NOT NULL REFERENCES change_sessions (id) ON DELETE CASCADE,
	number     INTEGER NOT NULL,
	label      TEXT    NOT NULL,            -- the prompt, or what the undo undid
	undo       INTEGER NOT NULL DEFAULT 0,  -- 1 for an undo
	started_at INTEGER NOT NULL,
	ended_at   INTEGER,                     -- NULL while the turn runs
	UNIQUE (session_id, number)
);

-- A file a turn created, changed or deleted: what it was before the turn and after it
-- (kind 'none': no file; hash NULL: too large to read, then sig identifies it: size,
-- times and inode), its lines added and removed, whether the agent wrote it through
-- parley (fs/write_text_file), and where it stands.
CREATE TABLE change_turn_files (
	turn_id     INTEGER NOT NULL REFERENCES change_turns (id) ON DELETE CASCADE,
	path        TEXT    NOT NULL,
	before_kind TEXT    NOT NULL CHECK (before_kind IN ('none', 'text', 'binary', 'large')),
	before_hash TEXT,
	before_size INTEGER NOT NULL,
	before_sig  TEXT    NOT NULL,
	after_kind  TEXT    NOT NULL CHECK (after_kind IN ('none', 'text', 'binary', 'large')),
	after_hash  TEXT,
	after_size  INTEGER NOT NULL,
	after_sig   TEXT    NOT NULL,
	added       INTEGER NOT NULL DEFAULT 0,
	removed     INTEGER NOT NULL DEFAULT 0,
	written     INTEGER NOT NULL DEFAULT 0,
	status      TEXT    NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'undone', 'kept', 'expired')),
	PRIMARY KEY (turn_id, path)
) WITHOUT ROWID;
