package catalog

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
