-- Permission decisions the user chose to remember ("always allow", "always reject"), one
-- per agent, workspace and tool key. created_at is Unix time in milliseconds.
CREATE TABLE permission_rules (
	agent      TEXT    NOT NULL,
	workspace  TEXT    NOT NULL,
	tool_key   TEXT    NOT NULL,
	decision   TEXT    NOT NULL CHECK (decision IN ('allow', 'reject')),
	created_at INTEGER NOT NULL,
	PRIMARY KEY (agent, workspace, tool_key)
) WITHOUT ROWID;

CREATE INDEX permission_rules_by_workspace ON permission_rules (workspace);
