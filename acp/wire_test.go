package acp

import (
	"strings"
	"testing"

	"github.com/parley-acp/parley/internal/json"
)

// Leniency: what peers send that the schema's deserializer accepts.

func TestMalformedMetaIsDropped(t *testing.T) {
	for _, meta := range []string{`"oops"`, `42`, `[1,2]`, `null`, `true`} {
		in := `{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"x","_meta":` + meta + `},"_meta":` + meta + `},"_meta":` + meta + `}`
		var n SessionNotification
		if err := json.Unmarshal([]byte(in), &n); err != nil {
			t.Errorf("_meta %s: %v", meta, err)
			continue
		}
		if n.Meta != nil || n.Update.AgentMessageChunk.Meta != nil || n.Update.AgentMessageChunk.Content.Text.Meta != nil {
			t.Errorf("_meta %s decoded as %v", meta, n.Meta)
		}
	}
	var m Meta
	if err := json.Unmarshal([]byte(`{}`), &m); err != nil || m == nil || len(m) != 0 {
		t.Errorf("an empty _meta decoded as %#v, %v; want an empty, non-nil Meta (written back as {})", m, err)
	}
}

func TestNullDecodesAsAbsent(t *testing.T) {
	var req NewSessionRequest
	if err := json.Unmarshal([]byte(`{"cwd":"/p","mcpServers":null,"additionalDirectories":null,"_meta":null}`), &req); err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(req); string(out) != `{"cwd":"/p","mcpServers":[]}` {
		t.Errorf("re-encoded as %s", out)
	}

	var srv MCPServer
	if err := json.Unmarshal([]byte(`{"name":"s","command":"c","args":null,"env":null}`), &srv); err != nil {
		t.Fatal(err)
	}
	if out, _ := json.Marshal(srv); string(out) != `{"name":"s","command":"c","args":[],"env":[]}` {
		t.Errorf("re-encoded as %s", out)
	}

	for _, tc := range []struct {
		in   string
		v    any
		want string
	}{
		{`{"toolCallId":"c","title":"t","content":null,"locations":null,"kind":null,"status":null,"name":null}`, new(ToolCall), `{"toolCallId":"c","title":"t"}`},
		{`{"protocolVersion":1,"clientCapabilities":null,"clientInfo":null}`, new(InitializeRequest), `{"protocolVersion":1}`},
		{`{"sessionId":"s","modes":null,"configOptions":null,"models":null}`, new(NewSessionResponse), `{"sessionId":"s"}`},
		{`{"used":1,"size":2,"cost":null}`, new(UsageUpdate), `{"used":1,"size":2}`},
		{`{"type":"text","text":"t","annotations":null}`, new(ContentBlock), `{"type":"text","text":"t"}`},
		{`{"output":"","truncated":false,"exitStatus":null}`, new(TerminalOutputResponse), `{"output":"","truncated":false}`},
		{`{"path":"/a","oldText":null,"newText":"n"}`, new(Diff), `{"path":"/a","newText":"n"}`},
		{`{"content":{"type":"text","text":"t"},"messageId":null}`, new(ContentChunk), `{"content":{"type":"text","text":"t"}}`},
	} {
		if err := json.Unmarshal([]byte(tc.in), tc.v); err != nil {
			t.Errorf("%s: %v", tc.in, err)
			continue
		}
		if out, _ := json.Marshal(tc.v); string(out) != tc.want {
			t.Errorf("%s\nre-encoded as %s, want %s", tc.in, out, tc.want)
		}
	}
}

func TestEmptyResultsAcceptNull(t *testing.T) {
	// The docs show "result": null for fs/write_text_file; the schema wants an object.
	for _, in := range []string{`null`, `{}`, ` { } `} {
		for _, v := range []any{
			new(WriteTextFileResponse), new(AuthenticateResponse), new(SetSessionModeResponse),
			new(KillTerminalResponse), new(ReleaseTerminalResponse), new(SetSessionModelResponse),
		} {
			if err := json.Unmarshal([]byte(in), v); err != nil {
				t.Errorf("%T from %s: %v", v, in, err)
			}
		}
	}
	if out, _ := json.Marshal(WriteTextFileResponse{}); string(out) != `{}` {
		t.Errorf("WriteTextFileResponse encodes as %s, want {}", out)
	}
}

func TestWrongTypedOptionalMemberIsKept(t *testing.T) {
	const in = `{"toolCallId":"c","title":"t","locations":"nowhere","rawInput":{"a":1},"kind":5}`
	var call ToolCall
	if err := json.Unmarshal([]byte(in), &call); err != nil {
		t.Fatal(err)
	}
	if call.Locations != nil || call.Kind != "" {
		t.Errorf("wrong-typed members decoded: %+v", call)
	}
	out, _ := json.Marshal(call)
	if !jsonEqual(t, []byte(in), out) {
		t.Errorf("re-encoded as %s, want %s", out, in)
	}
	// A required member of the wrong type is an error.
	if err := json.Unmarshal([]byte(`{"toolCallId":1,"title":"t"}`), &call); err == nil {
		t.Error("a numeric toolCallId decoded without error")
	}
}

func TestMemberNamesMatchExactly(t *testing.T) {
	var n CancelNotification
	if err := json.Unmarshal([]byte(`{"SessionId":"wrong","sessionId":"s","SESSIONID":"x"}`), &n); err != nil {
		t.Fatal(err)
	}
	if n.SessionID != "s" || len(n.Extra) != 2 {
		t.Errorf("sessionId %q, extra %s", n.SessionID, n.Extra)
	}
}

func TestBigNumbersSurvive(t *testing.T) {
	for _, tc := range []struct {
		in   string
		v    any
		want string
	}{
		{`{"toolCallId":"c","title":"t","rawInput":{"n":123456789012345678901234567890}}`, new(ToolCall), `123456789012345678901234567890`},
		{`{"type":"integer","maximum":9007199254740993}`, new(ElicitationPropertySchema), `9007199254740993`},
		{`{"action":"accept","content":{"n":12345678901234567890}}`, new(CreateElicitationResponse), `12345678901234567890`},
		{`{"sessionId":"s","futureCounter":18446744073709551617}`, new(CancelNotification), `18446744073709551617`},
	} {
		if err := json.Unmarshal([]byte(tc.in), tc.v); err != nil {
			t.Fatal(err)
		}
		if out, _ := json.Marshal(tc.v); !strings.Contains(string(out), tc.want) {
			t.Errorf("%s re-encoded as %s", tc.in, out)
		}
	}
}

// Strictness: what parley sends.

func TestEncodingIsStrict(t *testing.T) {
	for _, tc := range []struct {
		name string
		v    any
		want string
	}{
		{"stdio server: args and env always present", MCPServer{Stdio: &MCPServerStdio{Name: "fs", Command: "/bin/fs"}}, `{"name":"fs","command":"/bin/fs","args":[],"env":[]}`},
		{"http server: headers always present", MCPServer{HTTP: &MCPServerHTTP{Name: "w", URL: "https://w"}}, `{"type":"http","name":"w","url":"https://w","headers":[]}`},
		{"fs capabilities are nested", ClientCapabilities{FS: FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true}, `{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true}`},
		{"empty capabilities are omitted", InitializeRequest{ProtocolVersion: ProtocolVersion}, `{"protocolVersion":1}`},
		{"capability markers are {}", AgentCapabilities{
			SessionCapabilities: SessionCapabilities{List: &SessionListCapabilities{}, Close: &SessionCloseCapabilities{}},
			Auth:                AgentAuthCapabilities{Logout: &LogoutCapabilities{}},
		}, `{"sessionCapabilities":{"list":{},"close":{}},"auth":{"logout":{}}}`},
		{"mcpServers is required", NewSessionRequest{Cwd: "/p"}, `{"cwd":"/p","mcpServers":[]}`},
		{"load needs mcpServers too", LoadSessionRequest{SessionID: "s", Cwd: "/p"}, `{"sessionId":"s","cwd":"/p","mcpServers":[]}`},
		{"resume does not", ResumeSessionRequest{SessionID: "s", Cwd: "/p"}, `{"sessionId":"s","cwd":"/p"}`},
		{"prompt is required", PromptRequest{SessionID: "s"}, `{"sessionId":"s","prompt":[]}`},
		{"terminal output has output and truncated", TerminalOutputResponse{}, `{"output":"","truncated":false}`},
		{"exit code 0 is written", TerminalOutputResponse{ExitStatus: &TerminalExitStatus{ExitCode: new(uint32)}}, `{"output":"","truncated":false,"exitStatus":{"exitCode":0}}`},
		{"cancelled permission", RequestPermissionResponse{Outcome: CancelledOutcome()}, `{"outcome":{"outcome":"cancelled"}}`},
		{"plan entries are required", Plan{}, `{"entries":[]}`},
		{"tool call update: nil content is unchanged", ToolCallUpdate{ToolCallID: "c"}, `{"toolCallId":"c"}`},
		{"tool call update: empty content clears", ToolCallUpdate{ToolCallID: "c", Content: []ToolCallContent{}}, `{"toolCallId":"c","content":[]}`},
		{"select options are required", SessionConfigOption{ID: "m", Name: "M", Select: &SessionConfigSelect{CurrentValue: "a"}}, `{"type":"select","id":"m","name":"M","currentValue":"a","options":[]}`},
		{"empty meta is kept", CancelNotification{SessionID: "s", Meta: Meta{}}, `{"sessionId":"s","_meta":{}}`},
	} {
		out, err := json.Marshal(tc.v)
		if err != nil || string(out) != tc.want {
			t.Errorf("%s:\n got %s, %v\nwant %s", tc.name, out, err, tc.want)
		}
	}
}
