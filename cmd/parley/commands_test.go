//go:build !windows

package main

// The chat commands both terminal chats take from one table (internal/chatcmd, issue 30):
// those only one of the two had before work in both, and a near miss of one of parley's
// is answered with the command meant instead of going to the agent.

import "testing"

// TestChatFindHelpAndDidYouMean: the line chat finds what was said (/find, which only the
// terminal UI had), explains a command, asks what a typo meant, and still sends the
// agent's own commands.
func TestChatFindHelpAndDidYouMean(t *testing.T) {
	term := startTerminal(t, "chat", "--agent", "eliza")
	term.expect("is ready")
	term.typeLine("I am worried about my tests")
	term.expect("worried about your tests")
	term.typeLine("/find WORRIED")
	term.expect(`lines say "WORRIED"`)
	term.expect("turn 1, you: I am worried about my tests")
	term.expect("turn 1, agent:")
	term.typeLine("/find nowhere-said")
	term.expect(`Nothing in this conversation says "nowhere-said"`)
	term.typeLine("/undp")
	term.expect("did you mean /undo?")
	term.typeLine("/help undo")
	term.expect("An undo is recorded like a turn")
	term.typeLine("/sessions purge x")
	term.expect(`takes close or delete, not "purge"`)
	term.typeLine("/flood 2") // the agent's own command goes to it
	term.expect("0 1")
	term.typeLine("/quit")
	term.wait(t, 0)
}

// TestTUISessionsCloseDeleteAndConfigSet: /sessions close|delete ID and /config ID VALUE,
// which only the line chat took, in the terminal UI; /load where the agent cannot reopen
// sessions says so; a wrong use says how to use it; a typo asks what was meant.
func TestTUISessionsCloseDeleteAndConfigSet(t *testing.T) {
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent-command", fakeAgentCommand(t, "scripted"))
	s.WaitText("scripted · Ask first · Small")
	s.Type("/new\r")
	s.WaitText("(new session scripted-2)")
	s.Type("/new\r")
	s.WaitText("(new session scripted-3)")
	s.Type("/sessions close scripted-1\r")
	s.WaitText("(session scripted-1 closed)")
	s.Type("/sessions delete scripted-2\r")
	s.WaitText("(session scripted-2 deleted)")
	s.Type("/sessions close\r")
	s.WaitText("/sessions: needs ID (usage: /sessions [close|delete ID])")
	s.Type("/load scripted-1\r")
	s.WaitText("cannot reopen sessions")
	s.Type("/config mode code\r")
	s.WaitText("Mode: code")
	s.WaitText("scripted · Write code · Small")
	s.Type("/chnages\r")
	s.WaitText("did you mean /changes?")
}

// TestTUILoadAndFind: /load ID in the terminal UI reopens a session (the agent replays
// it), and /find searches the transcript.
func TestTUILoadAndFind(t *testing.T) {
	w := newWorkspace(t)
	s := startTUI(t, w.dir, w.env, 100, 30, "chat", "--agent", "eliza")
	s.Type("I am worried about my tests\r")
	s.WaitText("worried about your tests")
	s.Type("/new\r")
	s.WaitText("(new session eliza-2)")
	s.Type("/load eliza-1\r")
	s.WaitText("(session eliza-1)")
	s.Type("/find worried\r")
	s.WaitText("find: worried")
}
