// Package linechat is parley chat without its terminal UI: a view of one conversation
// (internal/conversation) that reads lines and writes them, for a pipe, a file, TERM=dumb,
// NO_COLOR or --plain. Run is the chat's one goroutine: it reads the input (Prompter, a
// reader that tags each line with an epoch so that only what is typed once a question is
// on screen answers it), draws the conversation's events (Console, through a toolui
// renderer) and runs the commands of internal/chatcmd's table.
//
// parley run and parley login are line views too: they use the Console, the Prompter,
// the permission question and the form of an elicitation from here; internal/cli starts
// the conversation and wires them.
package linechat
