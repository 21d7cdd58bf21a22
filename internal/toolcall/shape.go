package toolcall

import (
	"bytes"
	"fmt"
	"strings"
	"unicode"

	"github.com/parley-acp/parley/internal/json"
)

// candidate is one call read from a JSON object.
type candidate struct {
	name      string // as the model wrote it
	canonical string // when known
	known     bool
	hint      string          // what known said about an unknown name
	args      json.RawMessage // a JSON object, unless argsErr says why not
	argsErr   string
	// strong reports an unmistakable call shape: a name with an arguments member, the
	// OpenAI "function" object, or "type": "function".
	strong bool
}

type lookup = func(name string) (canonical string, ok bool)

// Member names models use, in order of preference.
var (
	nameKeys = []string{"name", "tool", "tool_name", "toolname", "function_name", "function"}
	argsKeys = []string{"arguments", "args", "params", "parameters", "input", "tool_input", "tool_args"}
)

func keyIndex(keys []string, name string) int {
	for i, k := range keys {
		if strings.EqualFold(k, name) {
			return i
		}
	}
	return -1
}

type member struct {
	name  string
	value []byte
}

// candidates reads the calls in a JSON value (valid JSON): an object, an array of
// objects, or an object with "tool_calls". An error says why the value is not a call.
func candidates(known lookup, value []byte, depth int) ([]candidate, string) {
	value = bytes.TrimSpace(value)
	if len(value) == 0 {
		return nil, "the tool call is empty"
	}
	switch value[0] {
	case '[':
		var elems []json.RawMessage
		if err := json.Unmarshal(value, &elems); err != nil {
			return nil, "the tool call is not valid JSON"
		}
		if len(elems) == 0 {
			return nil, "the list of tool calls is empty"
		}
		var out []candidate
		for _, e := range elems {
			c, msg := candidates(known, e, depth+1)
			if msg != "" {
				return nil, msg
			}
			out = append(out, c...)
		}
		return out, ""
	case '{':
		return object(known, value, depth)
	}
	return nil, "a tool call must be a JSON object with a name and arguments"
}

func object(known lookup, obj []byte, depth int) ([]candidate, string) {
	var (
		members  []member
		fnObj    []byte
		calls    []byte
		argsAt   = -1
		argsVal  []byte
		argsName string
		typeFn   bool
	)
	json.EachMember(obj, func(name string, value []byte) bool {
		members = append(members, member{name, value})
		switch {
		case strings.EqualFold(name, "function") && len(value) > 0 && value[0] == '{':
			fnObj = value
		case strings.EqualFold(name, "tool_calls") && len(value) > 0 && value[0] == '[':
			calls = value
		case strings.EqualFold(name, "type") && string(value) == `"function"`:
			typeFn = true
		}
		if i := keyIndex(argsKeys, name); i >= 0 && (argsAt < 0 || i < argsAt) {
			argsAt, argsVal, argsName = i, value, name
		}
		return true
	})
	if calls != nil && depth < 4 {
		cs, msg := candidates(known, calls, depth+1)
		for i := range cs {
			cs[i].strong = true
		}
		return cs, msg
	}
	if fnObj != nil && depth < 4 {
		cs, msg := object(known, fnObj, depth+1)
		for i := range cs {
			cs[i].strong = true
		}
		return cs, msg
	}
	c := candidate{strong: argsAt >= 0 || typeFn}
	// Several members may look like a name ({"tool": "create_branch", "name": "main"}):
	// the first, in order of preference, that names a known tool is the name; the others
	// are arguments.
	nameKey := ""
	for prec := range nameKeys {
		for _, m := range members {
			if keyIndex(nameKeys, m.name) != prec || len(m.value) == 0 || m.value[0] != '"' {
				continue
			}
			var s string
			if json.Unmarshal(m.value, &s) != nil || strings.TrimSpace(s) == "" {
				continue
			}
			s = strings.TrimSpace(s)
			canonical, hint, ok := resolve(known, s)
			if ok && !c.known {
				nameKey, c.name, c.canonical, c.known, c.hint = m.name, s, canonical, true, ""
			} else if nameKey == "" {
				nameKey, c.name, c.hint = m.name, s, hint
			}
		}
	}
	if nameKey == "" {
		return nil, "the tool call has no tool name"
	}
	var rest []member // the members other than the name: top-level arguments
	for _, m := range members {
		if m.name == nameKey || argsAt >= 0 && m.name == argsName ||
			typeFn && strings.EqualFold(m.name, "type") {
			continue
		}
		rest = append(rest, m)
	}
	if argsAt >= 0 {
		c.args, c.argsErr = decodeArgs(argsVal, depth)
		switch {
		case c.argsErr == "" && string(c.args) == "{}" && len(rest) > 0:
			c.args = objectOf(rest) // "arguments": {} beside the real ones
		case c.argsErr != "" && argsAt >= 2 && argsVal[0] == '"' && !looksLikeJSON(argsVal):
			// "input": "print(1)" is more likely an argument named input than
			// arguments written as a string.
			c.args, c.argsErr = objectOf(append(rest, member{argsName, argsVal})), ""
		}
	} else {
		c.args = objectOf(rest)
	}
	if c.argsErr == "" && isSchema(c.args) {
		// A tool definition echoed back ("parameters": {"type": "object", "properties": …}),
		// not a call.
		return nil, "this is a tool definition, not a call"
	}
	return []candidate{c}, ""
}

// decodeArgs reads the value of an arguments member: an object, a string holding JSON (the
// OpenAI wire form, possibly needing repair itself), or nothing.
func decodeArgs(v []byte, depth int) (args json.RawMessage, errMsg string) {
	v = bytes.TrimSpace(v)
	switch {
	case len(v) == 0 || string(v) == "null":
		return json.RawMessage("{}"), ""
	case v[0] == '{':
		return v, ""
	case v[0] == '"':
		var s string
		if json.Unmarshal(v, &s) != nil {
			return nil, "the arguments are not valid JSON"
		}
		s = strings.TrimSpace(s)
		if s == "" {
			return json.RawMessage("{}"), ""
		}
		out, _, ok := repairJSON([]byte(s))
		switch {
		case !ok:
			return nil, "the arguments string is not a JSON object"
		case out[0] == '"' && depth < 2:
			return decodeArgs(out, depth+1) // encoded twice
		case out[0] != '{':
			return nil, "the arguments must be a JSON object"
		}
		return out, ""
	}
	return nil, "the arguments must be a JSON object"
}

// looksLikeJSON reports whether the JSON string v holds something that starts like an
// object.
func looksLikeJSON(v []byte) bool {
	var s string
	return json.Unmarshal(v, &s) == nil && strings.HasPrefix(strings.TrimSpace(s), "{")
}

// objectOf builds a JSON object from members.
func objectOf(ms []member) json.RawMessage {
	n := 2
	for _, m := range ms {
		n += len(m.name) + len(m.value) + 4
	}
	out := make([]byte, 0, n)
	out = append(out, '{')
	for i, m := range ms {
		if i > 0 {
			out = append(out, ',')
		}
		out = appendString(out, []byte(m.name))
		out = append(out, ':')
		out = append(out, m.value...)
	}
	return append(out, '}')
}

func isSchema(args []byte) bool {
	return string(json.Member(args, "type")) == `"object"` && json.Member(args, "properties") != nil
}

// resolve finds the canonical name of a tool, trying the name as written and then the
// spellings models get wrong. hint is what known said about the first rejected name.
func resolve(known func(string) (string, bool), name string) (canonical, hint string, ok bool) {
	if known == nil {
		return name, "", true
	}
	c, ok := known(name)
	if ok {
		return c, "", true
	}
	hint = c
	tried := []string{name}
	for _, n := range nameVariants(name)[1:] {
		if contains(tried, n) {
			continue
		}
		tried = append(tried, n)
		if c, ok := known(n); ok {
			return c, "", true
		}
	}
	return "", hint, false
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// nameVariants returns name, then name without a namespace (functions.read_file), in
// lower case, and in snake case (readFile, read-file, Read File → read_file).
func nameVariants(name string) []string {
	out := []string{name}
	bare := name
	if i := strings.LastIndexAny(bare, ".:"); i >= 0 && i+1 < len(bare) {
		bare = bare[i+1:]
	}
	out = append(out, bare, strings.ToLower(bare))
	var b strings.Builder
	prevLower := false
	for _, r := range bare {
		switch {
		case r == '-' || r == ' ' || r == '.':
			b.WriteByte('_')
			prevLower = false
		case unicode.IsUpper(r):
			if prevLower {
				b.WriteByte('_')
			}
			b.WriteRune(unicode.ToLower(r))
			prevLower = false
		default:
			b.WriteRune(r)
			prevLower = unicode.IsLower(r) || unicode.IsDigit(r)
		}
	}
	return append(out, b.String())
}

// Messages for the model. Each says what is wrong and what to send instead.

func unknownTool(name, hint string) string {
	if hint != "" {
		return fmt.Sprintf("There is no tool named %q. The tools are: %s. Call one of them by its exact name.", name, hint)
	}
	return fmt.Sprintf("There is no tool named %q. Call one of the offered tools by its exact name.", name)
}

func unreadable(why string) string {
	return fmt.Sprintf("The tool call could not be used: %s. Send each call as %s with valid JSON.", why, callShape)
}

func badArguments(name, why string) string {
	return fmt.Sprintf("The call to %s could not be used: %s. Send the arguments as a JSON object: %s.", name, why, callShape)
}
