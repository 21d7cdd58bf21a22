package cli

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/version"
	"github.com/parley-acp/parley/internal/vscodelm"
	"github.com/spf13/cobra"
)

func newVSCodeLMCommand(g *globals) *cobra.Command {
	var idle time.Duration
	var maxConversations int
	cmd := &cobra.Command{
		Use:   "vscodelm",
		Short: "Serve ACP agents as VS Code language models (the backend of parley's VS Code extension)",
		Long: `Serve ACP agents as VS Code language models: the stdio JSON-RPC backend of parley's VS Code
extension (lm/provideLanguageModelChatResponse, lm/cancel, lm/provideTokenCount,
lm/provideLanguageModelChatInformation). Each VS Code conversation becomes an ACP session;
VS Code's tools reach the agent through an MCP server named vscode_tools, and the agent's
permission requests come back as calls of the parley-agent-action tool.

--trace-dir DIR records every line in and out, with a timestamp, in DIR.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var stream io.ReadWriteCloser = commandStdio(cmd)
			if g.traceDir != "" {
				t, err := newTrace(g.traceDir, stream)
				if err != nil {
					return &exitError{code: exitUsage, err: err}
				}
				defer t.file.Close()
				stream = t
			}
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return vscodelm.Serve(ctx, stream, vscodelm.Options{Logger: g.logger, Version: version.String(), IdleTimeout: idle, MaxConversations: maxConversations})
		},
	}
	cmd.Flags().StringVar(&g.traceDir, "trace-dir", g.traceDir, "record every line in and out in a file in this directory")
	cmd.Flags().DurationVar(&idle, "idle-timeout", 30*time.Minute, "close a conversation's agent session after this long without activity; an agent left without sessions ends")
	cmd.Flags().IntVar(&maxConversations, "max-conversations", 256, "the most conversations kept; past it the least recently used idle one is closed")
	return cmd
}

// trace records a stream's traffic, one timestamped line per chunk and direction.
type trace struct {
	io.ReadWriteCloser
	mu   sync.Mutex
	file *os.File
}

func newTrace(dir string, s io.ReadWriteCloser) (*trace, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("--trace-dir: %w", err)
	}
	f, err := os.OpenFile(filepath.Join(dir, fmt.Sprintf("vscodelm-%s-%d.trace", time.Now().Format("20060102-150405"), os.Getpid())), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return nil, fmt.Errorf("--trace-dir: %w", err)
	}
	return &trace{ReadWriteCloser: s, file: f}, nil
}

func (t *trace) record(dir string, b []byte) {
	t.mu.Lock()
	defer t.mu.Unlock()
	fmt.Fprintf(t.file, "%s %s %s", time.Now().Format(time.RFC3339Nano), dir, b)
	if len(b) > 0 && b[len(b)-1] != '\n' {
		t.file.WriteString("\n")
	}
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
