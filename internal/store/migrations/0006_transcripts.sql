-- The transcripts of the conversations parley holds as a client host, per workspace, so
-- that one outlives the run that had it: parley run --continue, --session, --fork,
-- --from, /fork, /handoff, /rewind (internal/conversation/carry.go). Times are Unix
-- milliseconds.
CREATE TABLE transcripts (
	id            TEXT    PRIMARY KEY,           -- parley's id for the conversation
	workspace     TEXT    NOT NULL,              -- its working directory
	agent         TEXT    NOT NULL,              -- the agent, as the user named it
	agent_session TEXT    NOT NULL DEFAULT '',   -- the agent's session id
	title         TEXT    NOT NULL DEFAULT '',   -- the agent's, or the first prompt's first line
	from_id       TEXT    NOT NULL DEFAULT '',   -- the conversation it carries on, if any
	from_turn     INTEGER NOT NULL DEFAULT 0,    -- the turns of from_id it started with
	how           TEXT    NOT NULL DEFAULT 'new', -- new, resume, load, fork, seeded, summarised
	created_at    INTEGER NOT NULL,
	updated_at    INTEGER NOT NULL
);
CREATE INDEX transcripts_by_workspace ON transcripts (workspace, updated_at);
CREATE INDEX transcripts_by_session ON transcripts (workspace, agent, agent_session);

-- One turn: the user's prompt, the agent's reply, its tool calls (JSON: title, kind,
-- status) and how it ended; change_turn is its number in the record of changes (0: none).
CREATE TABLE transcript_turns (
	transcript_id TEXT    NOT NULL REFERENCES transcripts (id) ON DELETE CASCADE,
	seq           INTEGER NOT NULL,
	prompt        TEXT    NOT NULL,
	reply         TEXT    NOT NULL,
	tools         TEXT    NOT NULL DEFAULT '[]',
	stop          TEXT    NOT NULL DEFAULT '',
	change_turn   INTEGER NOT NULL DEFAULT 0,
	ended_at      INTEGER NOT NULL,
	PRIMARY KEY (transcript_id, seq)
) WITHOUT ROWID;
