-- The permission bits of each side of a change (internal/changes): a turn that only made
-- a file executable is a change, and an undo restores the mode. 0: not known (a change
-- recorded before this, or a file read through an editor's fs/*, which tells no mode).

ALTER TABLE change_turn_files ADD COLUMN before_mode INTEGER NOT NULL DEFAULT 0;
ALTER TABLE change_turn_files ADD COLUMN after_mode INTEGER NOT NULL DEFAULT 0;
