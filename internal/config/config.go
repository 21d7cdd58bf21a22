// Package config reads parley's configuration file, $XDG_CONFIG_HOME/parley/config.json,
// in one place: the agents the user added (agent_servers, in the shape editors use), the
// permission rules they configured, and the sensitive-file rules parley's agent asks
// about. A missing file is an empty configuration.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

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
		return nil, fmt.Errorf("%s: %w", path, err)
	}
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
	if _, err := f.FileRules(); err != nil {
		return nil, err
	}
	return f, nil
}
