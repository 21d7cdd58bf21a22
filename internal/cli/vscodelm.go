package cli

import (
	"bytes"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/version"
	"github.com/parley-acp/parley/internal/vscodelm"
	"github.com/parley-acp/parley/internal/xdg"
	"github.com/spf13/cobra"
)

func newVSCodeLMCommand(g *globals) *cobra.Command {
	var idle, agentTimeout time.Duration
	var maxConversations, spares int
	var sandboxMode string
	var sandboxWritable, sandboxRead, sandboxNet []string
	cmd := &cobra.Command{
		Use:   "vscodelm",
		Short: "Serve ACP agents as VS Code language models (the backend of parley's VS Code extension)",
		Long: `Serve ACP agents as VS Code language models: the stdio JSON-RPC backend of parley's VS Code
extension (lm/provideLanguageModelChatResponse, lm/cancel, lm/provideTokenCount,
lm/provideLanguageModelChatInformation). Each VS Code conversation becomes an ACP session;
VS Code's tools reach the agent through an MCP server named vscode_tools, and the agent's
permission requests (after your permission rules, as in parley chat) come back as calls of
the parley-agent-action tool. For @parley it also reports each turn's usage, the files it
changed (to review and undo: lm/diff, lm/undo) and the agent's questions, settings and
sign-in. Every agent is confined as in parley chat (--sandbox): one process per agent
and workspace, which it may write.

Each agent's stderr is appended to ` + filepath.Join(xdg.StateDir(), "logs", "<agent>.log") + `. --log debug
says, for each request, which conversation it continues and what was new.
--trace-dir DIR records every line in and out (and parley's own log), each with its time
and direction, in DIR.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tuneHostGC()
			stdio := commandStdio(cmd)
			stdio.in = interruptibleStdin(stdio.in)
			var stream io.ReadWriteCloser = stdio
			logger := g.logger
			if g.traceDir != "" {
				t, err := newTrace(g.traceDir, stream)
				if err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				defer t.finish()
				stream = t
				var level slog.Level
				level.UnmarshalText([]byte(g.logLevel)) // checked by globals.setup
				logger = slog.New(slog.NewTextHandler(io.MultiWriter(cmd.ErrOrStderr(), t.stderr()), &slog.HandlerOptions{Level: level}))
			}
			if spares == 0 {
				spares = -1 // none; the option's zero value means the default
			}
			box, cleanup, err := commandSandbox(sandboxMode, sandboxWritable, "parley-terminal-")
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			defer cleanup()
			warnUnconfined(logger, sandboxMode)
			// The configuration's rules and limits hold in VS Code as everywhere; a file that
			// cannot be read leaves them out (and is said) rather than the backend.
			cfg, err := config.Load(config.Path())
			if err != nil {
				logger.Warn("the configuration file cannot be read; its permission rules do not apply", "error", err)
				cfg = &config.File{}
			}
			request := func(name string, spec agentproc.Spec, roots []string) confineRequest {
				return confineRequest{mode: sandboxMode, name: name, spec: spec, roots: roots, cfg: cfg,
					write: sandboxWritable, read: sandboxRead, net: sandboxNet}
			}
			first, err := confineAgent(request("every agent", agentproc.Spec{}, nil))
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			var saidMu sync.Mutex
			said := map[string]bool{}
			confine := func(name string, spec agentproc.Spec, roots []string) *sandbox.AgentSpec {
				c, err := confineAgent(request(name, spec, roots))
				saidMu.Lock()
				defer saidMu.Unlock()
				if !said[name] {
					said[name] = true
					if c.describe != "" {
						logger.Info(c.describe)
					}
					for _, w := range c.warnings {
						logger.Warn(w)
					}
				}
				if err != nil { // checked above: the flags are the same for every agent
					logger.Warn("the agent is not confined", "agent", name, "error", err)
				}
				return c.spec
			}
			if first.spec == nil { // --sandbox off, or nothing to confine with here
				for _, w := range first.warnings {
					logger.Warn(w)
				}
				confine = nil
			}
			st, storeErr := store.Open(store.DefaultPath())
			if storeErr != nil {
				logger.Warn("parley's database cannot be opened: remembered permission decisions are not used and changes are not recorded", "error", storeErr)
			} else {
				defer st.Close()
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return vscodelm.Serve(ctx, stream, vscodelm.Options{
				Logger: logger, Version: version.String(), IdleTimeout: idle, MaxConversations: maxConversations,
				AgentTimeout: agentTimeout, Spares: spares, Sandbox: box, Confine: confine,
				Store: st, StoreErr: storeErr, ChangeLimits: cfg.Changes.Limits(), Rules: cfg.Permissions,
				// The agents are read again each time VS Code lists the models.
				Config: func() (*config.File, error) { return config.Load(config.Path()) },
				AgentLog: func(name string) (io.WriteCloser, error) {
					l, err := openAgentLog(name)
					if err != nil {
						return nil, err // not a nil *logfile.File in an interface
					}
					return l, nil
				},
			})
		},
	}
	cmd.Flags().StringVar(&g.traceDir, "trace-dir", g.traceDir, "record every line in and out in a file in this directory `DIR`")
	cmd.Flags().DurationVar(&idle, "idle-timeout", 30*time.Minute, "close a conversation's agent session after this long (a `DURATION`) without activity; an agent left without sessions ends")
	cmd.Flags().IntVar(&maxConversations, "max-conversations", 256, "the most conversations kept (`N`); past it the least recently used idle one is closed")
	cmd.Flags().DurationVar(&agentTimeout, "agent-timeout", 60*time.Second, "how long (a `DURATION`) an agent may take to start, or to open or close a session, before the request fails")
	registerSandboxFlags(cmd, &sandboxMode, &sandboxWritable, &sandboxRead, &sandboxNet)
	cmd.Flags().IntVar(&spares, "spares", 2, "`N` sessions opened ahead of time (one per agent: the one you chose last, those you used or configured) so that a new chat does not wait for its agent; 0 for none")
	return cmd
}

// trace records a stream's traffic, one line per protocol message, each with its time
// and direction (recv, send, or stderr for parley's own log).
type trace struct {
	io.ReadWriteCloser
	mu      sync.Mutex
	file    *os.File
	partial map[string][]byte // an unfinished line, by direction
}

func newTrace(dir string, s io.ReadWriteCloser) (*trace, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--trace-dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("vscodelm-%s-%d.trace", time.Now().Format("20060102-150405"), os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--trace-dir: %w", err)
	}
	return &trace{ReadWriteCloser: s, file: f, partial: map[string][]byte{}}, nil
}

// record writes the complete lines of b, and keeps an unfinished one for later.
func (t *trace) record(dir string, b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	buf := append(t.partial[dir], b...)
	for {
		i := bytes.IndexByte(buf, '\n')
		if i < 0 {
			break
		}
		t.writeLine(dir, bytes.TrimSuffix(buf[:i], []byte("\r")))
		buf = buf[i+1:]
	}
	t.partial[dir] = append([]byte(nil), buf...)
}

// writeLine writes one line. t.mu is held.
func (t *trace) writeLine(dir string, line []byte) {
	if len(bytes.TrimSpace(line)) == 0 {
		return
	}
	fmt.Fprintf(t.file, "%s %s %s\n", time.Now().Format(time.RFC3339Nano), dir, line)
}

func (t *trace) Read(b []byte) (int, error) {
	n, err := t.ReadWriteCloser.Read(b)
	if n > 0 {
		t.record("recv", b[:n])
	}
	return n, err
}

func (t *trace) Write(b []byte) (int, error) {
	t.record("send", b)
	return t.ReadWriteCloser.Write(b)
}

// stderr is a writer whose lines go into the trace as "stderr".
func (t *trace) stderr() io.Writer { return traceStderr{t} }

type traceStderr struct{ t *trace }

func (w traceStderr) Write(b []byte) (int, error) {
	w.t.record("stderr", b)
	return len(b), nil
}

// finish writes what is left of unfinished lines and closes the file (not the stream:
// Serve closes that).
func (t *trace) finish() error {
	t.mu.Lock()
	defer t.mu.Unlock()
	for dir, rest := range t.partial {
		t.writeLine(dir, rest)
	}
	t.partial = map[string][]byte{}
	return t.file.Close()
}
