-- The coding agent's (parley agent) sessions and checkpoints. Times are Unix milliseconds.

-- One row per session; its conversation is in agent_session_entries.
CREATE TABLE agent_sessions (
	id          TEXT    PRIMARY KEY,
	cwd         TEXT    NOT NULL,
	extra_roots TEXT    NOT NULL DEFAULT '[]', -- JSON array: the further workspace roots
	title       TEXT    NOT NULL DEFAULT '',
	created_at  INTEGER NOT NULL,
	updated_at  INTEGER NOT NULL
) WITHOUT ROWID;

CREATE INDEX agent_sessions_by_update ON agent_sessions (updated_at DESC, id);

-- A session's conversation, in order: kind 'message' is one message of the model's
-- history, kind 'update' one session/update a client is shown again on session/load.
-- body is JSON.
CREATE TABLE agent_session_entries (
	session_id TEXT    NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
	seq        INTEGER NOT NULL,
	kind       TEXT    NOT NULL CHECK (kind IN ('message', 'update')),
	body       TEXT    NOT NULL,
	PRIMARY KEY (session_id, seq)
) WITHOUT ROWID;

-- One checkpoint per turn that wrote files (and per undo): numbered 1, 2, 3... in its session.
CREATE TABLE checkpoints (
	id         INTEGER PRIMARY KEY,
	session_id TEXT    NOT NULL REFERENCES agent_sessions (id) ON DELETE CASCADE,
	number     INTEGER NOT NULL,
	label      TEXT    NOT NULL,
	created_at INTEGER NOT NULL,
	UNIQUE (session_id, number)
);

-- Each file a checkpoint wrote: whether the checkpoint created it, the size of what it
-- held before, and the SHA-256 of what the checkpoint left (written; NULL when it left
-- no file). The content before is in checkpoint_originals while it is kept.
CREATE TABLE checkpoint_files (
	id            INTEGER PRIMARY KEY,
	checkpoint_id INTEGER NOT NULL REFERENCES checkpoints (id) ON DELETE CASCADE,
	path          TEXT    NOT NULL,
	created       INTEGER NOT NULL CHECK (created IN (0, 1)),
	size          INTEGER NOT NULL,
	written       TEXT,
	status        TEXT    NOT NULL CHECK (status IN ('pending', 'kept', 'undone', 'expired')),
	UNIQUE (checkpoint_id, path)
);

-- The content a file held before its checkpoint first wrote it. A table of its own, so
-- that updating a file's status or hash never rewrites a large blob.
CREATE TABLE checkpoint_originals (
	file_id INTEGER PRIMARY KEY REFERENCES checkpoint_files (id) ON DELETE CASCADE,
	content BLOB    NOT NULL
);
