//go:build linux

package realagents

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"io"
	"os/exec"
	"slices"
	"syscall"
	"testing"
	"time"

	"github.com/parley-acp/parley/internal/json"
)

// timingRounds is how often each way is measured per agent; the median is reported.
const timingRounds = 3

// TestFirstReply measures, per agent, the time from spawning it to the first reply chunk:
// driven directly by this suite's minimal ACP client, and under `parley run` (spawn of
// parley to the first byte on its stdout). The difference is parley's own share. It runs
// after the scenarios, one agent at a time, alternating the two ways, and only reports:
// figures, not a target.
func TestFirstReply(t *testing.T) {
	parleyBinary(t)
	for _, a := range agentDefs {
		t.Run(a.name, func(t *testing.T) {
			requireInstalled(t, a)
			model := newModel(t)
			var direct, viaParley []time.Duration
			for range timingRounds {
				sb := newSandbox(t, a, model)
				d, err := directFirstReply(sb)
				if err != nil {
					t.Fatalf("direct: %v", err)
				}
				direct = append(direct, d)
				sb = newSandbox(t, a, model)
				start := time.Now()
				r := sb.startRun(t, false, markPlain+" Say hello.")
				select {
				case <-r.out.first:
				case <-r.done:
					t.Fatalf("parley run ended without a reply\n%s", r)
				}
				viaParley = append(viaParley, r.out.at.Sub(start))
				if code := r.wait(t); code != 0 {
					t.Fatalf("parley run: exit %d\n%s", code, r)
				}
			}
			d, p := median(direct), median(viaParley)
			t.Logf("first reply: %-9s direct %6.0f ms   parley run %6.0f ms   parley's share %5.0f ms (%3.0f%%)   fastest: direct %6.0f, parley %6.0f ms",
				a.name, ms(d), ms(p), ms(p-d), 100*float64(p-d)/float64(p), ms(slices.Min(direct)), ms(slices.Min(viaParley)))
		})
	}
}

func median(ds []time.Duration) time.Duration {
	s := slices.Clone(ds)
	slices.Sort(s)
	return s[len(s)/2]
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// directFirstReply drives the agent with a minimal ACP client of its own (raw JSON-RPC,
// nothing of parley's): initialize, session/new, session/prompt, and returns the time
// from spawning the agent to its first agent_message_chunk. The agent's process group is
// ended afterwards.
func directFirstReply(sb *sandbox) (time.Duration, error) {
	argv := sb.agent.argv()
	ctx, cancel := context.WithTimeout(context.Background(), runTimeout)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env, cmd.Dir = sb.env, sb.workspace
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return 0, err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return 0, err
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		return 0, err
	}
	defer func() {
		stdin.Close()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		cmd.Wait()
	}()
	lines := make(chan []byte)
	go func() {
		defer close(lines)
		sc := bufio.NewScanner(stdout)
		sc.Buffer(make([]byte, 1<<20), 64<<20)
		for sc.Scan() {
			select {
			case lines <- slices.Clone(sc.Bytes()):
			case <-ctx.Done():
				return
			}
		}
	}()
	c := &rawClient{in: stdin, lines: lines, ctx: ctx}
	caps := map[string]any{"fs": map[string]any{"readTextFile": true, "writeTextFile": true}, "terminal": true}
	if _, err := c.call(1, "initialize", map[string]any{"protocolVersion": 1, "clientCapabilities": caps}, nil); err != nil {
		return 0, fmt.Errorf("initialize: %w\n%s", err, stderr.String())
	}
	res, err := c.call(2, "session/new", map[string]any{"cwd": sb.workspace, "mcpServers": []any{}}, nil)
	if err != nil {
		return 0, fmt.Errorf("session/new: %w\n%s", err, stderr.String())
	}
	var sess struct{ SessionID string }
	json.Unmarshal(res, &sess)
	var first time.Duration
	_, err = c.call(3, "session/prompt", map[string]any{"sessionId": sess.SessionID, "prompt": []any{map[string]any{"type": "text", "text": markPlain + " Say hello."}}},
		func(update map[string]any) bool {
			if update["sessionUpdate"] == "agent_message_chunk" && first == 0 {
				first = time.Since(start)
				return true
			}
			return false
		})
	if err != nil {
		return 0, fmt.Errorf("session/prompt: %w\n%s", err, stderr.String())
	}
	if first == 0 {
		return 0, fmt.Errorf("the turn ended without a reply chunk")
	}
	return first, nil
}

// rawClient is the least an ACP client must do: send a request, answer the agent's
// requests with method-not-found, and watch session/update notifications.
type rawClient struct {
	in    io.Writer
	lines <-chan []byte
	ctx   context.Context
}

// call sends a request and waits for its response; onUpdate sees each update meanwhile
// and may end the wait early by returning true.
func (c *rawClient) call(id int, method string, params any, onUpdate func(map[string]any) bool) (json.RawMessage, error) {
	line, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": id, "method": method, "params": params})
	if _, err := c.in.Write(append(line, '\n')); err != nil {
		return nil, err
	}
	for {
		var raw []byte
		select {
		case l, ok := <-c.lines:
			if !ok {
				return nil, fmt.Errorf("the agent closed its output")
			}
			raw = l
		case <-c.ctx.Done():
			return nil, c.ctx.Err()
		}
		var m struct {
			ID     *json.RawMessage `json:"id"`
			Method string           `json:"method"`
			Params struct {
				Update map[string]any `json:"update"`
			} `json:"params"`
			Result json.RawMessage `json:"result"`
			Error  json.RawMessage `json:"error"`
		}
		if json.Unmarshal(raw, &m) != nil {
			continue
		}
		switch {
		case m.Method == "session/update" && onUpdate != nil:
			if onUpdate(m.Params.Update) {
				return nil, nil
			}
		case m.Method != "" && m.ID != nil:
			reply, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": m.ID, "error": map[string]any{"code": -32601, "message": "not supported"}})
			c.in.Write(append(reply, '\n'))
		case m.Method == "" && m.ID != nil && string(*m.ID) == fmt.Sprint(id):
			if len(m.Error) > 0 {
				return nil, fmt.Errorf("error %s", m.Error)
			}
			return m.Result, nil
		}
	}
}
