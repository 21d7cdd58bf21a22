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
	if u := f.RegistryURL; u != "" && !strings.HasPrefix(u, "https://") && !strings.HasPrefix(u, "http://") && !strings.HasPrefix(u, "file://") && !filepath.IsAbs(u) {
		return nil, fmt.Errorf("%s: registry_url must be an https URL or an absolute file path, not %q", path, u)
	}
	if _, err := f.FileRules(); err != nil {
		return nil, err
	}
	return f, nil
}
