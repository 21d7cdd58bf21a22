// Package chatcmd is the one table of parley's chat commands (/changes, /undo,
// /sessions…) and what the commands that act on the conversation do.
//
// Every front-end takes its commands from Table: the line chat (internal/linechat) and
// the terminal UI (internal/tui) parse a line with Parse and list, complete and explain
// the commands they offer from it; the web page asks for them (_parley/commands,
// internal/acpserver) and @parley's package.json is checked against it by a test. A
// command the table does not know is the agent's: the front-end sends it as typed.
//
// What a command does to the conversation (review and undo changes, the agent's other
// sessions, modes, models and settings) is one function here over
// internal/conversation, which every front-end calls; a front-end only draws the result
// (as lines, or on its screen) and keeps to itself what is about its screen alone
// (/copy, /find in the terminal UI; /agent, which switches its conversations).
package chatcmd
