package acpserver

import (
	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// pageCommands answers _parley/commands from internal/chatcmd's table.
func pageCommands() parleyapi.CommandsResult {
	out := parleyapi.CommandsResult{Commands: []parleyapi.Command{}}
	for _, c := range chatcmd.For(chatcmd.Page) {
		e := parleyapi.Command{Name: c.Name, Aliases: c.Aliases, Usage: c.Usage(), Summary: c.Summary, Help: c.Help, Args: []parleyapi.CommandArg{}}
		for _, a := range c.Args {
			e.Args = append(e.Args, parleyapi.CommandArg{Name: a.Name, Kind: string(a.Kind), Optional: a.Optional, Rest: a.Rest, Words: a.Words})
		}
		out.Commands = append(out.Commands, e)
	}
	return out
}
