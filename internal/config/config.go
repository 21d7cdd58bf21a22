// Package config reads parley's configuration file, $XDG_CONFIG_HOME/parley/config.json,
// in one place: the agents the user added (agent_servers, in the shape editors use), the
// permission rules they configured, the sensitive-file rules parley's agent asks about,
// the ACP registry parley installs agents from (registry_url), and the limits of the
// record of changes. A missing file is an empty configuration; a key parley does not
// know is a warning, not an error.
package config

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/changes"
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
	// DefaultAgent is the agent of a command given no --agent (else eliza; parley login
	// and logout ask, or name the agents with a sign-in).
	DefaultAgent string `json:"default_agent"`
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
	// Changes bounds the record of what agents change (parley changes, parley undo), e.g.
	// {"max_age_days": 30, "max_mib": 256, "max_file_kib": 1024, "max_files": 100000}.
	Changes Changes `json:"changes"`
	// Sandbox widens or narrows how agents are confined (see Sandbox).
	Sandbox Sandbox `json:"sandbox"`
	// BellAfter is how many seconds a turn of the full-screen chat lasts before its end
	// rings the terminal's bell (you may have looked away): 10 when unset, 0 never.
	BellAfter *int `json:"bell_after"`
	// Warnings are what the file has that parley does not know (a misspelt key, say):
	// ignored, and said.
	Warnings []string `json:"-"`
}

// Changes is the "changes" section: the limits of the record of changes (0: parley's
// default, see changes.Limits).
type Changes struct {
	Off        bool `json:"off"`          // record nothing
	MaxAgeDays int  `json:"max_age_days"` // turns older are forgotten (30)
	MaxMiB     int  `json:"max_mib"`      // content kept per workspace (256)
	MaxFileKiB int  `json:"max_file_kib"` // a larger file is recorded by size and times (1024)
	MaxFiles   int  `json:"max_files"`    // a workspace with more files is not followed (100000)
}

// Limits are the section as the record takes them.
func (c Changes) Limits() changes.Limits {
	return changes.Limits{
		Off:          c.Off,
		MaxAge:       time.Duration(c.MaxAgeDays) * 24 * time.Hour,
		MaxBytes:     int64(c.MaxMiB) << 20,
		MaxFileBytes: int64(c.MaxFileKiB) << 10,
		MaxFiles:     c.MaxFiles,
	}
}

// known are the keys parley reads, at the top and in the sections it checks.
var known = map[string][]string{
	"":        {"agent_servers", "default_agent", "permissions", "sensitive_files", "registry_url", "changes", "sandbox"},
	"changes": {"off", "max_age_days", "max_mib", "max_file_kib", "max_files"},
	"sandbox": {"write", "deny_read", "read_secret", "agents"},
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
	// Sandbox is what this agent needs when confined: where it keeps its state, e.g.
	// {"write": ["~/.my-agent"], "read_secret": ["~/.aws"]}.
	Sandbox *AgentSandbox `json:"sandbox"`
}

// Sandbox is the "sandbox" section: for every agent, more it may write (write), more
// secrets it may not read (deny_read) and secrets of parley's list it may read
// (read_secret); and per agent by name (agents), e.g. {"agents": {"codex": {"off": true}}}.
// Paths take "~/" and variables ($VAR, ${VAR:-default}).
type Sandbox struct {
	Write      []string                `json:"write"`
	DenyRead   []string                `json:"deny_read"`
	ReadSecret []string                `json:"read_secret"`
	Agents     map[string]AgentSandbox `json:"agents"`
}

// AgentSandbox is one agent's confinement: off, or what it may write besides its
// workspace (its state directories), the secrets it may read, the only destinations it
// may connect to (HOST:PORT).
type AgentSandbox struct {
	Off        bool     `json:"off"`
	Write      []string `json:"write"`
	ReadSecret []string `json:"read_secret"`
	Net        []string `json:"net"`
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
	f.Warnings = unknownKeys(data, path)
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
	c := f.Changes
	if c.MaxAgeDays < 0 || c.MaxMiB < 0 || c.MaxFileKiB < 0 || c.MaxFiles < 0 {
		return nil, fmt.Errorf("%s: changes: limits must be positive (or 0 for the default)", path)
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

// unknownKeys lists the keys of data parley does not read (at the top, and in the
// sections it knows all of), in the order of the file.
func unknownKeys(data []byte, path string) []string {
	var warnings []string
	check := func(section string, raw []byte) {
		var keys map[string]json.RawMessage
		if json.Unmarshal(raw, &keys) != nil {
			return
		}
		var unknown []string
		for k := range keys {
			if !slices.Contains(known[section], k) {
				unknown = append(unknown, k)
			}
		}
		slices.Sort(unknown)
		for _, k := range unknown {
			where := k
			if section != "" {
				where = section + "." + k
			}
			warnings = append(warnings, fmt.Sprintf("%s: unknown key %q is ignored (known: %s)", path, where, strings.Join(known[section], ", ")))
		}
	}
	check("", data)
	var top map[string]json.RawMessage
	if json.Unmarshal(data, &top) == nil {
		for _, section := range []string{"changes", "sandbox"} {
			if raw, ok := top[section]; ok {
				check(section, raw)
			}
		}
	}
	return warnings
}
