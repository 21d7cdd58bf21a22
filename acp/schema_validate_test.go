package acp

import (
	"os"
	"testing"

	"github.com/google/jsonschema-go/jsonschema"
	"github.com/parley-acp/parley/internal/json"
)

// What this package writes must be valid against the schema's $defs. Each sample is a
// message built through the package's own types and constructors, the way a program that
// uses the package builds it (required members left out or arrays left nil included: the
// encoding must fill them in), paired with the $def it must satisfy.
var validSamples = []struct {
	def   string
	value any
}{
	{"InitializeRequest", &InitializeRequest{ProtocolVersion: ProtocolVersion,
		ClientCapabilities: ClientCapabilities{
			FS: FileSystemCapabilities{ReadTextFile: true, WriteTextFile: true}, Terminal: true,
			Session:     &ClientSessionCapabilities{ConfigOptions: &SessionConfigOptionsCapabilities{Boolean: &BooleanConfigOptionCapabilities{}}, Notices: &NoticeCapabilities{}, Compaction: &CompactionCapabilities{}},
			Auth:        AuthCapabilities{Terminal: true},
			Elicitation: &ElicitationCapabilities{Form: &ElicitationFormCapabilities{}, URL: &ElicitationURLCapabilities{}},
			Meta:        Meta{"terminal-auth": json.RawMessage(`true`)},
		},
		ClientInfo: &Implementation{Name: "client", Title: "A client", Version: "1.0.0"}}},
	{"InitializeRequest", &InitializeRequest{}},
	{"InitializeResponse", &InitializeResponse{ProtocolVersion: ProtocolVersion,
		AgentCapabilities: AgentCapabilities{LoadSession: true,
			PromptCapabilities:  PromptCapabilities{Image: true, Audio: true, EmbeddedContext: true},
			MCPCapabilities:     MCPCapabilities{HTTP: true, SSE: true},
			SessionCapabilities: SessionCapabilities{List: &SessionListCapabilities{}, Delete: &SessionDeleteCapabilities{}, AdditionalDirectories: &SessionAdditionalDirectoriesCapabilities{}, Resume: &SessionResumeCapabilities{}, Close: &SessionCloseCapabilities{}},
			Auth:                AgentAuthCapabilities{Logout: &LogoutCapabilities{}}},
		AuthMethods: []AuthMethod{
			{Agent: &AuthMethodAgent{ID: "browser", Name: "Sign in", Description: "Opens a browser"}},
			{Terminal: &AuthMethodTerminal{ID: "tty", Name: "Log in in a terminal", Args: []string{"--login"}, Env: map[string]string{"MODE": "tty"}}},
		},
		AgentInfo: &Implementation{Name: "agent", Version: "2"}}},
	{"AuthenticateRequest", &AuthenticateRequest{MethodID: "browser"}},
	{"AuthenticateResponse", &AuthenticateResponse{}},
	{"LogoutRequest", &LogoutRequest{}},
	{"LogoutResponse", &LogoutResponse{}},
	{"NewSessionRequest", &NewSessionRequest{Cwd: "/w", AdditionalDirectories: []string{"/lib"}, MCPServers: []MCPServer{
		StdioMCPServer("files", "/usr/bin/mcp-files", nil, nil),
		StdioMCPServer("git", "/usr/bin/mcp-git", []string{"-v"}, []EnvVariable{{Name: "A", Value: "1"}}),
		HTTPMCPServer("remote", "https://mcp.example.org", nil),
		{SSE: &MCPServerSSE{Name: "old", URL: "https://sse.example.org", Headers: []HTTPHeader{{Name: "Authorization", Value: "Bearer t"}}}},
	}}},
	{"NewSessionRequest", &NewSessionRequest{Cwd: "/w"}}, // nil MCPServers is written []
	{"NewSessionResponse", &NewSessionResponse{SessionID: "s1",
		Modes: &SessionModeState{CurrentModeID: "ask", AvailableModes: []SessionMode{{ID: "ask", Name: "Ask"}, {ID: "code", Name: "Code", Description: "Writes code"}}},
		ConfigOptions: []SessionConfigOption{
			{ID: "model", Name: "Model", Category: SessionConfigOptionCategoryModel, Select: &SessionConfigSelect{CurrentValue: "big",
				Options: SessionConfigSelectOptions{Ungrouped: []SessionConfigSelectOption{{Value: "big", Name: "Big"}, {Value: "small", Name: "Small", Description: "Fast"}}}}},
			{ID: "effort", Name: "Effort", Category: SessionConfigOptionCategoryThoughtLevel, Select: &SessionConfigSelect{CurrentValue: "low",
				Options: SessionConfigSelectOptions{Grouped: []SessionConfigSelectGroup{{Group: "g", Name: "Fast", Options: []SessionConfigSelectOption{{Value: "low", Name: "Low"}}}}}}},
			{ID: "yolo", Name: "Auto-approve", Category: "_custom", Boolean: &SessionConfigBoolean{CurrentValue: true}},
		}}},
	{"LoadSessionRequest", &LoadSessionRequest{SessionID: "s1", Cwd: "/w"}},
	{"LoadSessionResponse", &LoadSessionResponse{}},
	{"ResumeSessionRequest", &ResumeSessionRequest{SessionID: "s1", Cwd: "/w", MCPServers: []MCPServer{}}},
	{"ResumeSessionResponse", &ResumeSessionResponse{}},
	{"ListSessionsRequest", &ListSessionsRequest{Cwd: "/w", Cursor: "c1"}},
	{"ListSessionsResponse", &ListSessionsResponse{}}, // nil Sessions is written []
	{"ListSessionsResponse", &ListSessionsResponse{Sessions: []SessionInfo{{SessionID: "s1", Cwd: "/w", Title: "Fix it", UpdatedAt: "2026-10-29T14:22:15Z"}}, NextCursor: "c2"}},
	{"DeleteSessionRequest", &DeleteSessionRequest{SessionID: "s1"}},
	{"DeleteSessionResponse", &DeleteSessionResponse{}},
	{"CloseSessionRequest", &CloseSessionRequest{SessionID: "s1"}},
	{"CloseSessionResponse", &CloseSessionResponse{}},
	{"SetSessionModeRequest", &SetSessionModeRequest{SessionID: "s1", ModeID: "code"}},
	{"SetSessionModeResponse", &SetSessionModeResponse{}},
	{"SetSessionConfigOptionRequest", &SetSessionConfigOptionRequest{SessionID: "s1", ConfigID: "model", Value: ConfigValueID("small")}},
	{"SetSessionConfigOptionRequest", &SetSessionConfigOptionRequest{SessionID: "s1", ConfigID: "yolo", Value: ConfigValueBoolean(false)}},
	{"SetSessionConfigOptionResponse", &SetSessionConfigOptionResponse{}},
	{"PromptRequest", &PromptRequest{SessionID: "s1", Prompt: []ContentBlock{
		TextBlock("hello"),
		ImageBlock("aGVsbG8=", "image/png"),
		{Audio: &AudioContent{Data: "aGVsbG8=", MIMEType: "audio/wav"}},
		ResourceLinkBlock("main.go", "file:///w/main.go"),
		{Resource: &EmbeddedResource{Resource: EmbeddedResourceResource{Text: &TextResourceContents{URI: "file:///w/a.go", Text: "package a", MIMEType: "text/x-go"}}}},
		{Resource: &EmbeddedResource{Resource: EmbeddedResourceResource{Blob: &BlobResourceContents{URI: "file:///w/a.bin", Blob: "AAE="}}}},
		{Text: &TextContent{Text: "for you", Annotations: &Annotations{Audience: []Role{RoleUser}, Priority: ptr(0.5)}}},
	}}},
	{"PromptResponse", &PromptResponse{StopReason: StopReasonEndTurn}},
	{"PromptResponse", &PromptResponse{StopReason: StopReasonCancelled}},
	{"CancelNotification", &CancelNotification{SessionID: "s1"}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: UserMessageChunk(TextBlock("hi"))}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{AgentMessageChunk: &ContentChunk{Content: TextBlock("hello"), MessageID: "m1"}}}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: AgentThoughtChunk(TextBlock("hmm"))}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{ToolCall: &ToolCall{ToolCallID: "c1", Title: "Edit main.go", Name: "edit", Kind: ToolKindEdit, Status: ToolCallStatusPending,
		Content: []ToolCallContent{
			ToolContent(TextBlock("about to edit")),
			{Diff: &Diff{Path: "/w/main.go", OldText: ptr("a"), NewText: "b"}},
			TerminalContent("t1"),
		},
		Locations: []ToolCallLocation{{Path: "/w/main.go", Line: 3}},
		RawInput:  json.RawMessage(`{"path":"/w/main.go"}`)}}}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{ToolCallUpdate: &ToolCallUpdate{ToolCallID: "c1", Status: ToolCallStatusCompleted, RawOutput: json.RawMessage(`"done"`)}}}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{Plan: &Plan{Entries: []PlanEntry{{Content: "read", Priority: PlanEntryPriorityHigh, Status: PlanEntryStatusInProgress}}}}}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{Plan: &Plan{}}}}, // nil Entries is written []
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{AvailableCommandsUpdate: &AvailableCommandsUpdate{AvailableCommands: []AvailableCommand{
		{Name: "test", Description: "run the tests"},
		{Name: "flood", Description: "send chunks", Input: &AvailableCommandInput{Unstructured: &UnstructuredCommandInput{Hint: "n"}}},
	}}}}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{CurrentModeUpdate: &CurrentModeUpdate{CurrentModeID: "code"}}}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{ConfigOptionUpdate: &ConfigOptionUpdate{}}}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{SessionInfoUpdate: &SessionInfoUpdate{Title: PatchValue("Fix it"), UpdatedAt: PatchNull[string]()}}}},
	{"SessionNotification", &SessionNotification{SessionID: "s1", Update: SessionUpdate{UsageUpdate: &UsageUpdate{Used: 5300, Size: 200000, Cost: &Cost{Amount: 0.04, Currency: "USD"}}}}},
	{"RequestPermissionRequest", &RequestPermissionRequest{SessionID: "s1", ToolCall: ToolCallUpdate{ToolCallID: "c1", Title: "rm -rf build", Kind: ToolKindDelete}, Options: []PermissionOption{
		{OptionID: "y", Name: "Allow", Kind: PermissionOptionKindAllowOnce}, {OptionID: "Y", Name: "Always", Kind: PermissionOptionKindAllowAlways},
		{OptionID: "n", Name: "Reject", Kind: PermissionOptionKindRejectOnce}, {OptionID: "N", Name: "Never", Kind: PermissionOptionKindRejectAlways},
	}}},
	{"RequestPermissionResponse", &RequestPermissionResponse{Outcome: SelectedOutcome("y")}},
	{"RequestPermissionResponse", &RequestPermissionResponse{Outcome: CancelledOutcome()}},
	{"ReadTextFileRequest", &ReadTextFileRequest{SessionID: "s1", Path: "/w/a.go", Line: 10, Limit: 5}},
	{"ReadTextFileResponse", &ReadTextFileResponse{Content: "package a\n"}},
	{"WriteTextFileRequest", &WriteTextFileRequest{SessionID: "s1", Path: "/w/a.go", Content: "package a\n"}},
	{"WriteTextFileResponse", &WriteTextFileResponse{}},
	{"CreateTerminalRequest", &CreateTerminalRequest{SessionID: "s1", Command: "go", Args: []string{"test"}, Env: []EnvVariable{{Name: "CGO_ENABLED", Value: "0"}}, Cwd: "/w", OutputByteLimit: ptr(uint64(1 << 20))}},
	{"CreateTerminalResponse", &CreateTerminalResponse{TerminalID: "t1"}},
	{"TerminalOutputRequest", &TerminalOutputRequest{SessionID: "s1", TerminalID: "t1"}},
	{"TerminalOutputResponse", &TerminalOutputResponse{Output: "ok", ExitStatus: &TerminalExitStatus{ExitCode: ptr(uint32(0))}}},
	{"TerminalOutputResponse", &TerminalOutputResponse{Output: "", Truncated: true}},
	{"WaitForTerminalExitRequest", &WaitForTerminalExitRequest{SessionID: "s1", TerminalID: "t1"}},
	{"WaitForTerminalExitResponse", &WaitForTerminalExitResponse{Signal: "SIGKILL"}},
	{"KillTerminalRequest", &KillTerminalRequest{SessionID: "s1", TerminalID: "t1"}},
	{"KillTerminalResponse", &KillTerminalResponse{}},
	{"ReleaseTerminalRequest", &ReleaseTerminalRequest{SessionID: "s1", TerminalID: "t1"}},
	{"ReleaseTerminalResponse", &ReleaseTerminalResponse{}},
	{"CreateElicitationRequest", &CreateElicitationRequest{Message: "Pick", Mode: ElicitationModeForm,
		ElicitationSessionScope: ElicitationSessionScope{SessionID: "s1", ToolCallID: "c1"},
		ElicitationFormMode: ElicitationFormMode{RequestedSchema: &ElicitationSchema{Type: ElicitationSchemaTypeObject, Title: "Strategy",
			Properties: map[string]ElicitationPropertySchema{
				"name":     {String: &StringPropertySchema{Title: "Name", MinLength: ptr(uint32(1)), MaxLength: ptr(uint32(20)), Pattern: "^[a-z]+$", Default: ptr("x")}},
				"email":    {String: &StringPropertySchema{Format: StringFormatEmail}},
				"strategy": {String: &StringPropertySchema{Enum: []string{"safe", "fast"}}},
				"level":    {String: &StringPropertySchema{OneOf: []EnumOption{{Const: "1", Title: "One"}}}},
				"ratio":    {Number: &NumberPropertySchema{Minimum: ptr(0.0), Maximum: ptr(1.0), Default: ptr(0.5)}},
				"count":    {Integer: &IntegerPropertySchema{Minimum: ptr(int64(1)), Default: ptr(int64(3))}},
				"sure":     {Boolean: &BooleanPropertySchema{Default: ptr(true)}},
				"tags":     {Array: &MultiSelectPropertySchema{Items: MultiSelectItems{String: &StringMultiSelectItems{Enum: []string{"a", "b"}}}, MinItems: ptr(uint64(1)), Default: []string{"a"}}},
				"picks":    {Array: &MultiSelectPropertySchema{Items: MultiSelectItems{Titled: &TitledMultiSelectItems{AnyOf: []EnumOption{{Const: "a", Title: "A"}}}}}},
			},
			Required: []string{"strategy"}}}}},
	{"CreateElicitationRequest", &CreateElicitationRequest{Message: "Sign in", Mode: ElicitationModeURL,
		ElicitationURLMode:      ElicitationURLMode{ElicitationID: "e1", URL: "https://example.org/login"},
		ElicitationRequestScope: ElicitationRequestScope{RequestID: RequestID(`3`)}}},
	{"CreateElicitationResponse", &CreateElicitationResponse{Action: ElicitationActionAccept, ElicitationAcceptAction: ElicitationAcceptAction{Content: map[string]ElicitationContentValue{
		"strategy": json.RawMessage(`"safe"`), "count": json.RawMessage(`3`), "sure": json.RawMessage(`true`), "tags": json.RawMessage(`["a"]`)}}}},
	{"CreateElicitationResponse", &CreateElicitationResponse{Action: ElicitationActionDecline}},
	{"CompleteElicitationNotification", &CompleteElicitationNotification{ElicitationID: "e1"}},
	{"CancelRequestNotification", &CancelRequestNotification{RequestID: RequestID(`"r1"`)}},
	// Updates the stable schema of the npm package knows but SessionUpdate keeps in Unknown.
	{"Notice", &Notice{Severity: NoticeSeverityWarning, Title: "Low on quota"}},
	{"CompactionUpdate", &CompactionUpdate{CompactionID: "k1", Status: CompactionStatusCompleted, Summary: []ContentBlock{TextBlock("so far")}}},
	{"CompactionSummaryChunk", &CompactionSummaryChunk{CompactionID: "k1", Content: TextBlock("so")}},
}

func ptr[T any](v T) *T { return &v }

// schemaValidator validates JSON values against the schema's $defs.
type schemaValidator struct {
	root     jsonschema.Schema
	resolved map[string]*jsonschema.Resolved
}

func newSchemaValidator(t *testing.T) *schemaValidator {
	t.Helper()
	data, err := os.ReadFile(schemaPath)
	if err != nil {
		t.Fatal(err)
	}
	v := &schemaValidator{resolved: map[string]*jsonschema.Resolved{}}
	if err := json.Unmarshal(data, &v.root); err != nil {
		t.Fatalf("reading the schema: %v", err)
	}
	return v
}

// def returns the resolved schema of one $def.
func (v *schemaValidator) def(t *testing.T, name string) *jsonschema.Resolved {
	t.Helper()
	if rs := v.resolved[name]; rs != nil {
		return rs
	}
	if v.root.Defs[name] == nil {
		t.Fatalf("the schema has no $def %s", name)
	}
	ref := &jsonschema.Schema{Schema: v.root.Schema, Ref: "#/$defs/" + name, Defs: v.root.Defs}
	rs, err := ref.Resolve(nil)
	if err != nil {
		t.Fatalf("resolving %s: %v", name, err)
	}
	v.resolved[name] = rs
	return rs
}

// TestTheValidatorRejects keeps the validation honest: messages that break the schema in
// the ways an encoder could (a required array written null, an unknown enumeration value
// or union kind, a required member missing) are rejected.
func TestTheValidatorRejects(t *testing.T) {
	v := newSchemaValidator(t)
	for _, bad := range []struct{ def, json string }{
		{"NewSessionRequest", `{"cwd":"/w","mcpServers":null}`},
		{"NewSessionRequest", `{"cwd":"/w"}`},
		{"PromptResponse", `{"stopReason":"nonsense"}`},
		{"SessionNotification", `{"sessionId":"s1","update":{"sessionUpdate":"bogus"}}`},
		{"MCPServer", `{"type":"http","name":"x","url":"https://x"}`},
	} {
		def := bad.def
		if def == "MCPServer" {
			def = "McpServer"
		}
		var instance any
		json.Unmarshal([]byte(bad.json), &instance)
		if err := v.def(t, def).Validate(instance); err == nil {
			t.Errorf("%s accepted as %s", bad.json, def)
		}
	}
}

// TestWhatThePackageWritesIsValid validates each sample's encoding against its $def with
// a JSON Schema validator (draft 2020-12).
func TestWhatThePackageWritesIsValid(t *testing.T) {
	v := newSchemaValidator(t)
	covered := map[string]bool{}
	for i, s := range validSamples {
		rs := v.def(t, s.def)
		encoded, err := json.Marshal(s.value)
		if err != nil {
			t.Errorf("sample %d (%s): encoding: %v", i, s.def, err)
			continue
		}
		var instance any
		if err := json.Unmarshal(encoded, &instance); err != nil {
			t.Fatal(err)
		}
		if err := rs.Validate(instance); err != nil {
			t.Errorf("sample %d (%s) is not valid:\n%s\n%v", i, s.def, encoded, err)
		}
		covered[s.def] = true
	}
	// Every message of the protocol has a sample: its params, result or notification.
	for name, def := range v.root.Defs {
		if x, ok := def.Extra["x-method"]; ok && !covered[name] && x != nil {
			t.Errorf("no sample for %s (%v)", name, x)
		}
	}
}
