package catalog

import (
	"errors"
	"io/fs"
	"os"
	"runtime"
	"strings"
)

// Availability says whether a can start here, in the words `parley agents` prints and
// the first screens show: "yes", "no: why", or "needs a download (… on its first
// start)". dir is the workspace (where npx finds a package installed locally).
func (a Agent) Availability(dir string) string {
	switch {
	case a.NotRunnable != "":
		return "no: " + a.NotRunnable
	case a.NeedsDownload(dir):
		return "needs a download (" + a.Fetch.String() + " on its first start)"
	}
	return "yes"
}

// about is what each built-in agent is, for a person meeting it first.
var about = map[string]string{
	"eliza":  "a built-in demo agent (the 1966 DOCTOR script): no model, no account; it shows what parley does",
	"parley": "parley's own coding agent, on a local model (Ollama)",
	"codex":  "OpenAI's Codex, through its ACP adapter: needs a sign-in (ChatGPT or an API key)",
	"claude": "Anthropic's Claude Code, through its ACP adapter: needs a sign-in (Claude or an API key)",
	"gemini": "Google's Gemini CLI: needs a sign-in (Google or an API key)",
}

// About says what the built-in agent named is, or "" for another agent.
func About(name string) string { return about[name] }

// apiKeys are the variables with which an agent signs in without a credential file.
var apiKeys = map[string][]string{
	"claude": {"ANTHROPIC_API_KEY", "CLAUDE_CODE_OAUTH_TOKEN"},
	"codex":  {"OPENAI_API_KEY", "CODEX_API_KEY"},
	"gemini": {"GEMINI_API_KEY", "GOOGLE_API_KEY", "GOOGLE_GENAI_USE_VERTEXAI"},
}

// SignIn says "no sign-in found here: parley login --agent NAME" when parley can tell,
// cheaply and without starting it, that a has not signed in here: its profile names its
// credential files, none of them exists, and no variable that signs it in is set (in
// the process's environment or the agent's own). It says "" when a is signed in, needs
// none, or parley cannot tell: an agent it has no profile for, or Claude Code on macOS,
// which keeps its credentials in the Keychain.
func (a Agent) SignIn() string {
	p := a.Profile
	if p == nil || len(p.Secrets) == 0 || a.NotRunnable != "" {
		return ""
	}
	if p.Agent == "claude" && runtime.GOOS == "darwin" {
		return ""
	}
	env := append(os.Environ(), a.Spec.Env...)
	for _, k := range apiKeys[p.Agent] {
		for i := len(env) - 1; i >= 0; i-- {
			if name, v, _ := strings.Cut(env[i], "="); name == k {
				if v != "" {
					return ""
				}
				break
			}
		}
	}
	for _, f := range ExpandPaths(p.Secrets, a.Spec.Env) {
		if _, err := os.Stat(f); !errors.Is(err, fs.ErrNotExist) {
			return "" // there, or parley cannot look
		}
	}
	return "no sign-in found here: parley login --agent " + a.Name
}
