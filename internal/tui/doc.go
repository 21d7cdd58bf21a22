// Package tui is parley chat's terminal UI: a full-screen view of conversations of the
// conversation core (internal/conversation), in the Elm architecture of bubbletea. It
// owns nothing of a conversation: it draws the events a Subscription delivers and calls
// the conversation's commands (Send, Unqueue, Cancel, Answer, SetMode…) for what the
// user does. Commands that wait for an agent run as tea.Cmds, never in Update, so the
// screen never waits for an agent.
//
// # One component per thing on screen
//
//   - transcript.go: the conversation as lines, item by item (items.go: the user's
//     prompts, the agent's Markdown replies, thoughts, tool calls, plans, notices).
//     Each item is rendered at the width once and kept until it changes; a frame costs
//     the lines on screen, not the conversation's length. It scrolls, keeps still while
//     the user reads back, selects and expands items, and finds text.
//   - markdown.go, mdblocks.go, mdinline.go: parley's own Markdown renderer over
//     goldmark's parser (headings, emphasis, code, quotes, lists and tasks, links,
//     tables; code is not highlighted), wrapped at the width in terminal cells, in the
//     theme's colours. A reply that streams is rendered block by block: complete blocks
//     once, the growing one each frame (as plain wrapped text while it is larger than a
//     frame can render).
//   - composer.go, completion.go, history.go, attach.go: the editor, its @file and
//     /command completion, the prompts sent in the workspace (kept across runs, Ctrl+R),
//     and the blocks a prompt carries (files as embedded text or links, images) as the
//     agent's prompt capabilities allow.
//   - question.go: a permission question in the composer's place (what runs, or the
//     edit's diff, its risk, the answers as keys); keys typed before it was drawn, or in
//     its first moment, answer nothing.
//   - elicit.go, signin.go: the agent's questions (a form a field at a time, a page to
//     open only on consent) and sign-in (its methods as a picker; a terminal method's
//     program gets the terminal through tea.ExecProcess; variables asked masked).
//   - changes.go: what each turn changed, and /changes, /diff, /undo, /rewind, /keep.
//   - welcome.go: the first screen, until something is sent: the workspace, the agent and
//     what it is, the agents parley knows (runs here, needs a download, cannot run, no
//     sign-in found); with the composer empty, Tab highlights one and Enter starts a
//     conversation with it as /agent does, so nothing typed is taken for a choice.
//   - picker.go, commands.go: filterable lists for agents and conversations, sessions,
//     modes, models and config options, and parley's slash commands.
//   - status.go: what happens (moving from the moment a prompt is sent until the turn
//     ends, and while the agent starts), the agent, mode, model and context use, and the
//     keys that matter now (Ctrl-C's rule among them).
//   - files.go: the workspace's files for @ (git ls-files in a work tree, else a walk that
//     honours .gitignore), searched fuzzily.
//
// # Frames
//
// A conversation's events are taken in batches (Subscription.Take) at most once a frame
// (16 ms): a flood of chunks is applied and drawn once per frame, and keys are handled
// between frames. Nothing ticks while nothing moves: the spinner's clock runs only while
// an agent starts, a turn runs or a command's output is read.
//
// # Leaving
//
// The screen is the terminal's alternate screen; when the user leaves, the transcript is
// printed on the normal screen, so what was shown stays in the terminal's scrollback.
// Ctrl-C cancels the turn; a second quits, whether or not the cancel is over (between
// turns, two within two seconds quit).
//
// A panic of the screen (Update, View, Init, a command, a callback bubbletea runs in its
// loop) is caught (panics.go): the terminal is restored by bubbletea's own restore, no
// transcript is printed, and Run returns the *Panic with its stack for parley chat to
// log; PARLEY_TEST_PANIC is the hook its tests make one with.
package tui
