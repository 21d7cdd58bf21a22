package cli

import (
	"fmt"
	"os"
	"strings"

	"github.com/parley-acp/parley/internal/coder"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/version"
	"github.com/spf13/cobra"
)

// defaultModel is the model `parley agent` uses when neither --model nor PARLEY_MODEL
// says otherwise.
const defaultModel = "ollama:qwen2.5-coder:7b"

// agentCommandFlags are parley agent's flags.
type agentCommandFlags struct {
	model, baseURL  string
	maxTurns        int
	context         int
	vision          bool
	noThink         bool
	autoApprove     []string
	yolo            bool
	dbPath          string
	sandboxMode     string
	sandboxWritable []string
}

func newAgentCommand(g *globals) *cobra.Command {
	var f agentCommandFlags
	cmd := &cobra.Command{
		Use:   "agent [flags]",
		Short: "Run parley's coding agent (Ollama or OpenAI-compatible) as an ACP agent on stdin and stdout",
		Long: `Run parley's own coding agent as an ACP agent on stdin and stdout, for an editor or
for parley chat (parley chat --agent parley). It reads, searches and edits files and runs
commands inside the session's workspace, through the client when the client offers fs and
terminal access.

Models: --model ollama:NAME (Ollama's /api/chat, at $OLLAMA_HOST as for ollama itself,
else http://127.0.0.1:11434)
or --model openai:NAME --base-url URL (any OpenAI-compatible /v1/chat/completions; the API
key comes from OPENAI_API_KEY). PARLEY_MODEL sets the default model.

Approvals: the agent asks the client (session/request_permission) before it runs a
command, edits a sensitive file (.env, keys, lockfiles, CI workflows...;
"sensitive_files" in parley's config.json adds rules after the defaults, each
{"pattern": GLOB, "action": "ask" or "allow"}, the last match winning), or calls a tool
of the session's MCP servers. --auto-approve lists what runs without asking:
  harmless         commands of no risk: reads, and builds that run none of the
                   project's code (ls, cat, grep, git log, go build)
  commands         every command but critical ones (harmless ones included)
  edits            edits of files that are not sensitive
  sensitive-edits  edits of sensitive files
  mcp              tools of the session's MCP servers
  none             nothing: every command asks, harmless ones too
The default is harmless,edits: harmless commands and ordinary edits run unasked.
--yolo approves all of them. A critical command (deleting the workspace or outside it,
a downloaded script run by a shell, code only known when it runs...) always asks.
"Always" answers hold for the session, or for the workspace when the user picks that
option (listed and reset with parley permissions); a command that runs code the agent
can change (a script, make, the project's tests) is never covered by one. Without its
database (another process holds it locked), nothing is approved unasked.

Context: requests always fit the model's context window. Its size is what the server
reports (Ollama: the model's own, at most 16384 tokens unless --context says more; an
OpenAI-compatible server: what its /models says, else 8192 until it refuses a longer
prompt) or --context N. A quarter is kept for the reply. When the conversation would no
longer fit, its older part is replaced by a summary the model writes (shown as a step of
the turn; /compact asks for it), and large tool output is cut to its start and end with a
note on how to read the rest. usage_update says how full the window is.

Checkpoints: every turn that changes files is a checkpoint; /checkpoints lists them,
/undo restores the last one (or checkpoint N, or one file), /keep accepts them. Sessions
and checkpoints are kept in parley's database and survive a restart (session/list,
session/load, session/resume).

Sandbox: ` + sandboxStatus() + `

Read-only tools (list_files, search_workspace) run git with the workspace's fsmonitor
and hooks turned off, so listing a checkout never runs a program it configures.`,
		Example: `  parley chat --agent-command "parley agent --model ollama:qwen2.5-coder:7b"
  parley run --agent-command "parley agent --model openai:gpt-4o-mini --base-url http://127.0.0.1:8080/v1" "fix the failing test"
  parley agent --auto-approve edits,commands`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			defer byHand(cmd, "parley agent", "parley")()
			return runAgent(cmd, g, f)
		},
	}
	fl := cmd.Flags()
	fl.StringVar(&f.model, "model", "", "the `MODEL`: ollama:NAME or openai:NAME (default $PARLEY_MODEL, else "+defaultModel+")")
	fl.StringVar(&f.baseURL, "base-url", "", "the model server's `URL` (default: $OLLAMA_HOST, else Ollama's local address; required for most openai: servers)")
	fl.IntVar(&f.maxTurns, "max-turn-requests", 25, "the most model requests in one turn (`N`)")
	fl.IntVar(&f.context, "context", 0, "the most `TOKENS` of context to use (default: the model's window as the server reports it; with Ollama at most 16384, sent as num_ctx)")
	fl.IntVar(&f.context, "num-ctx", 0, "the same as --context (`TOKENS`)")
	fl.MarkDeprecated("num-ctx", "use --context")
	fl.BoolVar(&f.vision, "vision", false, "the model takes images although its server does not say so (OpenAI-compatible servers often do not)")
	fl.BoolVar(&f.noThink, "no-think", false, "never ask the model for its reasoning")
	fl.StringSliceVar(&f.autoApprove, "auto-approve", []string{"harmless", "edits"}, "`WHAT` runs without asking: harmless, commands, edits, sensitive-edits, mcp, or none (critical commands always ask)")
	fl.BoolVar(&f.yolo, "yolo", false, "approve everything without asking, except critical commands")
	fl.StringVar(&f.dbPath, "db", store.DefaultPath(), "the parley database `FILE` (sessions, checkpoints, remembered approvals)")
	fl.StringVar(&f.sandboxMode, "sandbox", "auto", sandboxFlagHelp("the commands the agent runs itself"))
	fl.StringArrayVar(&f.sandboxWritable, "sandbox-write", nil, "a further directory `DIR` confined commands may write (repeatable)")
	return cmd
}

func runAgent(cmd *cobra.Command, g *globals, f agentCommandFlags) error {
	if f.model == "" {
		f.model = os.Getenv("PARLEY_MODEL")
	}
	if f.model == "" {
		f.model = defaultModel
	}
	provider, name, err := llm.New(f.model, f.baseURL, os.Getenv("OPENAI_API_KEY"))
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	auto, err := parseAutoApprove(f.autoApprove, f.yolo)
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	cfg, err := config.Load(config.Path())
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	files, err := cfg.FileRules()
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	box, cleanup, err := commandSandbox(f.sandboxMode, f.sandboxWritable, "parley-agent-")
	if err != nil {
		return &exitError{code: exitUsage, err: err}
	}
	defer cleanup()
	warnUnconfined(g.logger, f.sandboxMode)
	opts := coder.Options{
		Provider:        provider,
		Model:           name,
		MaxTurnRequests: f.maxTurns,
		Context:         f.context,
		Vision:          f.vision,
		NoThink:         f.noThink,
		Version:         version.String(),
		Logger:          g.logger,
		Auto:            auto,
		SensitiveFiles:  files,
	}
	if box != nil {
		opts.Sandbox = box
	}
	// Without its database the agent still works, but keeps nothing: say so in its log.
	if st, err := store.Open(f.dbPath); err != nil {
		g.logger.Warn("sessions, checkpoints and remembered approvals are off; nothing is approved without a question", "error", err)
		opts.StoreErr = err
	} else {
		defer st.Close()
		opts.Store = st
	}
	ctx, stop := interruptible(cmd.Context())
	defer stop()
	return coder.Serve(ctx, agentStdio(cmd), opts)
}

// parseAutoApprove reads --auto-approve and --yolo.
func parseAutoApprove(values []string, yolo bool) (coder.AutoApprove, error) {
	if yolo {
		return coder.Yolo(), nil
	}
	var a coder.AutoApprove
	for _, v := range values {
		switch strings.TrimSpace(strings.ToLower(v)) {
		case "harmless":
			a.Harmless = true
		case "commands":
			a.Commands, a.Harmless = true, true
		case "edits":
			a.Edits = true
		case "sensitive-edits":
			a.SensitiveEdits = true
		case "mcp":
			a.MCP = true
		case "none", "":
		default:
			return a, fmt.Errorf("--auto-approve: %q is not one of harmless, commands, edits, sensitive-edits, mcp, none", v)
		}
	}
	return a, nil
}

// commandSandbox is the sandbox --sandbox asks for (mode auto or off), for parley
// agent's commands and for run's and chat's terminal/create: nil when off or not
// offered. cleanup removes the commands' private temporary directory, named with prefix.
func commandSandbox(mode string, writable []string, prefix string) (box *sandbox.Policy, cleanup func(), err error) {
	cleanup = func() {}
	switch mode {
	case "off":
		return nil, cleanup, nil
	case "auto":
	default:
		return nil, cleanup, fmt.Errorf("--sandbox: %q is not auto or off", mode)
	}
	if sandbox.Mechanism() == "" {
		return nil, cleanup, nil
	}
	exe, err := os.Executable()
	if err != nil {
		return nil, cleanup, fmt.Errorf("--sandbox: cannot find parley's own binary to confine commands with (%v); use --sandbox off", err)
	}
	tmp, err := os.MkdirTemp("", prefix)
	if err != nil {
		return nil, cleanup, fmt.Errorf("--sandbox: a temporary directory for commands: %v; use --sandbox off", err)
	}
	return sandbox.New(exe, tmp, writable), func() { os.RemoveAll(tmp) }, nil
}

// sandboxStatus says, for --help, whether commands are confined on this machine.
func sandboxStatus() string {
	if abi := sandbox.ABI(); abi > 0 {
		return fmt.Sprintf(`on. This kernel offers Landlock (ABI %d): the commands the agent runs itself
may write only in the session's workspace, a temporary directory of their own (their
TMPDIR), the user's cache directory and --sandbox-write directories (--sandbox off turns
this off). Commands the client runs in its own terminals are the client's to confine.

%s`, abi, wrapText(sandbox.Reach(abi), 88))
	}
	if sandbox.Mechanism() == "seatbelt" {
		return `on. macOS's Seatbelt (/usr/bin/sandbox-exec) confines the commands the agent runs
itself: they may write only in the session's workspace, a temporary directory of their
own (their TMPDIR), the user's cache directory and --sandbox-write directories, cannot
connect to the user's Unix socket servers nor signal processes outside their sandbox
(--sandbox off turns this off). Commands the client runs in its own terminals are the
client's to confine.`
	}
	if !sandbox.Supported {
		return `off. Landlock, which confines commands on Linux, is Linux's: on ` + platformName() + ` the commands
the agent runs can write wherever the user can; the approvals above are the only guard.`
	}
	return `off. This kernel offers no Landlock, so the commands the agent runs can write
wherever the user can; the approvals above are the only guard.`
}

// wrapText breaks text into lines of at most width characters, between words.
func wrapText(text string, width int) string {
	var b strings.Builder
	line := 0
	for _, word := range strings.Fields(text) {
		if line > 0 && line+1+len([]rune(word)) > width {
			b.WriteByte('\n')
			line = 0
		} else if line > 0 {
			b.WriteByte(' ')
			line++
		}
		b.WriteString(word)
		line += len([]rune(word))
	}
	return b.String()
}
