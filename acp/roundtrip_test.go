package acp

import (
	"reflect"
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// frames are realistic messages (params and results) with unknown members and _meta at
// several depths. Each must survive decode → encode unchanged, up to JSON equality.
var frames = []struct {
	name string
	new  func() any // a pointer to the type the frame decodes into
	json string
}{
	{"initialize request", func() any { return new(InitializeRequest) }, `{
		"protocolVersion": 1,
		"clientCapabilities": {
			"fs": {"readTextFile": true, "writeTextFile": true, "_meta": {"x": 1}},
			"terminal": true,
			"session": {"configOptions": {"boolean": {}}, "notices": {}, "compaction": {"future": 1}},
			"auth": {"terminal": true, "_meta": {"gateway": true}},
			"elicitation": {"form": {}, "url": {"_meta": {}}},
			"futureCapability": {"level": 2},
			"_meta": {"terminal-auth": true}
		},
		"clientInfo": {"name": "parley", "title": "Parley", "version": "0.1.0", "homepage": "https://example.org"},
		"_meta": {"traceparent": "00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01"}
	}`},
	{"initialize response", func() any { return new(InitializeResponse) }, `{
		"protocolVersion": 1,
		"agentCapabilities": {
			"loadSession": true,
			"promptCapabilities": {"image": true, "audio": true, "embeddedContext": true},
			"mcpCapabilities": {"http": true, "sse": true, "acp": true},
			"sessionCapabilities": {"list": {}, "delete": {}, "additionalDirectories": {}, "resume": {}, "close": {}, "fork": {}},
			"auth": {"logout": {}},
			"_meta": {"claudeCode": {"promptQueueing": true}, "authStatus": true}
		},
		"authMethods": [
			{"id": "chatgpt", "name": "Log in with ChatGPT", "description": "Opens a browser"},
			{"id": "gateway", "name": "Gateway", "_meta": {"gateway": {"protocol": "anthropic"}}},
			{"type": "terminal", "id": "login", "name": "Log in", "args": ["--login"], "env": {"MODE": "tty"}},
			{"type": "env_var", "id": "key", "name": "API key", "varName": "OPENAI_API_KEY"}
		],
		"agentInfo": {"name": "codex-acp", "version": "0.9.0"},
		"_meta": {"steering": {"supported": true}}
	}`},
	{"authenticate request", func() any { return new(AuthenticateRequest) }, `{
		"methodId": "gateway", "_meta": {"gateway": {"baseUrl": "http://127.0.0.1:9", "headers": {"A": "b"}}}
	}`},
	{"new session request", func() any { return new(NewSessionRequest) }, `{
		"cwd": "/home/u/project",
		"additionalDirectories": ["/home/u/lib"],
		"mcpServers": [
			{"name": "files", "command": "/usr/bin/mcp-files", "args": [], "env": [{"name": "A", "value": "1", "_meta": {"secret": true}}]},
			{"type": "stdio", "name": "explicit", "command": "/bin/x", "args": ["-v"], "env": []},
			{"type": "http", "name": "remote", "url": "https://mcp.example.org", "headers": [{"name": "Authorization", "value": "Bearer t"}]},
			{"type": "sse", "name": "old", "url": "https://sse.example.org", "headers": [], "timeout": 30},
			{"type": "acp", "name": "bridge", "serverId": "s1"}
		],
		"_meta": {"claudeCode": {"options": {"model": "opus"}}}
	}`},
	{"new session response", func() any { return new(NewSessionResponse) }, `{
		"sessionId": "sess_1",
		"modes": {"currentModeId": "ask", "availableModes": [{"id": "ask", "name": "Ask"}, {"id": "code", "name": "Code", "description": "Writes code"}]},
		"configOptions": [
			{"id": "model", "name": "Model", "category": "model", "type": "select", "currentValue": "opus",
			 "options": [{"value": "opus", "name": "Opus", "description": "Smart"}, {"value": "haiku", "name": "Haiku", "rank": 2}]},
			{"id": "effort", "name": "Effort", "category": "thought_level", "type": "select", "currentValue": "high",
			 "options": [{"group": "fast", "name": "Fast", "options": [{"value": "low", "name": "Low"}]},
			             {"group": "slow", "name": "Slow", "options": [{"value": "high", "name": "High"}]}]},
			{"id": "yolo", "name": "Auto-approve", "type": "boolean", "currentValue": true, "category": "_parley_custom", "_meta": {"k": "v"}, "hint": "careful"},
			{"id": "temp", "name": "Temperature", "type": "slider", "min": 0, "max": 2, "currentValue": 0.7}
		],
		"models": {"currentModelId": "gpt-5", "availableModels": [{"modelId": "gpt-5", "name": "GPT-5", "description": "default"}]},
		"futureField": [1, 2, 3]
	}`},
	{"load session response", func() any { return new(LoadSessionResponse) }, `{
		"modes": {"currentModeId": "code", "availableModes": []}, "configOptions": []
	}`},
	{"resume session request", func() any { return new(ResumeSessionRequest) }, `{
		"sessionId": "sess_1", "cwd": "/p", "additionalDirectories": [], "mcpServers": []
	}`},
	{"list sessions response", func() any { return new(ListSessionsResponse) }, `{
		"sessions": [{"sessionId": "s1", "cwd": "/p", "title": "Fix the bug", "updatedAt": "2026-01-02T03:04:05Z", "additionalDirectories": ["/q"], "archived": false}],
		"nextCursor": "opaque=="
	}`},
	{"prompt request", func() any { return new(PromptRequest) }, `{
		"sessionId": "sess_1",
		"prompt": [
			{"type": "text", "text": "Look at <this> & that", "annotations": {"audience": ["user", "robot"], "priority": 0.5, "lastModified": "2026-01-01T00:00:00Z"}},
			{"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png", "uri": "file:///a.png"},
			{"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"},
			{"type": "resource_link", "uri": "file:///p/main.go", "name": "main.go", "mimeType": "text/x-go", "size": 0, "title": "Main", "description": "entry"},
			{"type": "resource", "resource": {"uri": "file:///p/a.go", "text": "package a", "mimeType": "text/x-go"}},
			{"type": "resource", "resource": {"uri": "file:///p/a.bin", "blob": "AAEC"}, "annotations": {"audience": ["assistant"]}},
			{"type": "resource", "resource": {"uri": "file:///p/a.x", "stream": "s"}},
			{"type": "video", "url": "https://example.org/v.mp4", "frames": 10},
			{"type": "text", "text": "with extra", "cacheControl": {"type": "ephemeral"}, "_meta": {"m": null}}
		],
		"_meta": {"traceparent": "x"}
	}`},
	{"prompt response", func() any { return new(PromptResponse) }, `{
		"stopReason": "end_turn",
		"usage": {"totalTokens": 30, "inputTokens": 10, "outputTokens": 20, "thoughtTokens": 0, "cachedReadTokens": 5},
		"_meta": {"x": [1]}
	}`},
	{"prompt response with a future stop reason", func() any { return new(PromptResponse) }, `{"stopReason": "paused"}`},
	{"cancel", func() any { return new(CancelNotification) }, `{"sessionId": "sess_1"}`},
	{"cancel request, number id", func() any { return new(CancelRequestNotification) }, `{"requestId": 7}`},
	{"cancel request, string id", func() any { return new(CancelRequestNotification) }, `{"requestId": "abc"}`},
	{"cancel request, null id", func() any { return new(CancelRequestNotification) }, `{"requestId": null}`},
	{"set mode", func() any { return new(SetSessionModeRequest) }, `{"sessionId": "s", "modeId": "code"}`},
	{"set model (legacy)", func() any { return new(SetSessionModelRequest) }, `{"sessionId": "s", "modelId": "gpt-5"}`},
	{"set config option, value id", func() any { return new(SetSessionConfigOptionRequest) }, `{"sessionId": "s", "configId": "model", "value": "opus"}`},
	{"set config option, boolean", func() any { return new(SetSessionConfigOptionRequest) }, `{"sessionId": "s", "configId": "yolo", "type": "boolean", "value": false, "_meta": {}}`},
	{"set config option, unknown type", func() any { return new(SetSessionConfigOptionRequest) }, `{"sessionId": "s", "configId": "temp", "type": "number", "value": 0.7, "x": 1}`},
	{"set config option response", func() any { return new(SetSessionConfigOptionResponse) }, `{
		"configOptions": [{"id": "yolo", "name": "Auto-approve", "type": "boolean", "currentValue": false}]
	}`},
	{"request permission", func() any { return new(RequestPermissionRequest) }, `{
		"sessionId": "s",
		"toolCall": {"toolCallId": "call_1", "title": "rm -rf build", "kind": "execute", "status": "pending", "rawInput": {"command": ["rm", "-rf", "build"]}},
		"options": [
			{"optionId": "allow", "name": "Allow", "kind": "allow_once"},
			{"optionId": "accept_execpolicy_amendment", "name": "Always", "kind": "allow_always"},
			{"optionId": "reject", "name": "Reject", "kind": "reject_once"},
			{"optionId": "weird", "name": "Persist", "kind": "allow_persistent", "_meta": {"why": "non-spec"}}
		]
	}`},
	{"permission selected", func() any { return new(RequestPermissionResponse) }, `{"outcome": {"outcome": "selected", "optionId": "reject", "_meta": {"by": "policy"}}}`},
	{"permission cancelled", func() any { return new(RequestPermissionResponse) }, `{"outcome": {"outcome": "cancelled", "reason": "session/cancel"}}`},
	{"permission, unknown outcome", func() any { return new(RequestPermissionResponse) }, `{"outcome": {"outcome": "deferred", "until": 5}}`},
	{"read text file", func() any { return new(ReadTextFileRequest) }, `{"sessionId": "s", "path": "/p/a.go", "line": 10, "limit": 50}`},
	{"read text file response", func() any { return new(ReadTextFileResponse) }, `{"content": "package a\n"}`},
	{"write text file", func() any { return new(WriteTextFileRequest) }, `{"sessionId": "s", "path": "/p/a.go", "content": ""}`},
	{"write text file response", func() any { return new(WriteTextFileResponse) }, `{}`},
	{"create terminal", func() any { return new(CreateTerminalRequest) }, `{
		"sessionId": "s", "command": "go", "args": ["test", "./..."], "env": [{"name": "CGO_ENABLED", "value": "0"}],
		"cwd": "/p", "outputByteLimit": 0
	}`},
	{"create terminal response", func() any { return new(CreateTerminalResponse) }, `{"terminalId": "term_1"}`},
	{"terminal output, running", func() any { return new(TerminalOutputResponse) }, `{"output": "", "truncated": false}`},
	{"terminal output, exited", func() any { return new(TerminalOutputResponse) }, `{"output": "ok\n", "truncated": true, "exitStatus": {"exitCode": 0}}`},
	{"terminal output, killed", func() any { return new(TerminalOutputResponse) }, `{"output": "", "truncated": false, "exitStatus": {"signal": "SIGKILL"}}`},
	{"wait for exit", func() any { return new(WaitForTerminalExitResponse) }, `{"exitCode": 2}`},
	{"kill terminal", func() any { return new(KillTerminalRequest) }, `{"sessionId": "s", "terminalId": "term_1"}`},
	{"release terminal", func() any { return new(ReleaseTerminalRequest) }, `{"sessionId": "s", "terminalId": "term_1"}`},
	{"form elicitation", func() any { return new(CreateElicitationRequest) }, `{
		"message": "Configure the deployment",
		"mode": "form",
		"sessionId": "s", "toolCallId": "call_1",
		"requestedSchema": {
			"type": "object", "title": "Deploy",
			"properties": {
				"name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 20, "pattern": "^[a-z]+$", "default": "app"},
				"email": {"type": "string", "format": "email"},
				"region": {"type": "string", "oneOf": [{"const": "eu", "title": "Europe"}, {"const": "us", "title": "US", "description": "cheap"}]},
				"replicas": {"type": "integer", "minimum": 1, "maximum": 9007199254740993, "default": 2},
				"ratio": {"type": "number", "minimum": 0, "maximum": 1.5},
				"confirm": {"type": "boolean", "default": false, "description": "Sure?"},
				"tags": {"type": "array", "minItems": 0, "items": {"type": "string", "enum": ["a", "b"]}, "default": ["a"]},
				"zones": {"type": "array", "items": {"anyOf": [{"const": "z1", "title": "Zone 1"}]}},
				"when": {"type": "date-picker", "granularity": "day"}
			},
			"required": ["name"]
		}
	}`},
	{"url elicitation", func() any { return new(CreateElicitationRequest) }, `{
		"message": "Log in", "mode": "url", "elicitationId": "e1", "url": "https://auth.example.org/device", "requestId": 12
	}`},
	{"elicitation, unknown mode", func() any { return new(CreateElicitationRequest) }, `{"message": "Pick a file", "mode": "file", "sessionId": "s", "accept": ["*.go"]}`},
	{"elicitation accepted", func() any { return new(CreateElicitationResponse) }, `{
		"action": "accept", "content": {"name": "app", "replicas": 12345678901234567890, "ratio": 0.5, "confirm": true, "tags": ["a"]}
	}`},
	{"elicitation declined", func() any { return new(CreateElicitationResponse) }, `{"action": "decline"}`},
	{"elicitation complete", func() any { return new(CompleteElicitationNotification) }, `{"elicitationId": "e1"}`},
	{"error", func() any { return new(Error) }, `{"code": -32002, "message": "session not found", "data": {"sessionId": "s"}}`},
}

func TestRoundTripFrames(t *testing.T) {
	for _, f := range frames {
		t.Run(f.name, func(t *testing.T) { assertRoundTrip(t, f.new(), f.json) })
	}
}

func TestRoundTripSessionUpdates(t *testing.T) {
	for _, u := range sessionUpdates {
		t.Run(u.name, func(t *testing.T) {
			n := assertRoundTrip(t, new(SessionNotification), u.json).(*SessionNotification)
			if got := n.Update.Kind(); got != u.kind {
				t.Errorf("Kind() = %q, want %q", got, u.kind)
			}
			if known := n.Update.Unknown == nil; known != u.known {
				t.Errorf("known = %v, want %v (Unknown = %s)", known, u.known, n.Update.Unknown)
			}
		})
	}
}

// sessionUpdates are session/update params, known and unknown kinds.
var sessionUpdates = []struct {
	name  string
	kind  string
	known bool
	json  string
}{
	{"agent message chunk", "agent_message_chunk", true, `{"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "Hello"}}}`},
	{"agent message chunk with message id and extras", "agent_message_chunk", true, `{
		"sessionId": "s",
		"update": {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": {"type": "text", "text": "Hi", "future": 1, "_meta": {"a": 1}}, "parentId": "p", "_meta": {"b": 2}},
		"sequence": 42, "_meta": {"c": 3}
	}`},
	{"user message chunk", "user_message_chunk", true, `{"sessionId": "s", "update": {"sessionUpdate": "user_message_chunk", "content": {"type": "resource_link", "uri": "file:///a", "name": "a"}}}`},
	{"thought chunk", "agent_thought_chunk", true, `{"sessionId": "s", "update": {"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hmm"}}}`},
	{"chunk with an unknown block", "agent_message_chunk", true, `{"sessionId": "s", "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "hologram", "depth": 3}}}`},
	{"tool call", "tool_call", true, `{"sessionId": "s", "update": {
		"sessionUpdate": "tool_call", "toolCallId": "call_1", "title": "Editing main.go", "name": "edit_file", "kind": "edit", "status": "pending",
		"content": [
			{"type": "diff", "path": "/p/main.go", "oldText": "a", "newText": "b"},
			{"type": "diff", "path": "/p/new.go", "newText": "package new"},
			{"type": "content", "content": {"type": "text", "text": "done"}},
			{"type": "terminal", "terminalId": "term_1"},
			{"type": "git_patch", "patch": "--- a\n+++ b"}
		],
		"locations": [{"path": "/p/main.go", "line": 3}, {"path": "/p/new.go", "column": 1}],
		"rawInput": {"path": "/p/main.go", "big": 123456789012345678901234567890},
		"rawOutput": null
	}}`},
	{"tool call with a future kind", "tool_call", true, `{"sessionId": "s", "update": {"sessionUpdate": "tool_call", "toolCallId": "c", "title": "t", "kind": "browse", "status": "queued"}}`},
	{"tool call update clearing content", "tool_call_update", true, `{"sessionId": "s", "update": {"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "completed", "content": [], "locations": [], "rawOutput": {"exit": 0}}}`},
	{"tool call update, status only", "tool_call_update", true, `{"sessionId": "s", "update": {"sessionUpdate": "tool_call_update", "toolCallId": "call_1", "status": "failed"}}`},
	{"plan", "plan", true, `{"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": [
		{"content": "Read the code", "priority": "high", "status": "completed"},
		{"content": "Fix it", "priority": "medium", "status": "in_progress", "_meta": {"id": 2}},
		{"content": "Celebrate", "priority": "urgent", "status": "blocked"}
	]}}`},
	{"empty plan", "plan", true, `{"sessionId": "s", "update": {"sessionUpdate": "plan", "entries": []}}`},
	{"available commands", "available_commands_update", true, `{"sessionId": "s", "update": {"sessionUpdate": "available_commands_update", "availableCommands": [
		{"name": "web", "description": "Search the web", "input": {"hint": "query"}},
		{"name": "init", "description": "Create AGENTS.md"},
		{"name": "pick", "description": "Pick", "input": {"type": "structured", "fields": ["a"]}}
	]}}`},
	{"current mode", "current_mode_update", true, `{"sessionId": "s", "update": {"sessionUpdate": "current_mode_update", "currentModeId": "code"}}`},
	{"config options", "config_option_update", true, `{"sessionId": "s", "update": {"sessionUpdate": "config_option_update", "configOptions": [
		{"id": "mode", "name": "Mode", "category": "mode", "type": "select", "currentValue": "ask", "options": [{"value": "ask", "name": "Ask"}]}
	]}}`},
	{"session info, clear and set", "session_info_update", true, `{"sessionId": "s", "update": {"sessionUpdate": "session_info_update", "title": null, "updatedAt": "2026-05-01T10:00:00Z"}}`},
	{"session info, empty", "session_info_update", true, `{"sessionId": "s", "update": {"sessionUpdate": "session_info_update"}}`},
	{"usage", "usage_update", true, `{"sessionId": "s", "update": {"sessionUpdate": "usage_update", "used": 53000, "size": 200000, "cost": {"amount": 0.25, "currency": "USD"}}}`},
	{"notice (npm-stable)", "notice", false, `{"sessionId": "s", "update": {"sessionUpdate": "notice", "severity": "warning", "title": "Rate <limited>", "description": "retrying"}}`},
	{"compaction summary chunk", "compaction_summary_chunk", false, `{"sessionId": "s", "update": {"sessionUpdate": "compaction_summary_chunk", "compactionId": "c1", "content": {"type": "text", "text": "x"}}}`},
	{"compaction update", "compaction_update", false, `{"sessionId": "s", "update": {"sessionUpdate": "compaction_update", "compactionId": "c1", "status": "completed", "summary": []}}`},
	{"plan update (unstable)", "plan_update", false, `{"sessionId": "s", "update": {"sessionUpdate": "plan_update", "plan": {"type": "markdown", "planId": "p1", "content": "# Plan"}}}`},
	{"non-string kind", "", false, `{"sessionId": "s", "update": {"sessionUpdate": 7, "content": {"type": "text", "text": "x"}}}`},
}

// assertRoundTrip decodes in into v, encodes v, and fails unless the encoding equals in
// as JSON. It returns v.
func assertRoundTrip(t *testing.T, v any, in string) any {
	t.Helper()
	if err := json.Unmarshal([]byte(in), v); err != nil {
		t.Fatalf("decoding: %v", err)
	}
	out, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("encoding: %v", err)
	}
	if !jsonEqual(t, []byte(in), out) {
		compact, _ := json.Compact([]byte(in))
		t.Errorf("round trip changed the message\n in: %s\nout: %s", compact, out)
	}
	return v
}

func jsonEqual(t *testing.T, a, b []byte) bool {
	t.Helper()
	var x, y any
	if err := json.Unmarshal(a, &x); err != nil {
		t.Fatalf("%s: %v", a, err)
	}
	if err := json.Unmarshal(b, &y); err != nil {
		t.Fatalf("%s: %v", b, err)
	}
	return reflect.DeepEqual(x, y)
}

// TestElicitationSchemaKeepsItsPropertyOrder: a form's fields are shown in the order the
// schema lists them, so decoding records that order and encoding writes it back, also
// through a relay that decodes and re-encodes the request.
func TestElicitationSchemaKeepsItsPropertyOrder(t *testing.T) {
	in := `{"type":"object","title":"Sign up","properties":{"zeta":{"type":"string"},"alpha":{"type":"number"},"mid":{"type":"boolean"}},"required":["alpha"],"x-extra":1}`
	var s ElicitationSchema
	if err := json.Unmarshal([]byte(in), &s); err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(s.Order, ","); got != "zeta,alpha,mid" {
		t.Errorf("order %q", got)
	}
	out, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	props := func(b []byte) string { _, p, _ := strings.Cut(string(b), `"properties":`); return p }
	z, a, m := strings.Index(props(out), `"zeta"`), strings.Index(props(out), `"alpha"`), strings.Index(props(out), `"mid"`)
	if !(0 <= z && z < a && a < m) || !strings.Contains(string(out), `"x-extra":1`) {
		t.Errorf("encoded %s", out)
	}
	var again ElicitationSchema
	if err := json.Unmarshal(out, &again); err != nil || !reflect.DeepEqual(again, s) {
		t.Errorf("round trip: %v\n%+v\n%+v", err, again, s)
	}
	// Properties Order does not name are written after it, by name; an empty schema
	// stays an object.
	s.Order = []string{"mid"}
	out, _ = json.Marshal(s)
	if m, a, z := strings.Index(props(out), `"mid"`), strings.Index(props(out), `"alpha"`), strings.Index(props(out), `"zeta"`); !(0 <= m && m < a && a < z) {
		t.Errorf("partly ordered: %s", out)
	}
	if out, _ := json.Marshal(ElicitationSchema{}); string(out) != "{}" {
		t.Errorf("empty schema: %s", out)
	}
}
