// Package catalog knows which ACP agents parley can start and how: the built-in ones, those
// installed from the ACP registry (internal/registry records them; each is known by its
// registry id), and the user's own, from the agent_servers section of parley's
// configuration file (read by internal/config; the shape editors already use: name →
// command, args, env). A user's entry replaces an installed agent of the same name, and
// an installed one a built-in.
//
// An agent started through a package runner (npx, uvx) may first download its package;
// Agent.Fetch says so, and NeedsDownload looks, without the network, whether the runner
// has the package already (fetch.go).
package catalog

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/registry"
)

// Agent is one agent parley can start.
type Agent struct {
	Name   string
	Source string // "built-in" or the configuration file it came from
	Spec   agentproc.Spec
	// NotRunnable is empty when the agent can be started here, else it says why not.
	NotRunnable string
	// Fetch is set when a package runner starts the agent, which downloads its package
	// the first time.
	Fetch *Fetch
	// Installed is set for an agent installed from the registry.
	Installed *registry.Installed
	// Profile is what the agent needs when confined (profile.go); nil for an agent parley
	// does not know, which writes only what it is granted (config.json's "sandbox").
	Profile *Profile
	// Sandbox is the configuration's word on confining it (agent_servers.NAME.sandbox,
	// or sandbox.agents.NAME); nil when it has none.
	Sandbox *config.AgentSandbox
}

// Catalog is the set of known agents.
type Catalog struct {
	agents   map[string]Agent
	warnings []string
}

// builtin describes a built-in agent: a command to look for on PATH, and the npm package
// to run through npx when it is not installed.
type builtin struct {
	name    string
	command string   // on PATH
	args    []string // for both ways of starting it
	npm     string   // package for npx, "" for none
	self    []string // parley's own subcommand, instead of command
}

var builtins = []builtin{
	{name: "eliza", self: []string{"eliza"}},
	{name: "parley", self: []string{"agent"}},
	{name: "codex", command: "codex-acp", npm: "@agentclientprotocol/codex-acp"},
	{name: "claude", command: "claude-agent-acp", npm: "@agentclientprotocol/claude-agent-acp"},
	{name: "gemini", command: "gemini", args: []string{"--acp"}, npm: "@google/gemini-cli"},
}

// New returns the built-in agents, the agents installed from the registry (in
// registry.DefaultDir) and the configuration's agent_servers. A user entry replaces an
// installed agent or a built-in of the same name; an installed agent, a built-in.
func New(cfg *config.File) *Catalog {
	return NewIn(cfg, registry.DefaultDir())
}

// NewIn is New with the registry's agents installed in dir.
func NewIn(cfg *config.File, dir string) *Catalog {
	r := &Catalog{agents: map[string]Agent{}}
	for _, b := range builtins {
		r.agents[b.name] = b.resolve()
	}
	installed, err := registry.ReadInstalled(dir)
	if err != nil {
		r.warnings = append(r.warnings, err.Error())
	}
	for id, rec := range installed {
		if !Reserved(id) {
			r.agents[id] = fromInstalled(rec)
		}
	}
	defer func() { // the configuration's word on confining each
		for name, a := range r.agents {
			a.Sandbox = SandboxOf(cfg, name)
			r.agents[name] = a
		}
	}()
	for name, s := range cfg.AgentServers {
		a := Agent{Name: name, Source: cfg.Path, Spec: agentproc.Spec{Command: s.Command, Args: s.Args}}
		for k, v := range s.Env {
			a.Spec.Env = append(a.Spec.Env, k+"="+v)
		}
		slices.Sort(a.Spec.Env)
		a.Fetch = FetchOf(s.Command, s.Args)
		a.Profile = ProfileOf(name, a.Spec)
		if _, err := exec.LookPath(s.Command); err != nil {
			a.NotRunnable = fmt.Sprintf("%s is not installed or not on PATH", s.Command)
		}
		r.agents[name] = a
	}
	return r
}

// SandboxOf is the configuration's word on confining the agent called name: its
// agent_servers entry's "sandbox", else sandbox.agents.NAME; nil when there is none.
func SandboxOf(cfg *config.File, name string) *config.AgentSandbox {
	if s, ok := cfg.AgentServers[name]; ok && s.Sandbox != nil {
		return s.Sandbox
	}
	if s, ok := cfg.Sandbox.Agents[name]; ok {
		return &s
	}
	return nil
}

// NPMCache is npm's cache directory, which npx writes when it starts an agent.
func NPMCache() string { return npmCacheDir() }

// fromInstalled is an agent installed from the registry.
func fromInstalled(rec registry.Installed) Agent {
	a := Agent{Name: rec.ID, Source: "registry " + rec.Version, Installed: &rec, Spec: agentproc.Spec{Command: rec.Command, Args: rec.Args}}
	for k, v := range rec.Env {
		a.Spec.Env = append(a.Spec.Env, k+"="+v)
	}
	slices.Sort(a.Spec.Env)
	a.Profile = ProfileOf(rec.ID, a.Spec)
	switch rec.Kind {
	case "npx", "uvx":
		a.Fetch = &Fetch{Runner: rec.Kind, Package: rec.Package}
		if _, err := exec.LookPath(rec.Command); err != nil {
			a.NotRunnable = fmt.Sprintf("%s (to fetch %s) is not on PATH", rec.Command, rec.Package)
		}
	default:
		if st, err := os.Stat(rec.Command); err != nil || !st.Mode().IsRegular() {
			a.NotRunnable = fmt.Sprintf("its files are missing (%s); run `parley agents install %s` again", rec.Command, rec.ID)
		}
	}
	return a
}

// Warnings are problems found while reading the known agents (an unreadable record of
// installed agents), for `parley agents` to show.
func (r *Catalog) Warnings() []string { return r.warnings }

// Load reads the configuration file at path and returns New of it.
func Load(path string) (*Catalog, error) {
	cfg, err := config.Load(path)
	if err != nil {
		return nil, err
	}
	return New(cfg), nil
}

func (b builtin) resolve() (a Agent) {
	a = Agent{Name: b.name, Source: "built-in"}
	// On every return: a named result, or the profile set here would be lost.
	defer func() { a.Profile = ProfileOf(b.name, a.Spec) }()
	if b.self != nil {
		self, err := os.Executable()
		if err != nil {
			a.NotRunnable = "cannot find parley's own binary: " + err.Error()
		}
		a.Spec = agentproc.Spec{Command: self, Args: b.self}
		return a
	}
	if _, err := exec.LookPath(b.command); err == nil {
		a.Spec = agentproc.Spec{Command: b.command, Args: b.args}
		return a
	}
	// On Windows npx is npx.cmd: exec.LookPath finds it through PATHEXT, and internal/proc
	// starts a batch file through cmd.exe.
	a.Spec = agentproc.Spec{Command: "npx", Args: append([]string{"-y", b.npm}, b.args...)}
	if b.name == "gemini" {
		a.Spec.Args = append([]string{"-y", "-p", b.npm, "gemini"}, b.args...)
	}
	a.Fetch = FetchOf(a.Spec.Command, a.Spec.Args)
	if _, err := exec.LookPath("npx"); err != nil {
		a.NotRunnable = fmt.Sprintf("%s is not installed, and npx (to fetch %s) is not on PATH", b.command, b.npm)
	}
	return a
}

// Names lists the known agents, sorted.
func (r *Catalog) Names() []string {
	names := make([]string, 0, len(r.agents))
	for n := range r.agents {
		names = append(names, n)
	}
	slices.Sort(names)
	return names
}

// All lists the known agents, sorted by name.
func (r *Catalog) All() []Agent {
	var out []Agent
	for _, n := range r.Names() {
		out = append(out, r.agents[n])
	}
	return out
}

// Lookup returns how to start the named agent.
func (r *Catalog) Lookup(name string) (Agent, error) {
	a, ok := r.agents[name]
	if !ok {
		if s := Suggest(name, r.Names()); s != "" {
			return Agent{}, fmt.Errorf("unknown agent %q: did you mean %s? Known agents: %s (see `parley agents`, or give a command with --agent-command)", name, s, strings.Join(r.Names(), ", "))
		}
		return Agent{}, fmt.Errorf("unknown agent %q; known agents: %s (see `parley agents`, or give a command with --agent-command)", name, strings.Join(r.Names(), ", "))
	}
	if a.NotRunnable != "" {
		return a, fmt.Errorf("agent %q cannot run here: %s", name, a.NotRunnable)
	}
	return a, nil
}

// Reserved reports whether name is one of parley's own agents (eliza, parley), which an
// agent installed from the registry may not replace: `--agent parley` always runs parley.
func Reserved(name string) bool {
	for _, b := range builtins {
		if b.name == name && b.self != nil {
			return true
		}
	}
	return false
}

// BuiltinNames lists the built-in agents, for help texts.
func BuiltinNames() []string {
	var names []string
	for _, b := range builtins {
		names = append(names, b.name)
	}
	return names
}

// ParseCommand splits a command line the way a POSIX shell splits words: blanks separate
// words, single quotes keep everything literal, double quotes keep blanks, and a
// backslash escapes the next character. It does not expand anything. On Windows a
// backslash is an ordinary character, as paths are full of them (C:\tools\agent.exe);
// quotes work the same.
func ParseCommand(line string) (agentproc.Spec, error) {
	return parseCommand(line, runtime.GOOS == "windows")
}

func parseCommand(line string, literalBackslash bool) (agentproc.Spec, error) {
	words, err := splitWords(line, literalBackslash)
	if err != nil {
		return agentproc.Spec{}, err
	}
	if len(words) == 0 {
		return agentproc.Spec{}, errors.New("the agent command is empty")
	}
	return agentproc.Spec{Command: words[0], Args: words[1:]}, nil
}

func splitWords(line string, literalBackslash bool) ([]string, error) {
	var words []string
	var word strings.Builder
	inWord := false
	for i := 0; i < len(line); i++ {
		c := line[i]
		switch {
		case c == ' ' || c == '\t' || c == '\n':
			if inWord {
				words = append(words, word.String())
				word.Reset()
				inWord = false
			}
		case c == '\'':
			end := strings.IndexByte(line[i+1:], '\'')
			if end < 0 {
				return nil, errors.New("unterminated ' in the agent command")
			}
			word.WriteString(line[i+1 : i+1+end])
			i += end + 1
			inWord = true
		case c == '"':
			i++
			for ; i < len(line) && line[i] != '"'; i++ {
				if !literalBackslash && line[i] == '\\' && i+1 < len(line) && strings.IndexByte(`"\$`+"`", line[i+1]) >= 0 {
					i++
				}
				word.WriteByte(line[i])
			}
			if i >= len(line) {
				return nil, errors.New(`unterminated " in the agent command`)
			}
			inWord = true
		case c == '\\' && i+1 < len(line) && !literalBackslash:
			i++
			word.WriteByte(line[i])
			inWord = true
		default:
			word.WriteByte(c)
			inWord = true
		}
	}
	if inWord {
		words = append(words, word.String())
	}
	return words, nil
}
