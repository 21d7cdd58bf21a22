package catalog

import (
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/xdg"
)

// Profile is what one agent needs of the file system when it is confined (see
// internal/sandbox): the directories and files where it keeps its state (settings,
// sessions, logs, caches), which it may write; its credential files, which no other agent
// may read; and the secrets of parley's default list it must read itself. Paths start
// with "~/" for the home directory, or with a variable as in a shell, "$VAR/x" or
// "${VAR:-~/default}/x", expanded in the agent's own environment: the real-agent suite
// moves codex's home with CODEX_HOME, for one.
//
// Each profile was found by running its agent confined (scripts/test-realagents) and
// granting what it was refused; see the comment of each.
type Profile struct {
	Agent      string
	Write      []string
	Secrets    []string
	ReadSecret []string
	// EmptyJSON are files of Write that parley creates holding `{}` when they do not
	// exist: Landlock grants only what exists, and the agent, confined, could not create
	// them beside its directories (in the home directory) itself.
	EmptyJSON []string
	// PTY: the agent runs its shell in a pseudo-terminal of its own.
	PTY bool
	// programs and packages recognise the agent in a command line (an --agent-command,
	// an agent_servers entry, a registry agent): a word whose base name is one of
	// programs, or that names one of packages (npx PKG[@VERSION], or a path through
	// node_modules/PKG/).
	programs, packages []string
}

// profiles are the agents parley knows how to confine.
var profiles = []Profile{
	{
		// codex-acp keeps config.toml, auth.json, sessions/, log/ and its sqlite state in
		// CODEX_HOME.
		Agent: "codex", Write: []string{"${CODEX_HOME:-~/.codex}"}, Secrets: []string{"${CODEX_HOME:-~/.codex}/auth.json"},
		programs: []string{"codex-acp", "codex"}, packages: []string{"@agentclientprotocol/codex-acp", "@zed-industries/codex-acp", "@openai/codex"},
	},
	{
		// Claude Code keeps settings, projects/ (sessions), todos/, shell snapshots and
		// .credentials.json in CLAUDE_CONFIG_DIR (~/.claude), and its state in
		// ~/.claude.json beside it when CLAUDE_CONFIG_DIR is not set.
		// A fresh user has no ~/.claude.json: claude (2.1) takes `{}` and fills it, and,
		// refused the temporary file it writes beside it, rewrites it in place.
		Agent: "claude", Write: []string{"${CLAUDE_CONFIG_DIR:-~/.claude}", "~/.claude.json", "~/.claude.json.backup"},
		EmptyJSON: []string{"~/.claude.json"},
		Secrets:   []string{"${CLAUDE_CONFIG_DIR:-~/.claude}/.credentials.json"},
		programs:  []string{"claude-agent-acp", "claude-code-acp", "claude"},
		packages:  []string{"@agentclientprotocol/claude-agent-acp", "@zed-industries/claude-code-acp", "@anthropic-ai/claude-code"},
	},
	{
		// gemini-cli keeps settings.json, oauth_creds.json, tmp/ (sessions, checkpoints)
		// and history in .gemini under GEMINI_CLI_HOME (the home directory). Its shell
		// runs in a pseudo-terminal (node-pty): without one, "forkpty(3) failed".
		Agent: "gemini", Write: []string{"${GEMINI_CLI_HOME:-~}/.gemini"}, PTY: true,
		Secrets:  []string{"${GEMINI_CLI_HOME:-~}/.gemini/oauth_creds.json", "${GEMINI_CLI_HOME:-~}/.gemini/google_accounts.json"},
		programs: []string{"gemini"}, packages: []string{"@google/gemini-cli"},
	},
	{
		// qwen-code, a fork of gemini-cli, keeps the same in ~/.qwen, and runs its shell in
		// a pseudo-terminal too.
		Agent: "qwen", Write: []string{"~/.qwen"}, Secrets: []string{"~/.qwen/oauth_creds.json"}, PTY: true,
		programs: []string{"qwen"}, packages: []string{"@qwen-code/qwen-code"},
	},
	{
		// opencode follows the XDG directories: its sessions and auth.json in data, its
		// config, its logs in state, its packages (the providers' SDKs) in cache.
		Agent: "opencode",
		Write: []string{"${XDG_DATA_HOME:-~/.local/share}/opencode", "${XDG_CONFIG_HOME:-~/.config}/opencode",
			"${XDG_STATE_HOME:-~/.local/state}/opencode", "${XDG_CACHE_HOME:-~/.cache}/opencode"},
		Secrets:  []string{"${XDG_DATA_HOME:-~/.local/share}/opencode/auth.json"},
		programs: []string{"opencode"}, packages: []string{"opencode-ai"},
	},
	{
		// parley's own agent keeps its sessions, checkpoints and approvals in parley's
		// database, and reads parley's configuration (sensitive_files).
		Agent: "parley", Write: []string{"$PARLEY_DATA_DIR"}, ReadSecret: []string{"$PARLEY_CONFIG_DIR", "$PARLEY_DATA_DIR"},
	},
	// Eliza keeps its sessions in ElizaSessions (made before it starts: Landlock grants
	// only what exists).
	{Agent: "eliza", Write: []string{ElizaSessions}},
}

// ElizaSessions is where Eliza keeps its sessions between processes.
const ElizaSessions = "${XDG_CACHE_HOME:-~/.cache}/parley-eliza"

// ProfileOf is the profile of the agent called name, or of the agent the command line
// spec starts (a known program or package among its words); nil when it is none parley
// knows.
func ProfileOf(name string, spec agentproc.Spec) *Profile {
	for i := range profiles {
		if profiles[i].Agent == name && (name == "eliza" || name == "parley") {
			return &profiles[i]
		}
	}
	if spec.Command == "" {
		return nil
	}
	words := append([]string{spec.Command}, spec.Args...)
	self, _ := os.Executable()
	for i, w := range words[:len(words)-1] { // parley's own agents, by a command line
		if base := strings.TrimSuffix(filepath.Base(w), ".exe"); base == "parley" || (self != "" && w == self) {
			switch words[i+1] {
			case "agent":
				return ProfileOf("parley", agentproc.Spec{})
			case "eliza":
				return ProfileOf("eliza", agentproc.Spec{})
			}
		}
	}
	for i := range profiles {
		p := &profiles[i]
		for _, w := range words {
			if p.names(w) {
				return p
			}
		}
	}
	for i := range profiles {
		if profiles[i].Agent == name {
			return &profiles[i]
		}
	}
	return nil
}

// names reports whether the command-line word w starts this profile's agent.
func (p *Profile) names(w string) bool {
	if slices.Contains(p.programs, strings.TrimSuffix(filepath.Base(w), ".exe")) {
		return true
	}
	for _, pkg := range p.packages {
		if w == pkg || strings.HasPrefix(w, pkg+"@") || strings.Contains(filepath.ToSlash(w), "node_modules/"+pkg+"/") {
			return true
		}
	}
	return false
}

// Profiles are the profiles of every agent parley knows, for the credential files no
// other agent may read.
func Profiles() []Profile { return slices.Clone(profiles) }

// Expand is the profile's paths in the environment env (the agent's: the process's with
// its own variables over it).
func (p *Profile) Expand(env []string) (write, secrets, readSecret []string) {
	return ExpandPaths(p.Write, env), ExpandPaths(p.Secrets, env), ExpandPaths(p.ReadSecret, env)
}

// ExpandPaths expands "~/" and variables ("$VAR", "${VAR:-default}") in each path, in the
// environment env over the process's; a path with a variable that is not set (and has
// no default), or that is not absolute after that, is left out.
func ExpandPaths(paths, env []string) []string {
	home, _ := os.UserHomeDir()
	lookup := func(name string) string {
		for i := len(env) - 1; i >= 0; i-- {
			if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
				return v
			}
		}
		switch name {
		case "PARLEY_DATA_DIR":
			return xdg.DataDir()
		case "PARLEY_CONFIG_DIR":
			return xdg.ConfigDir()
		}
		return os.Getenv(name)
	}
	var out []string
	for _, p := range paths {
		unset := false
		p = expandHome(os.Expand(p, func(v string) string {
			name, def, hasDef := strings.Cut(v, ":-")
			val := lookup(name)
			switch {
			case val != "":
				return val
			case hasDef:
				return expandHome(def, home)
			}
			unset = true
			return ""
		}), home)
		if filepath.IsAbs(p) && !unset {
			out = append(out, filepath.Clean(p))
		}
	}
	return out
}

func expandHome(p, home string) string {
	if home != "" && (p == "~" || strings.HasPrefix(p, "~/")) {
		return filepath.Join(home, p[1:])
	}
	return p
}
