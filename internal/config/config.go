// Package config reads parley's configuration file, $XDG_CONFIG_HOME/parley/config.json,
// in one place: the agents the user added (agent_servers, in the shape editors use), the
// permission rules they configured, the sensitive-file rules parley's agent asks about,
// and the ACP registry parley installs agents from (registry_url). A missing file is an
// empty configuration.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/safety"
	"github.com/parley-acp/parley/internal/xdg"
)

// File is the configuration file.
type File struct {
	// Path is where it was read from (or would have been).
	Path string `json:"-"`
	// AgentServers are the user's agents, by name.
	AgentServers map[string]AgentServer `json:"agent_servers"`
	// Permissions are the user's rules, e.g. {"tool": "execute:*git push*", "action": "ask"}.
	Permissions []permission.Rule `json:"permissions"`
	// SensitiveFiles are the user's sensitive-file rules, added after parley's defaults
	// (the last match wins), e.g. {"pattern": "**/secrets/**", "action": "ask"} or
	// {"pattern": "**/package.json", "action": "allow"}.
	SensitiveFiles []safety.FileRule `json:"sensitive_files"`
	// RegistryURL replaces the public ACP registry (`parley agents`): a mirror's
	// registry.json, by an https URL, an http URL on this machine, or a file path.
	// $PARLEY_REGISTRY_URL replaces both.
	RegistryURL string `json:"registry_url"`
	// Warnings name what the file holds that parley does not know (a misspelt key is
	// otherwise silently ignored).
	Warnings []string `json:"-"`
}

// FileRules are the sensitive-file rules in force: parley's defaults, then the user's.
func (f *File) FileRules() (*safety.FileRules, error) {
	rules, err := safety.WithDefaults(f.SensitiveFiles)
	if err != nil {
		return nil, fmt.Errorf("%s: sensitive_files: %w", f.Path, err)
	}
	return rules, nil
}

// AgentServer is how to start one of the user's agents.
type AgentServer struct {
	Command string            `json:"command"`
	Args    []string          `json:"args"`
	Env     map[string]string `json:"env"`
}

// Path is the configuration file's location.
func Path() string { return filepath.Join(xdg.ConfigDir(), "config.json") }

// Load reads and checks the file at path; errors name the file and the entry at fault.
func Load(path string) (*File, error) {
	f := &File{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := json.Unmarshal(data, f); err != nil {
		return nil, fmt.Errorf("%s%s: %w", path, position(data, err), err)
	}
	f.Warnings = unknownKeys(path, data)
	for name, s := range f.AgentServers {
		if s.Command == "" {
			return nil, fmt.Errorf("%s: agent_servers.%s has no command", path, name)
		}
	}
	for i, r := range f.Permissions {
		switch r.Action {
		case permission.ActionAsk, permission.ActionAllow, permission.ActionReject:
		default:
			return nil, fmt.Errorf("%s: permissions[%d]: action must be ask, allow or reject, not %q", path, i, r.Action)
		}
	}
	if u := f.RegistryURL; u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "file://") && !filepath.IsAbs(u) {
		return nil, fmt.Errorf("%s: registry_url must be an https URL or an absolute file path, not %q", path, u)
	}
	if _, err := f.FileRules(); err != nil {
		return nil, err
	}
	return f, nil
}

// position is ":LINE:COLUMN" of a decoding error, or "" when it has none.
func position(data []byte, err error) string {
	var offset int64 = -1
	var se *json.SyntaxError
	var te *json.UnmarshalTypeError
	switch {
	case errors.As(err, &se):
		offset = se.Offset
	case errors.As(err, &te):
		offset = te.Offset
	}
	if offset < 0 || offset > int64(len(data)) {
		return ""
	}
	line, col := 1, 1
	for _, b := range data[:offset] {
		if b == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	// The decoder reports the offset after the byte at fault.
	if col > 1 {
		col--
	}
	return fmt.Sprintf(":%d:%d", line, col)
}

// knownKeys are the members parley reads, at the top level and in an agent server.
var (
	knownTop   = map[string]bool{"agent_servers": true, "permissions": true, "sensitive_files": true, "registry_url": true}
	knownAgent = map[string]bool{"command": true, "args": true, "env": true}
)

// unknownKeys names the members of the file parley does not read.
func unknownKeys(path string, data []byte) []string {
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) != nil {
		return nil
	}
	var out []string
	for _, k := range sortedKeys(top) {
		if !knownTop[k] {
			out = append(out, fmt.Sprintf("%s: unknown key %q (parley reads agent_servers, permissions, sensitive_files and registry_url)", path, k))
		}
	}
	var servers map[string]map[string]json.RawMessage
	if json.Unmarshal(top["agent_servers"], &servers) == nil {
		for _, name := range sortedKeys(servers) {
			for _, k := range sortedKeys(servers[name]) {
				if !knownAgent[k] {
					out = append(out, fmt.Sprintf("%s: agent_servers.%s: unknown key %q (an agent has command, args and env)", path, name, k))
				}
			}
		}
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
