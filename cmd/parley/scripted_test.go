package main

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// scriptedAgent is a fake ACP agent that does, for each line of a prompt, what the line
// says, against the client's fs/*, terminal/* and session/request_permission, and tells
// the result as reply text:
//
//	read PATH                      fs/read_text_file
//	write PATH TEXT                fs/write_text_file
//	run LIMIT CMD ARGS...          terminal/create (outputByteLimit LIMIT), wait, output, release
//	runin CWD CMD ARGS...          the same in the working directory CWD (1 MiB limit)
//	create PATH TEXT               the agent's own process writes PATH (not through parley)
//	delete PATH                    the agent's own process deletes PATH
//	ask TITLE                      session/request_permission, the four kinds in a shuffled order
//	ask-or-give-up TITLE           the same, and a rejection ends the turn cancelled (as codex-acp does)
//
// and, to play a hostile agent:
//
//	askjson PARAMS                 session/request_permission with these params (JSON; the
//	                               session id defaults to the prompt's); tells the kind chosen
//	together LINE ;; LINE ...      the lines at the same time; their results joined with " | "
//	seq LINE ;; LINE ...           the lines one after the other, in one turn; results joined the same way
//	later LINE                     LINE after the turn has ended; its result as a message then
//	say "TEXT"                     an agent_message_chunk (a Go-quoted string: escapes allowed)
//	usersay "TEXT"                 a user_message_chunk
//	sayto SESSION "TEXT"           an agent_message_chunk for another session id
//
// It also has a mode config option, legacy models, and session/list, for parley chat;
// the lines of scripted_more_test.go (elicitations, usage, titles, notices...); and, as
// "scripted-config", config options of every type instead of the legacy models, or, as
// "scripted-plain", no prompt capabilities (text and links only).
type scriptedAgent struct {
	conn *acp.AgentConn

	config bool // config options of every type (scripted-config)
	plain  bool // no prompt capabilities, no additional directories (scripted-plain)

	later sync.WaitGroup // the "later" lines still running

	mu       sync.Mutex
	client   acp.ClientCapabilities // as initialize advertised them
	sessions []acp.SessionID
	closed   map[acp.SessionID]bool
	dirs     map[acp.SessionID][]string // additionalDirectories given
	mode     acp.SessionConfigValueID
	settings map[acp.SessionConfigID]acp.SessionConfigValue // scripted-config's
	prompts  map[acp.SessionID][]acp.ContentBlock           // each session's last prompt
}

func (a *scriptedAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	if !req.ClientCapabilities.FS.ReadTextFile || !req.ClientCapabilities.Terminal {
		return nil, fmt.Errorf("this agent needs a client with fs and terminal")
	}
	a.mu.Lock()
	a.client = req.ClientCapabilities
	a.mu.Unlock()
	caps := acp.AgentCapabilities{SessionCapabilities: acp.SessionCapabilities{
		List: &acp.SessionListCapabilities{}, Close: &acp.SessionCloseCapabilities{}, Delete: &acp.SessionDeleteCapabilities{},
	}}
	if !a.plain {
		caps.PromptCapabilities = acp.PromptCapabilities{Image: true, EmbeddedContext: true}
		caps.SessionCapabilities.AdditionalDirectories = &acp.SessionAdditionalDirectoriesCapabilities{}
	}
	return &acp.InitializeResponse{
		ProtocolVersion:   acp.ProtocolVersion,
		AgentInfo:         &acp.Implementation{Name: "scripted", Version: "1"},
		AgentCapabilities: caps,
	}, nil
}

func (a *scriptedAgent) configOptions() []acp.SessionConfigOption {
	if a.config {
		return a.allConfigOptions()
	}
	return []acp.SessionConfigOption{{
		ID: "mode", Name: "Mode", Category: acp.SessionConfigOptionCategoryMode,
		Select: &acp.SessionConfigSelect{CurrentValue: a.mode, Options: acp.SessionConfigSelectOptions{
			Ungrouped: []acp.SessionConfigSelectOption{{Value: "ask", Name: "Ask first"}, {Value: "code", Name: "Write code"}},
		}},
	}}
}

func (a *scriptedAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	id := acp.SessionID(fmt.Sprintf("scripted-%d", len(a.sessions)+1))
	a.sessions = append(a.sessions, id)
	if a.dirs == nil {
		a.dirs = map[acp.SessionID][]string{}
	}
	a.dirs[id] = req.AdditionalDirectories
	if a.mode == "" {
		a.mode = "ask"
	}
	resp := &acp.NewSessionResponse{SessionID: id, ConfigOptions: a.configOptions()}
	if !a.config {
		resp.Models = &acp.SessionModelState{CurrentModelID: "small", AvailableModels: []acp.ModelInfo{
			{ModelID: "small", Name: "Small"}, {ModelID: "large", Name: "Large"},
		}}
	}
	return resp, nil
}

func (a *scriptedAgent) SetSessionConfigOption(ctx context.Context, req *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.config {
		return a.setConfig(req)
	}
	a.mode = req.Value.ID
	return &acp.SetSessionConfigOptionResponse{ConfigOptions: a.configOptions()}, nil
}

func (a *scriptedAgent) SetSessionModel(ctx context.Context, req *acp.SetSessionModelRequest) (*acp.SetSessionModelResponse, error) {
	return &acp.SetSessionModelResponse{}, nil
}

func (a *scriptedAgent) ListSessions(ctx context.Context, req *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	resp := &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}
	for _, id := range a.sessions {
		title := "about " + string(id)
		if a.closed[id] {
			title += " (closed)"
		}
		resp.Sessions = append(resp.Sessions, acp.SessionInfo{SessionID: id, Cwd: req.Cwd, Title: title})
	}
	return resp, nil
}

func (a *scriptedAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	// ctx ends on session/cancel; turn also ends when a line gives up the turn.
	turn, cancel := context.WithCancel(ctx)
	defer cancel()
	turn = context.WithValue(turn, cancelKey{}, cancel)
	a.mu.Lock()
	if a.prompts == nil {
		a.prompts = map[acp.SessionID][]acp.ContentBlock{}
	}
	a.prompts[req.SessionID] = req.Prompt
	a.mu.Unlock()
	var text string
	for _, b := range req.Prompt {
		if t, ok := b.AsText(); ok {
			text += t
		}
	}
	var out []string
	for _, line := range strings.Split(text, "\n") {
		if line = strings.TrimSpace(line); line != "" {
			out = append(out, a.do(turn, req.SessionID, line))
		}
	}
	a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock(strings.Join(out, "\n"))))
	if turn.Err() != nil {
		return &acp.PromptResponse{StopReason: acp.StopReasonCancelled}, nil
	}
	resp := &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}
	if strings.Contains(text, "turn-usage") {
		thought := uint64(2000)
		resp.Usage = &acp.Usage{TotalTokens: 53000, InputTokens: 35000, OutputTokens: 12000, ThoughtTokens: &thought}
	}
	return resp, nil
}

func (a *scriptedAgent) do(ctx context.Context, sid acp.SessionID, line string) string {
	verb, rest, _ := strings.Cut(line, " ")
	switch verb {
	case "ask-or-give-up":
		result := a.do(ctx, sid, "ask "+rest)
		if strings.HasPrefix(result, "chose reject") {
			cancelTurn(ctx)
		}
		return result
	case "mode?":
		a.mu.Lock()
		defer a.mu.Unlock()
		return "mode: " + string(a.mode)
	case "read":
		resp, err := a.conn.ReadTextFile(ctx, &acp.ReadTextFileRequest{SessionID: sid, Path: rest})
		if err != nil {
			return "read error: " + err.Error()
		}
		return "read: " + resp.Content
	case "write":
		path, content, _ := strings.Cut(rest, " ")
		if _, err := a.conn.WriteTextFile(ctx, &acp.WriteTextFileRequest{SessionID: sid, Path: path, Content: content}); err != nil {
			return "write error: " + err.Error()
		}
		return "wrote " + path
	case "create":
		path, content, _ := strings.Cut(rest, " ")
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return "create error: " + err.Error()
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			return "create error: " + err.Error()
		}
		return "created " + path
	case "delete":
		if err := os.Remove(rest); err != nil {
			return "delete error: " + err.Error()
		}
		return "deleted " + rest
	case "run", "runin", "runenv":
		var env []acp.EnvVariable
		if verb == "runenv" { // runenv NAME=VALUE ;; LIMIT COMMAND ARGS…
			assignment, tail, _ := strings.Cut(rest, " ;; ")
			name, value, _ := strings.Cut(assignment, "=")
			env, rest = []acp.EnvVariable{{Name: name, Value: value}}, tail
		}
		f := strings.Fields(rest)
		var cwd string
		limit := uint64(1 << 20)
		if verb == "runin" {
			cwd = f[0]
		} else {
			limit, _ = strconv.ParseUint(f[0], 10, 64)
		}
		args := f[2:]
		if f[1] == "sh" { // sh -c 'script': keep the script whole
			args = []string{"-c", strings.TrimSuffix(strings.TrimPrefix(strings.SplitN(rest, "-c ", 2)[1], "'"), "'")}
		}
		term, err := a.conn.CreateTerminal(ctx, &acp.CreateTerminalRequest{SessionID: sid, Command: f[1], Args: args, Env: env, Cwd: cwd, OutputByteLimit: &limit})
		if err != nil {
			return "run error: " + err.Error()
		}
		defer a.conn.ReleaseTerminal(context.WithoutCancel(ctx), &acp.ReleaseTerminalRequest{SessionID: sid, TerminalID: term.TerminalID})
		exit, err := a.conn.WaitForTerminalExit(ctx, &acp.WaitForTerminalExitRequest{SessionID: sid, TerminalID: term.TerminalID})
		if err != nil {
			return "wait error: " + err.Error()
		}
		out, err := a.conn.TerminalOutput(ctx, &acp.TerminalOutputRequest{SessionID: sid, TerminalID: term.TerminalID})
		if err != nil {
			return "output error: " + err.Error()
		}
		code := -1
		if exit.ExitCode != nil {
			code = int(*exit.ExitCode)
		}
		return fmt.Sprintf("exit %d truncated=%v output=%q", code, out.Truncated, out.Output)
	case "askjson":
		var req acp.RequestPermissionRequest
		if err := json.Unmarshal([]byte(rest), &req); err != nil {
			return "askjson: " + err.Error()
		}
		if req.SessionID == "" {
			req.SessionID = sid
		}
		resp, err := a.conn.RequestPermission(context.WithoutCancel(ctx), &req)
		return outcomeOf(ctx, req.Options, resp, err)
	case "together":
		parts := strings.Split(rest, " ;; ")
		results := make([]string, len(parts))
		var wg sync.WaitGroup
		for i, part := range parts {
			wg.Go(func() { results[i] = a.do(ctx, sid, strings.TrimSpace(part)) })
		}
		wg.Wait()
		return strings.Join(results, " | ")
	case "seq":
		var results []string
		for part := range strings.SplitSeq(rest, " ;; ") {
			results = append(results, a.do(ctx, sid, strings.TrimSpace(part)))
		}
		return strings.Join(results, " | ")
	case "later":
		a.later.Go(func() {
			result := a.do(context.WithoutCancel(ctx), sid, rest)
			a.conn.Update(context.Background(), sid, acp.AgentMessageChunk(acp.TextBlock("later: "+result+"\n")))
		})
		return "later"
	case "say", "usersay":
		text, err := strconv.Unquote(rest)
		if err != nil {
			return verb + ": " + err.Error()
		}
		u := acp.AgentMessageChunk(acp.TextBlock(text))
		if verb == "usersay" {
			u = acp.UserMessageChunk(acp.TextBlock(text))
		}
		a.conn.Update(ctx, sid, u)
		return "said"
	case "sayto":
		other, quoted, _ := strings.Cut(rest, " ")
		text, err := strconv.Unquote(quoted)
		if err != nil {
			return "sayto: " + err.Error()
		}
		a.conn.Update(ctx, acp.SessionID(other), acp.AgentMessageChunk(acp.TextBlock(text)))
		return "said to " + other
	case "ask", "ask-tool":
		opts := []acp.PermissionOption{
			{OptionID: "opt-allow-once", Name: "Yes", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "opt-allow-always", Name: "Always", Kind: acp.PermissionOptionKindAllowAlways},
			{OptionID: "opt-reject-once", Name: "No", Kind: acp.PermissionOptionKindRejectOnce},
			{OptionID: "opt-reject-always", Name: "Never", Kind: acp.PermissionOptionKindRejectAlways},
		}
		rand.Shuffle(len(opts), func(i, j int) { opts[i], opts[j] = opts[j], opts[i] })
		command, _ := json.Marshal(rest)
		resp, err := a.conn.RequestPermission(context.WithoutCancel(ctx), &acp.RequestPermissionRequest{
			SessionID: sid,
			ToolCall:  acp.ToolCallUpdate{ToolCallID: acp.ToolCallID("call-" + rest), Title: rest, Name: toolName(verb), Kind: acp.ToolKindExecute, RawInput: []byte(`{"command":` + string(command) + `}`)},
			Options:   opts,
		})
		return outcomeOf(ctx, opts, resp, err)
	}
	if result, ok := a.doMore(ctx, sid, verb, rest); ok {
		return result
	}
	return "unknown line: " + line
}

// outcomeOf tells how a permission request was answered: the kind of the option
// chosen (every kind, when options share the id), or why there is none.
func outcomeOf(ctx context.Context, opts []acp.PermissionOption, resp *acp.RequestPermissionResponse, err error) string {
	switch {
	case err != nil:
		return "ask error: " + err.Error()
	case resp.Outcome.Cancelled != nil:
		cancelTurn(ctx) // ACP: a cancelled outcome aborts the turn
		return "outcome: cancelled"
	case resp.Outcome.Selected != nil:
		var kinds []string
		for _, o := range opts {
			if o.OptionID == resp.Outcome.Selected.OptionID {
				kinds = append(kinds, string(o.Kind))
			}
		}
		if len(kinds) == 0 {
			return "chose an option that was not offered: " + string(resp.Outcome.Selected.OptionID)
		}
		return "chose " + strings.Join(kinds, "/")
	}
	return "no outcome"
}

type cancelKey struct{}

func cancelTurn(ctx context.Context) {
	if cancel, ok := ctx.Value(cancelKey{}).(context.CancelFunc); ok {
		cancel()
	}
}
