package eliza

import (
	"context"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/mcpclient"
)

// session is one ACP session: its DOCTOR, its MCP servers and its conversation. mu is held
// for the whole of a turn, so turns of one session run one after another.
type session struct {
	id        acp.SessionID
	therapist *Therapist

	mu      sync.Mutex
	cwd     string
	servers []acp.MCPServer
	mcp     map[string]*mcp.ClientSession // connected lazily, by server name
	history []exchange
	calls   int                       // tool call ids
	config  []acp.SessionConfigOption // the settings offerSettings gave (extras.go)
}

type exchange struct{ user, agent string }

func newSession(id acp.SessionID, cwd string, servers []acp.MCPServer, t *Therapist) *session {
	return &session{id: id, cwd: cwd, servers: servers, therapist: t, mcp: map[string]*mcp.ClientSession{}}
}

// closeMCP disconnects the session's MCP servers. s.mu is held.
func (s *session) closeMCP() {
	for name, c := range s.mcp {
		c.Close()
		delete(s.mcp, name)
	}
}

// mcpSession connects to the named server on first use. s.mu is held.
func (s *session) mcpSession(ctx context.Context, name string) (*mcp.ClientSession, error) {
	if c := s.mcp[name]; c != nil {
		return c, nil
	}
	for _, srv := range s.servers {
		if serverName(srv) != name {
			continue
		}
		c, err := mcpclient.Connect(ctx, mcpServer(srv))
		if err != nil {
			return nil, err
		}
		s.mcp[name] = c
		return c, nil
	}
	return nil, fmt.Errorf("no MCP server named %q in this session", name)
}

func serverName(srv acp.MCPServer) string {
	switch {
	case srv.Stdio != nil:
		return srv.Stdio.Name
	case srv.HTTP != nil:
		return srv.HTTP.Name
	case srv.SSE != nil:
		return srv.SSE.Name
	}
	return ""
}

func mcpServer(srv acp.MCPServer) mcpclient.Server {
	out := mcpclient.Server{Name: serverName(srv)}
	switch {
	case srv.Stdio != nil:
		out.Command, out.Args = srv.Stdio.Command, srv.Stdio.Args
		for _, e := range srv.Stdio.Env {
			out.Env = append(out.Env, e.Name+"="+e.Value)
		}
	case srv.HTTP != nil:
		out.URL = srv.HTTP.URL
		out.Headers = map[string]string{}
		for _, h := range srv.HTTP.Headers {
			out.Headers[h.Name] = h.Value
		}
	case srv.SSE != nil:
		out.URL = srv.SSE.URL
	}
	return out
}

// turn is one prompt being answered. Everything it says also goes into said, for the
// history that session/load replays.
type turn struct {
	agent   *agent
	session *session
	ctx     context.Context
	text    string // the prompt's
	said    strings.Builder
	usage   *acp.Usage // the turn's usage, when reportUsage gave one
}

// run answers each line of the prompt: test commands are carried out, other text is
// gathered and answered by the DOCTOR. Consecutive "use tool" lines run concurrently.
func (t *turn) run(text string) {
	lines := strings.Split(text, "\n")
	var talk []string
	flushTalk := func() {
		if len(talk) > 0 {
			t.doctor(strings.Join(talk, " "))
			talk = nil
		}
	}
	for i := 0; i < len(lines) && t.ctx.Err() == nil; i++ {
		line := strings.TrimSpace(lines[i])
		verb, rest := command(line)
		if verb == "" {
			if line != "" {
				talk = append(talk, line)
			}
			continue
		}
		flushTalk()
		switch verb {
		case "use tool":
			batch := []string{rest}
			for i+1 < len(lines) {
				if v, r := command(strings.TrimSpace(lines[i+1])); v == "use tool" {
					batch = append(batch, r)
					i++
					continue
				}
				break
			}
			t.useTools(batch)
		case "list tools from":
			t.listTools(rest)
		case "request permission":
			t.requestPermission(rest)
		case "tool call":
			t.toolCall(rest)
		case "think":
			t.send(acp.AgentThoughtChunk(acp.TextBlock(rest)))
		case "slowly":
			t.slowly(rest)
		case "flood":
			t.flood(rest)
		case "ask me":
			t.askMe(rest)
		case "offer settings":
			t.offerSettings()
		case "show settings":
			t.showSettings()
		case "write file":
			t.writeFile(rest)
		case "report usage":
			t.reportUsage()
		case "recall":
			t.recall()
		}
	}
	flushTalk()
}

var verbs = []string{"list tools from", "use tool", "request permission", "tool call", "think", "slowly", "flood",
	"ask me", "offer settings", "show settings", "write file", "report usage", "recall"}

// command splits a line into a test command and its argument; verb is "" for plain talk.
func command(line string) (verb, rest string) {
	line = strings.TrimPrefix(line, "/") // the same commands, as slash commands
	lower := strings.ToLower(line)
	for _, v := range verbs {
		if lower == v || strings.HasPrefix(lower, v+" ") {
			return v, strings.TrimSpace(line[len(v):])
		}
	}
	return "", ""
}

// send reports an update for the session. A failure means the client is gone; the turn
// notices through its context.
func (t *turn) send(u acp.SessionUpdate) {
	if err := t.agent.conn.Update(t.ctx, t.session.id, u); err != nil {
		t.agent.logger.Debug("eliza: update not sent", "error", err)
	}
}

// say streams text as a few message chunks, the way a model would.
func (t *turn) say(text string) {
	if t.said.Len() > 0 {
		text = "\n" + text
	}
	t.said.WriteString(text)
	for _, chunk := range chunks(text, 3) {
		t.send(acp.AgentMessageChunk(acp.TextBlock(chunk)))
	}
}

// chunks cuts text at word boundaries into about n pieces.
func chunks(text string, n int) []string {
	words := strings.SplitAfter(text, " ")
	per := max(1, (len(words)+n-1)/n)
	var out []string
	for i := 0; i < len(words); i += per {
		out = append(out, strings.Join(words[i:min(i+per, len(words))], ""))
	}
	return out
}

func (t *turn) doctor(input string) {
	t.say(t.session.therapist.Respond(input))
}

func (t *turn) slowly(text string) {
	words := strings.Fields(text)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for i, w := range words {
		if i > 0 {
			select {
			case <-tick.C:
			case <-t.ctx.Done():
				return
			}
			w = " " + w
		} else if t.said.Len() > 0 {
			w = "\n" + w // on a line of its own after what the turn already said
		}
		t.said.WriteString(w)
		t.send(acp.AgentMessageChunk(acp.TextBlock(w)))
	}
}

func (t *turn) flood(arg string) {
	n, err := strconv.Atoi(arg)
	if err != nil || n < 0 {
		t.say(fmt.Sprintf("flood needs a count, not %q", arg))
		return
	}
	for i := range n {
		if t.ctx.Err() != nil {
			return
		}
		t.send(acp.AgentMessageChunk(acp.TextBlock(strconv.Itoa(i) + " ")))
	}
	t.said.WriteString(fmt.Sprintf("[%d chunks]", n))
}

func (t *turn) nextCallID() acp.ToolCallID {
	t.session.calls++
	return acp.ToolCallID(fmt.Sprintf("call-%d", t.session.calls))
}

func (t *turn) toolCall(title string) {
	id := t.nextCallID()
	t.send(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: title, Kind: acp.ToolKindOther, Status: acp.ToolCallStatusPending}})
	t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusInProgress}})
	t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{
		ToolCallID: id,
		Status:     acp.ToolCallStatusCompleted,
		Content:    []acp.ToolCallContent{acp.ToolContent(acp.TextBlock(title + ": done"))},
	}})
	t.say("tool call " + title + ": completed")
}

// permissionGrace is how long a cancelled turn still waits for the client's answer to a
// permission request (ACP has the client answer it "cancelled") before withdrawing it.
const permissionGrace = 2 * time.Second

func (t *turn) requestPermission(title string) {
	id := t.nextCallID()
	t.send(acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: title, Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending}})
	// The request outlives session/cancel for a moment so the client can answer it.
	ctx, cancel := context.WithCancel(context.WithoutCancel(t.ctx))
	defer cancel()
	stop := context.AfterFunc(t.ctx, func() { time.AfterFunc(permissionGrace, cancel) })
	defer stop()
	resp, err := t.agent.conn.RequestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: t.session.id,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: id, Title: title, Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending},
		Options: []acp.PermissionOption{
			{OptionID: "allow-once", Name: "Allow once", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "allow-always", Name: "Allow always", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionID: "reject-once", Name: "Reject once", Kind: acp.PermissionOptionKindRejectOnce},
			{OptionID: "reject-always", Name: "Reject always", Kind: acp.PermissionOptionKindRejectAlways},
		},
	})
	var answer string
	status := acp.ToolCallStatusFailed
	switch {
	case err != nil:
		answer = "permission: cancelled"
		if !acp.IsCancelled(err) {
			answer = "permission: error: " + err.Error()
		}
	case resp.Outcome.Selected != nil:
		kind := optionKind(string(resp.Outcome.Selected.OptionID))
		answer = "permission: " + kind
		if strings.HasPrefix(kind, "allow") {
			status = acp.ToolCallStatusCompleted
		}
	default:
		answer = "permission: cancelled"
	}
	t.send(acp.SessionUpdate{ToolCallUpdate: &acp.ToolCallUpdate{ToolCallID: id, Status: status}})
	t.say(answer)
}

func optionKind(optionID string) string {
	switch optionID {
	case "allow-once":
		return "allow_once"
	case "allow-always":
		return "allow_always"
	case "reject-once":
		return "reject_once"
	case "reject-always":
		return "reject_always"
	}
	return "unknown option " + strconv.Quote(optionID)
}

func (t *turn) listTools(server string) {
	c, err := t.session.mcpSession(t.ctx, server)
	if err != nil {
		t.say("ERROR: " + err.Error())
		return
	}
	res, err := c.ListTools(t.ctx, nil)
	if err != nil {
		t.say("ERROR: listing tools: " + err.Error())
		return
	}
	var b strings.Builder
	fmt.Fprintf(&b, "tools of %s:", server)
	for _, tool := range res.Tools {
		fmt.Fprintf(&b, "\n- %s", tool.Name)
		if tool.Description != "" {
			fmt.Fprintf(&b, ": %s", tool.Description)
		}
	}
	t.say(b.String())
}

// useTools runs the calls concurrently and reports them in line order.
func (t *turn) useTools(specs []string) {
	results := make([]string, len(specs))
	var wg sync.WaitGroup
	for i, spec := range specs {
		server, tool, args, err := parseUseTool(spec)
		if err != nil {
			results[i] = "ERROR: " + err.Error()
			continue
		}
		c, err := t.session.mcpSession(t.ctx, server)
		if err != nil {
			results[i] = "ERROR: " + err.Error()
			continue
		}
		wg.Go(func() {
			res, err := c.CallTool(t.ctx, &mcp.CallToolParams{Name: tool, Arguments: args})
			switch {
			case err != nil:
				results[i] = "ERROR: " + err.Error()
			case res.IsError:
				results[i] = "ERROR: " + mcpclient.ResultText(res)
			default:
				results[i] = "OK: " + mcpclient.ResultText(res)
			}
		})
	}
	wg.Wait()
	t.say(strings.Join(results, "\n"))
}

// parseUseTool reads "<server>::<tool> with <json>" (the "with" part is optional).
func parseUseTool(spec string) (server, tool string, args map[string]any, err error) {
	target, argText, _ := strings.Cut(spec, " with ")
	server, tool, ok := strings.Cut(strings.TrimSpace(target), "::")
	if !ok || server == "" || tool == "" {
		return "", "", nil, fmt.Errorf("use tool needs <server>::<tool>, got %q", target)
	}
	args = map[string]any{}
	if argText = strings.TrimSpace(argText); argText != "" {
		if err := json.Unmarshal([]byte(argText), &args); err != nil {
			return "", "", nil, fmt.Errorf("tool arguments must be a JSON object: %v", err)
		}
	}
	return server, tool, args, nil
}
