package main

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// runHostileAgent is an agent that speaks just enough raw ACP to get a turn, then
// misbehaves in the way behaviour names. Its prompt's words are its arguments.
//
//	deaf FILE FIFO   asks for FILE 200 times and stops reading its stdin, so that parley's
//	                 answers jam the pipe (FILE is larger than a pipe holds); writes its pid
//	                 to FIFO once the first answer is arriving; waits for ever
//	memhog FILE N S M R  tries to exhaust parley's memory: 400 terminals printing for ever
//	                 (each asking to keep 1 TiB of output), for S seconds; then R
//	                 reads of FILE at once (control bytes, which JSON escaping inflates);
//	                 N tool calls, each started and completed; M MB on stderr
//	mute-new         never answers session/new
//	mute-set         has modes, and never answers session/set_mode (or any other
//	                 session/* request but new and prompt)
func runHostileAgent(behaviour string) int {
	in := bufio.NewReaderSize(os.Stdin, 1<<20)
	out := bufio.NewWriter(os.Stdout)
	var sendMu sync.Mutex
	send := func(v any) {
		b, _ := json.Marshal(v)
		sendMu.Lock()
		defer sendMu.Unlock()
		out.Write(append(b, '\n'))
		out.Flush()
	}
	var next func() ([]byte, error)
	if behaviour == "memhog" { // answers keep coming while it floods: read them all along
		lines := make(chan []byte)
		go func() {
			defer close(lines)
			for {
				line, err := in.ReadBytes('\n')
				if err != nil {
					return
				}
				if strings.Contains(string(line), `"method"`) {
					lines <- line
				} else {
					memhogAnswers.Add(1)
				}
			}
		}()
		next = func() ([]byte, error) {
			line, ok := <-lines
			if !ok {
				return nil, io.EOF
			}
			return line, nil
		}
	} else {
		next = func() ([]byte, error) { return in.ReadBytes('\n') }
	}
	for {
		line, err := next()
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
			case "memhog":
				memhog(send, args)
				reply(map[string]any{"stopReason": "end_turn"})
				continue
			case "deaf":
				for i := range 200 {
					send(map[string]any{"jsonrpc": "2.0", "id": 1000 + i, "method": "fs/read_text_file",
						"params": map[string]any{"sessionId": "s1", "path": args[0]}})
				}
				for !stdinHasData() { // an answer larger than the pipe is being written: the writer is stuck
					time.Sleep(time.Millisecond)
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

// memhogAnswers counts the answers memhog got (it sends only requests that expect one).
var memhogAnswers atomic.Int64

func memhog(send func(any), args []string) {
	file := args[0]
	updates, _ := strconv.Atoi(args[1])
	seconds, _ := strconv.ParseFloat(args[2], 64)
	stderrMB, _ := strconv.Atoi(args[3])
	reads, _ := strconv.Atoi(args[4])
	request := func(id int, method string, params map[string]any) {
		params["sessionId"] = "s1"
		send(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	}
	asked := 0
	for i := range 400 {
		request(10000+i, "terminal/create", map[string]any{"command": "yes", "args": []string{strings.Repeat("y", 100)}, "outputByteLimit": uint64(1) << 40})
		asked++
	}
	time.Sleep(time.Duration(seconds * float64(time.Second))) // the terminals print meanwhile
	for i := range reads {
		request(20000+i, "fs/read_text_file", map[string]any{"path": file})
		asked++
	}
	for i := range updates {
		id := fmt.Sprintf("call-%d", i)
		send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "s1",
			"update": map[string]any{"sessionUpdate": "tool_call", "toolCallId": id, "title": "Read " + id, "kind": "read", "status": "in_progress"}}})
		send(map[string]any{"jsonrpc": "2.0", "method": "session/update", "params": map[string]any{"sessionId": "s1",
			"update": map[string]any{"sessionUpdate": "tool_call_update", "toolCallId": id, "status": "completed",
				"content": []any{map[string]any{"type": "content", "content": map[string]any{"type": "text", "text": strings.Repeat("output ", 20)}}}}}})
	}
	line := []byte(strings.Repeat("the agent's stderr never stops ", 32) + "\n")
	for written := 0; written < stderrMB<<20; written += len(line) {
		os.Stderr.Write(line)
	}
	for memhogAnswers.Load() < int64(asked) { // every request answered (with an error or not)
		time.Sleep(10 * time.Millisecond)
	}
}
