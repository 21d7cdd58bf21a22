package cli

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/agents"
	"github.com/parley-acp/parley/internal/host"
	"github.com/spf13/cobra"
)

// Exit statuses of parley run, one per way a turn can end.
const (
	exitEndTurn         = 0
	exitFailure         = 1
	exitUsage           = 2
	exitRefusal         = 3
	exitMaxTokens       = 4
	exitMaxTurnRequests = 5
	exitCancelled       = 130
)

func newRunCommand(g *globals) *cobra.Command {
	var agentName, agentCommand, cwd string
	cmd := &cobra.Command{
		Use:   "run [flags] PROMPT...",
		Short: "Send one prompt to an ACP agent and print its reply",
		Long: `Send one prompt to an ACP agent and stream its reply to stdout.

The agent is started in its own process, initialized, given a new session in the working
directory, and sent PROMPT (the arguments joined by spaces; "-" reads the prompt from
stdin). Its reply text streams to stdout; errors go to stderr.

Exit status: 0 end_turn, 1 error, 2 usage, 3 refusal, 4 max_tokens,
5 max_turn_requests, 130 cancelled (Ctrl-C sends session/cancel).`,
		Example: `  parley run "I am worried about my tests"
  parley run --agent-command "node my-agent.mjs --verbose" "hello"
  echo "flood 1000" | parley run -`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			spec, err := chooseAgent(cmd, agentName, agentCommand)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			prompt, err := readPrompt(cmd, args)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			dir, err := workspace(cwd)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			return runPrompt(cmd.Context(), g, spec, dir, prompt, cmd.OutOrStdout(), cmd.ErrOrStderr())
		},
	}
	cmd.Flags().StringVar(&agentName, "agent", "eliza", "the agent to run, by name (built-in: "+strings.Join(agents.BuiltinNames(), ", ")+"; see `parley agents`)")
	cmd.Flags().StringVar(&agentCommand, "agent-command", "", `the agent's command line, e.g. "npx some-acp-agent --flag" (overrides --agent)`)
	cmd.Flags().StringVar(&cwd, "cwd", "", "the session's working directory (default: the current directory)")
	return cmd
}

func chooseAgent(cmd *cobra.Command, name, command string) (agentproc.Spec, error) {
	if command != "" {
		if cmd.Flags().Changed("agent") {
			return agentproc.Spec{}, errors.New("give either --agent or --agent-command, not both")
		}
		return agents.ParseCommand(command)
	}
	reg, err := agents.Load(agents.ConfigPath())
	if err != nil {
		return agentproc.Spec{}, err
	}
	a, err := reg.Lookup(name)
	return a.Spec, err
}

func readPrompt(cmd *cobra.Command, args []string) (string, error) {
	if len(args) == 1 && args[0] == "-" {
		b, err := io.ReadAll(cmd.InOrStdin())
		if err != nil {
			return "", fmt.Errorf("reading the prompt from stdin: %w", err)
		}
		args = []string{string(b)}
	}
	prompt := strings.TrimSpace(joinArgs(args))
	if prompt == "" {
		return "", errors.New("the prompt is empty")
	}
	return prompt, nil
}

// workspace returns the absolute, symlink-resolved working directory.
func workspace(dir string) (string, error) {
	if dir == "" {
		var err error
		if dir, err = os.Getwd(); err != nil {
			return "", err
		}
	}
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", err
	}
	real, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("--cwd: %w", err)
	}
	if st, err := os.Stat(real); err != nil || !st.IsDir() {
		return "", fmt.Errorf("--cwd: %s is not a directory", dir)
	}
	return real, nil
}

func runPrompt(ctx context.Context, g *globals, spec agentproc.Spec, dir, prompt string, stdout, stderr io.Writer) error {
	out := newStreamWriter(stdout)
	defer out.Close()
	client := &printingClient{out: out, stderr: stderr}
	spec.Dir = dir
	agent, err := host.Launch(ctx, spec, host.LaunchOptions{Client: client, Logger: g.logger})
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	defer agent.Close()
	sess, err := agent.Conn.NewSession(ctx, &acp.NewSessionRequest{Cwd: dir, McpServers: []acp.McpServer{}})
	if err != nil {
		return &exitError{code: exitFailure, err: agent.Explain(fmt.Errorf("opening a session: %w", err))}
	}
	resp, err := agent.Conn.Prompt(ctx, &acp.PromptRequest{SessionID: sess.SessionID, Prompt: []acp.ContentBlock{acp.TextBlock(prompt)}})
	out.Close()
	if err != nil {
		if ctx.Err() != nil {
			return &exitError{code: exitCancelled, err: agent.Explain(err)}
		}
		return &exitError{code: exitFailure, err: agent.Explain(fmt.Errorf("the turn failed: %w", err))}
	}
	if client.wroteText() {
		out.EnsureNewline()
	}
	switch resp.StopReason {
	case acp.StopReasonEndTurn:
		return nil
	case acp.StopReasonCancelled:
		return &exitError{code: exitCancelled, err: errors.New("the turn was cancelled")}
	case acp.StopReasonRefusal:
		return &exitError{code: exitRefusal, err: errors.New("the agent refused the prompt")}
	case acp.StopReasonMaxTokens:
		return &exitError{code: exitMaxTokens, err: errors.New("the agent stopped: it reached its token limit")}
	case acp.StopReasonMaxTurnRequests:
		return &exitError{code: exitMaxTurnRequests, err: errors.New("the agent stopped: it reached its limit of model requests for one turn")}
	default:
		return &exitError{code: exitFailure, err: fmt.Errorf("the agent stopped for an unknown reason %q", resp.StopReason)}
	}
}

// printingClient is parley run's minimal ACP client: reply text to stdout, nothing else
// asked of the user. It cannot ask for permission yet, so it refuses (by kind, with a
// reject option: a refusal is not a cancellation).
type printingClient struct {
	out    *streamWriter
	stderr io.Writer
	mu     sync.Mutex
	text   bool
}

func (c *printingClient) wroteText() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.text
}

func (c *printingClient) SessionUpdate(ctx context.Context, n *acp.SessionNotification) error {
	if chunk := n.Update.AgentMessageChunk; chunk != nil {
		if text, ok := chunk.Content.AsText(); ok {
			c.mu.Lock()
			c.text = true
			c.mu.Unlock()
			c.out.WriteString(text)
		}
	}
	return nil
}

func (c *printingClient) RequestPermission(ctx context.Context, req *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
	title := req.ToolCall.Title
	if title == "" {
		title = "a tool call"
	}
	for _, kind := range []acp.PermissionOptionKind{acp.PermissionOptionKindRejectOnce, acp.PermissionOptionKindRejectAlways} {
		for _, o := range req.Options {
			if o.Kind == kind {
				fmt.Fprintf(c.stderr, "parley: the agent asked permission for %q; refused (parley run does not ask yet)\n", title)
				return &acp.RequestPermissionResponse{Outcome: acp.SelectedOutcome(o.OptionID)}, nil
			}
		}
	}
	fmt.Fprintf(c.stderr, "parley: the agent asked permission for %q and offered no way to refuse; cancelling\n", title)
	return &acp.RequestPermissionResponse{Outcome: acp.CancelledOutcome()}, nil
}

// streamWriter buffers output and flushes it shortly after it was written, so a stream of
// small chunks costs few system calls yet shows up at once for a reader.
type streamWriter struct {
	mu      sync.Mutex
	w       *bufio.Writer
	timer   *time.Timer
	lastNL  bool
	written bool
	closed  bool
}

const flushDelay = 15 * time.Millisecond

func newStreamWriter(w io.Writer) *streamWriter {
	return &streamWriter{w: bufio.NewWriterSize(w, 64<<10)}
}

func (s *streamWriter) WriteString(text string) {
	if text == "" {
		return
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return
	}
	s.w.WriteString(text)
	s.written = true
	s.lastNL = strings.HasSuffix(text, "\n")
	if s.timer == nil {
		s.timer = time.AfterFunc(flushDelay, s.flush)
	}
}

func (s *streamWriter) flush() {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.w.Flush()
	s.timer = nil
}

// EnsureNewline ends the output with a newline if it does not already.
func (s *streamWriter) EnsureNewline() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.written && !s.lastNL {
		s.w.WriteString("\n")
		s.lastNL = true
	}
	s.w.Flush()
}

// Close flushes and stops taking writes. It may be called more than once.
func (s *streamWriter) Close() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.timer != nil {
		s.timer.Stop()
		s.timer = nil
	}
	s.closed = true
	s.w.Flush()
}
