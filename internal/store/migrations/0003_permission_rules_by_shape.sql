-- Remembered "always" decisions about commands were keyed by the program and its first
-- argument ("execute:rm"), so one answer covered far more than the command approved.
-- Keys are now the command's shape (see internal/safety); the old ones are dropped, and
-- the user is asked again. Each decision keeps the words the question showed for it.
DELETE FROM permission_rules WHERE tool_key LIKE 'execute:%';
ALTER TABLE permission_rules ADD COLUMN description TEXT NOT NULL DEFAULT '';
