package main

import (
	"bufio"
	"fmt"
	"os"
	"strings"

	"github.com/parley-acp/parley/internal/json"
)

// runHostileAgent is an agent that speaks just enough raw ACP to get a turn, then
// misbehaves in the way behaviour names. Its prompt's words are its arguments.
//
//	deaf FILE FIFO   asks for FILE 200 times and stops reading its stdin, so that parley's
//	                 answers jam the pipe; writes its pid to FIFO once it has asked; waits
//	                 for ever
//	mute-new         never answers session/new
//	mute-set         has modes, and never answers session/set_mode (or any other
//	                 session/* request but new and prompt)
func runHostileAgent(behaviour string) int {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	send := func(v any) {
		b, _ := json.Marshal(v)
		out.Write(append(b, '\n'))
		out.Flush()
	}
	for {
		line, err := in.ReadBytes('\n')
		if err != nil {
			return 0
		}
		var msg struct {
			ID     json.RawMessage `json:"id"`
			Method string          `json:"method"`
			Params struct {
				Prompt []struct {
					Text string `json:"text"`
				} `json:"prompt"`
			} `json:"params"`
		}
		if json.Unmarshal(line, &msg) != nil || msg.ID == nil {
			continue
		}
		reply := func(result any) { send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "result": result}) }
		switch msg.Method {
		case "initialize":
			reply(map[string]any{"protocolVersion": 1, "agentCapabilities": map[string]any{}})
		case "session/new":
			if behaviour == "mute-new" {
				continue
			}
			reply(map[string]any{"sessionId": "s1", "modes": map[string]any{"currentModeId": "a",
				"availableModes": []any{map[string]any{"id": "a", "name": "A"}, map[string]any{"id": "b", "name": "B"}}}})
		case "session/prompt":
			var args []string
			for _, b := range msg.Params.Prompt {
				args = append(args, strings.Fields(b.Text)...)
			}
			switch behaviour {
			case "deaf":
				for i := range 200 {
					send(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "fs/read_text_file",
						"params": map[string]any{"sessionId": "s1", "path": args[0]}})
				}
				os.WriteFile(args[1], []byte(fmt.Sprint(os.Getpid())), 0)
				select {} // never reads again
			}
			reply(map[string]any{"stopReason": "end_turn"})
		default:
			if behaviour == "mute-set" && strings.HasPrefix(msg.Method, "session/") {
				continue
			}
			send(map[string]any{"jsonrpc": "2.0", "id": msg.ID, "error": map[string]any{"code": -32601, "message": "no"}})
		}
	}
}
