package vscodelm

import (
	"fmt"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// Agent kinds of an AgentKey.
const (
	AgentEliza = "eliza" // parley's built-in Eliza
	AgentStdio = "stdio" // an ACP agent spawned as a subprocess
)

// AgentKey identifies an agent process: requests with equal keys share one process. It is
// comparable, so it can key a map; slices are held in an unambiguous encoded form.
type AgentKey struct {
	Kind          string // AgentEliza or AgentStdio
	Deterministic bool   // eliza only
	Command       string // stdio only
	args          string // JSON array, in order
	env           string // JSON array of "name=value", sorted by name
}

// Args returns the command's arguments in order.
func (k AgentKey) Args() []string { return decodeList(k.args) }

// Env returns the environment as "name=value" strings sorted by name.
func (k AgentKey) Env() []string { return decodeList(k.env) }

func (k AgentKey) String() string {
	if k.Kind == AgentEliza {
		return fmt.Sprintf("eliza(deterministic=%t)", k.Deterministic)
	}
	return strings.Join(append([]string{k.Command}, k.Args()...), " ")
}

func decodeList(s string) []string {
	if s == "" {
		return nil
	}
	var list []string
	json.Unmarshal([]byte(s), &list) // written by encodeList, cannot fail
	return list
}

func encodeList(list []string) string {
	if len(list) == 0 {
		return ""
	}
	b, _ := json.Marshal(list) // strings always encode
	return string(b)
}

// AgentDef is a decoded params.agent: the key plus the labels the client gave it.
type AgentDef struct {
	Key  AgentKey
	ID   string // flat shape only; a label
	Name string // a label
}

const agentShapes = `accepted shapes: {"eliza":{"deterministic":bool}}, ` +
	`{"mcp_server":{"name","command","args","env"}}, or {"id","name","command","args","env"}; ` +
	`other members beside a variant (such as "id" and "name") are labels`

// ParseAgent decodes params.agent in both shapes clients send: the flat stdio shape of
// the extension ({"id","name","command","args","env"}) and the tagged one of Symposium's
// backend ({"eliza":{…}}, {"mcp_server":{…}}). An
// object with one variant member (eliza or mcp_server) is that variant, whatever labels
// stand beside it; one without but with "command" is the flat stdio shape. Errors wrap
// ErrInvalidParams and name the accepted shapes.
func ParseAgent(raw json.RawMessage) (AgentDef, error) {
	fail := func(format string, args ...any) (AgentDef, error) {
		return AgentDef{}, fmt.Errorf("agent: %s; %s: %w", fmt.Sprintf(format, args...), agentShapes, ErrInvalidParams)
	}
	raw = trimJSON(raw)
	if len(raw) == 0 || string(raw) == "null" {
		return fail("missing")
	}
	switch raw[0] {
	case '"':
		var unit string
		json.Unmarshal(raw, &unit)
		return fail("the agent %q is not supported", unit)
	case '{':
	default:
		return fail("want an object, got %s", abbreviate(raw))
	}
	var members, variants []string
	if err := json.EachMember(raw, func(name string, _ []byte) bool {
		members = append(members, name)
		if name == "eliza" || name == "mcp_server" {
			variants = append(variants, name)
		}
		return true
	}); err != nil {
		return fail("malformed object: %v", err)
	}
	var def AgentDef
	var err error
	switch {
	case len(variants) > 1:
		return fail("both %s given; want one", strings.Join(variants, " and "))
	case len(variants) == 1 && json.Member(raw, "command") != nil:
		return fail("both %s and command given; want one", variants[0])
	case len(variants) == 1 && variants[0] == "eliza":
		def, err = parseEliza(json.Member(raw, "eliza"), fail)
	case len(variants) == 1:
		def, err = parseStdio(json.Member(raw, "mcp_server"), fail)
	case json.Member(raw, "command") != nil:
		return parseStdio(raw, fail)
	default:
		return fail("unrecognised members %s", strings.Join(members, ", "))
	}
	if err != nil {
		return def, err
	}
	labels(raw, &def) // the labels beside a variant
	return def, nil
}

// labels reads the "id" and "name" labels of obj into def, where they are strings.
func labels(obj []byte, def *AgentDef) {
	var l struct {
		ID   any `json:"id"`
		Name any `json:"name"`
	}
	json.Unmarshal(obj, &l)
	if id, ok := l.ID.(string); ok && id != "" {
		def.ID = id
	}
	if name, ok := l.Name.(string); ok && name != "" {
		def.Name = name
	}
}

// Label names the agent in logs and its log file: the client's id, else its name, else
// the command.
func (d AgentDef) Label() string {
	switch {
	case d.ID != "":
		return d.ID
	case d.Name != "" && d.Key.Kind != AgentEliza:
		return d.Name
	case d.Key.Kind == AgentEliza:
		return "eliza"
	}
	return filepath.Base(d.Key.Command)
}

type failFunc func(format string, args ...any) (AgentDef, error)

func parseEliza(raw []byte, fail failFunc) (AgentDef, error) {
	var e struct {
		Deterministic bool `json:"deterministic,omitempty"`
	}
	if len(trimJSON(raw)) == 0 || trimJSON(raw)[0] != '{' {
		return fail("eliza: want an object, got %s", abbreviate(raw))
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return fail("eliza: %v", err)
	}
	return AgentDef{Key: AgentKey{Kind: AgentEliza, Deterministic: e.Deterministic}, Name: "Eliza"}, nil
}

func parseStdio(raw []byte, fail failFunc) (AgentDef, error) {
	var server acp.MCPServer
	if err := json.Unmarshal(raw, &server); err != nil {
		return fail("%v", err)
	}
	if server.Stdio == nil {
		return fail("only stdio agents can be spawned, not %q", server.Kind())
	}
	s := server.Stdio
	if s.Command == "" {
		return fail("empty command")
	}
	env := make([]string, len(s.Env))
	for i, v := range s.Env {
		env[i] = v.Name + "=" + v.Value
	}
	sort.SliceStable(env, func(i, j int) bool { return envName(env[i]) < envName(env[j]) })
	def := AgentDef{
		Key:  AgentKey{Kind: AgentStdio, Command: s.Command, args: encodeList(s.Args), env: encodeList(env)},
		Name: s.Name,
	}
	if id := s.Extra["id"]; id != nil {
		json.Unmarshal(id, &def.ID) // a label: a non-string id is simply not shown
	}
	return def, nil
}

func envName(nameValue string) string {
	name, _, _ := strings.Cut(nameValue, "=")
	return name
}

func trimJSON(b []byte) []byte {
	return []byte(strings.TrimSpace(string(b)))
}

func abbreviate(b []byte) string {
	if len(b) > 40 {
		return string(b[:40]) + "..."
	}
	return string(b)
}
