package main

import (
	"context"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// The scripted agent's lines for what a complete ACP client shows besides the turn:
//
//	elicit-form SCHEMA             elicitation/create in form mode (SCHEMA: the requestedSchema,
//	                               JSON); tells the action and the content (a field named
//	                               "password" only by its length)
//	elicit-url URL                 elicitation/create in URL mode (URL bare, or Go-quoted); once accepted, elicitation/complete
//	elicit-timeout MS SCHEMA       a form elicitation withdrawn ($/cancel_request) after MS
//	usage USED SIZE [AMOUNT CUR]   a usage_update
//	turn-usage                     the prompt's response carries an end-of-turn usage
//	title "TEXT"                   a session_info_update with the title
//	notice SEVERITY "TITLE"        a notice update
//	dirs?                          the additionalDirectories the session was given
//	blocks?                        the prompt's content blocks, one by one
//	config?                        scripted-config's settings, as the agent holds them
//	caps?                          what the client advertised in initialize
//	ask-tool TITLE                 ask, with the tool's name ("Bash")
//	edit-new PATH TEXT             as Claude Code's Write: an edit call whose diff says PATH is new
//	                               (no old text) whether it is or not, a permission request,
//	                               and once allowed PATH written with TEXT
//	tool-ask COMMAND               as Claude Code does: a tool_call running COMMAND, a permission
//	                               request about it, then the call "failed" with the words
//	                               written for the model when refused, "completed" when allowed

func toolName(verb string) string {
	if verb == "ask-tool" {
		return "Bash"
	}
	return ""
}

func (a *scriptedAgent) doMore(ctx context.Context, sid acp.SessionID, verb, rest string) (string, bool) {
	switch verb {
	case "edit-new":
		path, text, _ := strings.Cut(rest, " ")
		id := acp.ToolCallID("call-edit-" + path)
		input, _ := json.Marshal(map[string]string{"file_path": path, "content": text})
		diff := []acp.ToolCallContent{{Diff: &acp.Diff{Path: path, NewText: text}}}
		a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: "Write " + path, Kind: acp.ToolKindEdit, Status: acp.ToolCallStatusPending, RawInput: input, Content: diff, Locations: []acp.ToolCallLocation{{Path: path}}}})
		opts := []acp.PermissionOption{
			{OptionID: "allow", Name: "Yes", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "reject", Name: "No", Kind: acp.PermissionOptionKindRejectOnce},
		}
		resp, err := a.conn.RequestPermission(context.WithoutCancel(ctx), &acp.RequestPermissionRequest{
			SessionID: sid, ToolCall: acp.ToolCallUpdate{ToolCallID: id, Title: "Write " + path, Kind: acp.ToolKindEdit, RawInput: input, Content: diff}, Options: opts,
		})
		result := outcomeOf(ctx, opts, resp, err)
		u := acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusFailed}
		if strings.HasPrefix(result, "chose allow") {
			if err := os.WriteFile(path, []byte(text), 0o644); err != nil {
				return "edit-new: " + err.Error(), true
			}
			u.Status = acp.ToolCallStatusCompleted
		}
		a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCallUpdate: &u})
		return result, true
	case "tool-ask":
		id := acp.ToolCallID("call-" + rest)
		command, _ := json.Marshal(rest)
		input := []byte(`{"command":` + string(command) + `}`)
		a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCall: &acp.ToolCall{ToolCallID: id, Title: "`" + rest + "`", Kind: acp.ToolKindExecute, Status: acp.ToolCallStatusPending, RawInput: input}})
		opts := []acp.PermissionOption{
			{OptionID: "allow", Name: "Yes", Kind: acp.PermissionOptionKindAllowOnce},
			{OptionID: "reject", Name: "No", Kind: acp.PermissionOptionKindRejectOnce},
		}
		resp, err := a.conn.RequestPermission(context.WithoutCancel(ctx), &acp.RequestPermissionRequest{
			SessionID: sid, ToolCall: acp.ToolCallUpdate{ToolCallID: id, Title: "`" + rest + "`", Kind: acp.ToolKindExecute, RawInput: input}, Options: opts,
		})
		result := outcomeOf(ctx, opts, resp, err)
		u := acp.ToolCallUpdate{ToolCallID: id, Status: acp.ToolCallStatusCompleted}
		if !strings.HasPrefix(result, "chose allow") {
			u.Status = acp.ToolCallStatusFailed
			u.Content = []acp.ToolCallContent{acp.ToolContent(acp.TextBlock("Error: The user rejected this command. Do not retry it; ask the user what to do instead."))}
		}
		a.conn.Update(ctx, sid, acp.SessionUpdate{ToolCallUpdate: &u})
		return result, true
	case "elicit-form", "elicit-timeout":
		callCtx := ctx
		if verb == "elicit-timeout" {
			ms, schema, _ := strings.Cut(rest, " ")
			n, _ := strconv.Atoi(ms)
			var cancel context.CancelFunc
			callCtx, cancel = context.WithTimeout(context.WithoutCancel(ctx), time.Duration(n)*time.Millisecond)
			defer cancel()
			rest = schema
		}
		var schema acp.ElicitationSchema
		if err := json.Unmarshal([]byte(rest), &schema); err != nil {
			return "elicit-form: " + err.Error(), true
		}
		req := &acp.CreateElicitationRequest{Message: "Tell me about your project", Mode: acp.ElicitationModeForm}
		req.RequestedSchema = &schema
		req.SessionID = sid
		resp, err := a.conn.CreateElicitation(callCtx, req)
		if err != nil {
			return "elicit error: " + err.Error(), true
		}
		return "elicited: " + string(resp.Action) + " " + describeContent(resp.Content), true
	case "elicit-url":
		if u, err := strconv.Unquote(rest); err == nil {
			rest = u
		}
		req := &acp.CreateElicitationRequest{Message: "Open the page to link your account", Mode: acp.ElicitationModeURL}
		req.URL, req.ElicitationID, req.SessionID = rest, "link-1", sid
		resp, err := a.conn.CreateElicitation(ctx, req)
		if err != nil {
			return "elicit error: " + err.Error(), true
		}
		if resp.Action == acp.ElicitationActionAccept {
			a.conn.CompleteElicitation(ctx, &acp.CompleteElicitationNotification{ElicitationID: "link-1"})
		}
		return "elicited: " + string(resp.Action), true
	case "usage":
		f := strings.Fields(rest)
		used, _ := strconv.ParseUint(f[0], 10, 64)
		size, _ := strconv.ParseUint(f[1], 10, 64)
		u := &acp.UsageUpdate{Used: used, Size: size}
		if len(f) == 4 {
			amount, _ := strconv.ParseFloat(f[2], 64)
			u.Cost = &acp.Cost{Amount: amount, Currency: f[3]}
		}
		a.conn.Update(ctx, sid, acp.SessionUpdate{UsageUpdate: u})
		return "usage sent", true
	case "turn-usage":
		return "turn usage follows", true
	case "title":
		title, err := strconv.Unquote(rest)
		if err != nil {
			return "title: " + err.Error(), true
		}
		a.conn.Update(ctx, sid, acp.SessionUpdate{SessionInfoUpdate: &acp.SessionInfoUpdate{Title: acp.PatchValue(title)}})
		return "titled", true
	case "notice":
		severity, quoted, _ := strings.Cut(rest, " ")
		title, err := strconv.Unquote(quoted)
		if err != nil {
			return "notice: " + err.Error(), true
		}
		raw, _ := json.Marshal(map[string]any{"sessionUpdate": "notice", "severity": severity, "title": title, "description": "see the dashboard"})
		a.conn.Update(ctx, sid, acp.SessionUpdate{Unknown: raw})
		return "noticed", true
	case "dirs?":
		a.mu.Lock()
		defer a.mu.Unlock()
		return fmt.Sprintf("dirs: %q", a.dirs[sid]), true
	case "blocks?":
		a.mu.Lock()
		defer a.mu.Unlock()
		var out []string
		for _, b := range a.prompts[sid] {
			switch {
			case b.Image != nil:
				out = append(out, fmt.Sprintf("image %s %d bytes-b64 %s", b.Image.MIMEType, len(b.Image.Data), b.Image.URI))
			case b.Resource != nil && b.Resource.Resource.Text != nil:
				r := b.Resource.Resource.Text
				out = append(out, fmt.Sprintf("resource %s %s %q", r.MIMEType, r.URI, r.Text))
			case b.ResourceLink != nil:
				out = append(out, fmt.Sprintf("link %s %s %s", b.ResourceLink.Name, b.ResourceLink.MIMEType, b.ResourceLink.URI))
			default:
				out = append(out, b.Kind())
			}
		}
		return "blocks: " + strings.Join(out, " | "), true
	case "config?":
		a.mu.Lock()
		defer a.mu.Unlock()
		var out []string
		for _, o := range a.allConfigOptions() {
			switch {
			case o.Select != nil:
				out = append(out, fmt.Sprintf("%s=%s", o.ID, o.Select.CurrentValue))
			case o.Boolean != nil:
				out = append(out, fmt.Sprintf("%s=%v", o.ID, o.Boolean.CurrentValue))
			}
		}
		return "config: " + strings.Join(out, " "), true
	case "caps?":
		a.mu.Lock()
		defer a.mu.Unlock()
		raw, _ := json.Marshal(a.client)
		return "caps: " + string(raw), true
	}
	return "", false
}

// describeContent tells an elicitation's answer, sorted by field; a field named password
// only by its length, so that the test can see the secret never shows.
func describeContent(content map[string]acp.ElicitationContentValue) string {
	var names []string
	for k := range content {
		names = append(names, k)
	}
	slices.Sort(names)
	var out []string
	for _, k := range names {
		v := string(content[k])
		if k == "password" {
			var s string
			json.Unmarshal(content[k], &s)
			v = fmt.Sprintf("<%d characters>", len(s))
		}
		out = append(out, k+"="+v)
	}
	return strings.Join(out, " ")
}

// allConfigOptions are scripted-config's options: one of every type and category, one
// select with groups, and one of a type no client knows (to be left alone). The boolean
// is offered only to a client that advertised boolean options.
func (a *scriptedAgent) allConfigOptions() []acp.SessionConfigOption {
	if a.settings == nil {
		a.settings = map[acp.SessionConfigID]acp.SessionConfigValue{
			"mode": acp.ConfigValueID("ask"), "model": acp.ConfigValueID("small"), "effort": acp.ConfigValueID("medium"),
			"context": acp.ConfigValueID("32k"), "brave": acp.ConfigValueBoolean(false),
		}
	}
	sel := func(id acp.SessionConfigID, name string, cat acp.SessionConfigOptionCategory, opts acp.SessionConfigSelectOptions) acp.SessionConfigOption {
		return acp.SessionConfigOption{ID: id, Name: name, Category: cat, Select: &acp.SessionConfigSelect{CurrentValue: a.settings[id].ID, Options: opts}}
	}
	flat := func(vals ...string) acp.SessionConfigSelectOptions {
		var o acp.SessionConfigSelectOptions
		for _, v := range vals {
			o.Ungrouped = append(o.Ungrouped, acp.SessionConfigSelectOption{Value: acp.SessionConfigValueID(v), Name: strings.ToUpper(v[:1]) + v[1:]})
		}
		return o
	}
	options := []acp.SessionConfigOption{
		sel("mode", "Mode", acp.SessionConfigOptionCategoryMode, flat("ask", "code")),
		sel("model", "Model", acp.SessionConfigOptionCategoryModel, acp.SessionConfigSelectOptions{Grouped: []acp.SessionConfigSelectGroup{
			{Group: "fast", Name: "Fast models", Options: []acp.SessionConfigSelectOption{{Value: "small", Name: "Small"}}},
			{Group: "deep", Name: "Deep models", Options: []acp.SessionConfigSelectOption{{Value: "large", Name: "Large", Description: "slower, better"}}},
		}}),
		sel("effort", "Thinking", acp.SessionConfigOptionCategoryThoughtLevel, flat("low", "medium", "high")),
		sel("context", "Context size", acp.SessionConfigOptionCategoryModelConfig, flat("32k", "200k")),
	}
	if a.client.Session != nil && a.client.Session.ConfigOptions != nil && a.client.Session.ConfigOptions.Boolean != nil {
		options = append(options, acp.SessionConfigOption{ID: "brave", Name: "Brave mode", Boolean: &acp.SessionConfigBoolean{CurrentValue: a.settings["brave"].Boolean}})
	}
	options = append(options, acp.SessionConfigOption{ID: "volume", Unknown: json.RawMessage(`{"id":"volume","name":"Volume","type":"slider","currentValue":3,"min":0,"max":10}`)})
	return options
}

// setConfig sets one of scripted-config's options (a.mu held), refusing what it does not
// offer as an agent should.
func (a *scriptedAgent) setConfig(req *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	for _, o := range a.allConfigOptions() {
		if o.ID != req.ConfigID {
			continue
		}
		switch {
		case o.Boolean != nil && req.Value.Type == "boolean":
			a.settings[o.ID] = acp.ConfigValueBoolean(req.Value.Boolean)
		case o.Select != nil && req.Value.Type == "":
			a.settings[o.ID] = acp.ConfigValueID(req.Value.ID)
		default:
			return nil, acp.ErrInvalidParams("wrong type of value for %s", o.ID)
		}
		return &acp.SetSessionConfigOptionResponse{ConfigOptions: a.allConfigOptions()}, nil
	}
	return nil, acp.ErrInvalidParams("no option %s", req.ConfigID)
}

func (a *scriptedAgent) CloseSession(ctx context.Context, req *acp.CloseSessionRequest) (*acp.CloseSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.closed == nil {
		a.closed = map[acp.SessionID]bool{}
	}
	a.closed[req.SessionID] = true // its prompt's context ends with it (acp does that)
	return &acp.CloseSessionResponse{}, nil
}

func (a *scriptedAgent) DeleteSession(ctx context.Context, req *acp.DeleteSessionRequest) (*acp.DeleteSessionResponse, error) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.sessions = slices.DeleteFunc(a.sessions, func(id acp.SessionID) bool { return id == req.SessionID })
	return &acp.DeleteSessionResponse{}, nil
}
