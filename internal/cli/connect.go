package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/remote"
	"github.com/spf13/cobra"
)

// connectFlags are --connect and --tls-ca, of parley acp and parley chat.
type connectFlags struct {
	url, caFile string
}

func (f *connectFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.url, "connect", "", "use the agents of the parley server at `URL` (the address parley web printed, http(s)://HOST:PORT[/PREFIX]/?token=…; the token may come in $PARLEY_TOKEN instead, which ps does not show); the agents run there, on its files")
	cmd.Flags().StringVar(&f.caFile, "tls-ca", "", "with --connect https://…: trust the server's certificate if this PEM `FILE` of CA certificates signs it (on Linux, $SSL_CERT_FILE also works)")
}

func (f *connectFlags) options() remote.Options {
	return remote.Options{Token: os.Getenv(remote.TokenEnv), CAFile: f.caFile}
}

// localOnly refuses, with --connect, the flags that say how to run an agent here: the
// server runs its agents, with its own workspace, confinement and rules.
func (f *connectFlags) localOnly(cmd *cobra.Command, allowed ...string) error {
	if f.url == "" {
		if f.caFile != "" {
			return &exitError{code: exitUsage, err: errors.New("--tls-ca is for --connect")}
		}
		return nil
	}
	for _, name := range agentFlagNames {
		if cmd.Flags().Changed(name) && !slices.Contains(allowed, name) {
			return &exitError{code: exitUsage, err: fmt.Errorf("--%s is not for --connect: the server runs its agents, in its workspace, confined and judged by its own settings", name)}
		}
	}
	return nil
}

// agentFlagNames are agentFlags' flags (run.go, registerSandboxFlags) and parley acp's
// --agent-servers.
var agentFlagNames = []string{"agent", "agent-command", "cwd", "yolo", "add-dir", "agent-timeout", "agent-servers",
	"sandbox", "sandbox-write", "sandbox-read", "sandbox-net"}

// remoteChat is what parley chat --connect knows of its server: where it is, and the
// server's session to attach to (--session; "" for a new one).
type remoteChat struct {
	flags   *connectFlags
	session string
}

// startRemoteSession is startSession for parley chat --connect: the conversation core
// here, its agent the server (conversation.AgentOptions.Dial over internal/remote). No
// sandbox, record of changes or remembered decision here: the server confines its
// agents, records their changes and judges their requests, and asks (its
// session/request_permission) only what a person must answer, so the local policy,
// with no rule, store or --yolo, asks every one of them.
func startRemoteSession(g *globals, opts sessionOptions, interactive bool) (*session, error) {
	rc := opts.remote
	dial := func(ctx context.Context) (io.ReadWriteCloser, error) {
		c, err := remote.Dial(ctx, rc.flags.url, rc.flags.options())
		if err != nil {
			return nil, err
		}
		return c.Stream(), nil
	}
	agent := conversation.NewAgent(conversation.AgentOptions{
		Name: opts.agentName, Timeout: opts.agentTimeout, Logger: g.logger,
		ElicitForms: true, ElicitURLs: interactive, Dial: dial,
	})
	home, _ := os.UserHomeDir()
	policy := &permission.Policy{Agent: opts.agentName, Workspace: opts.dir, Roots: opts.roots.Dirs(), Home: home}
	conv := conversation.New(conversation.Options{
		Agent: agent, Roots: opts.roots, Policy: policy,
		Interactive: interactive, Elicit: interactive, Load: acp.SessionID(rc.session),
	})
	return &session{agent: agent, conv: conv, remote: true}, nil
}

// remoteSessionOptions are parley chat --connect's session options: the server's
// address names the agent; the directory here is only where @ finds files to attach.
func remoteSessionOptions(cf *connectFlags, sessionID string) (sessionOptions, error) {
	target, err := remote.ParseAddress(cf.url, os.Getenv(remote.TokenEnv))
	if err != nil {
		return sessionOptions{}, err
	}
	roots, err := workspaceRoots("")
	if err != nil {
		return sessionOptions{}, err
	}
	return sessionOptions{
		agentName: "parley at " + target.Show, roots: roots, dir: roots.Dirs()[0],
		agentTimeout: defaultAgentTimeout(), elicit: true,
		remote: &remoteChat{flags: cf, session: sessionID},
	}, nil
}
