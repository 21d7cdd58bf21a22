package cli

import (
	"context"
	"fmt"
	"os"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/acpserver"
	"github.com/parley-acp/parley/internal/agentproc"
	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/logfile"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/sandbox"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
	"github.com/spf13/cobra"
)

// launcher is what parley web and parley acp know of the agents: the catalog (built-ins,
// installed, configured), an --agent-command, the user's permission rules and remembered
// decisions, the agents' log files and the terminals' sandbox. One per process.
type launcher struct {
	g            *globals
	catalog      *catalog.Catalog
	custom       map[string]agentproc.Spec // --agent-command, under its command line
	rules        []permission.Rule
	changeLimits changes.Limits
	yolo         bool
	timeout      time.Duration
	store        *store.Store
	storeErr     error
	box          *sandbox.Policy
	cleanup      func()
	cfg          *config.File
	flags        *agentFlags // --sandbox and the rest, for each agent's confinement

	mu   sync.Mutex
	logs map[string]*logfile.File
	said map[string]bool // the agents whose confinement was logged
}

// newLauncher reads the configuration and prepares what every agent start shares; extra
// agents (parley acp's --agent-servers) win over the file's of the same name. The
// default agent is --agent-command's (named by its command line) or --agent's.
func newLauncher(g *globals, cmd *cobra.Command, f *agentFlags, extra map[string]config.AgentServer) (*launcher, string, error) {
	cfg, err := config.Load(config.Path())
	if err != nil {
		return nil, "", err
	}
	if len(extra) > 0 && cfg.AgentServers == nil {
		cfg.AgentServers = map[string]config.AgentServer{}
	}
	for name, a := range extra {
		cfg.AgentServers[name] = a
	}
	if f.timeout <= 0 {
		return nil, "", fmt.Errorf("--agent-timeout must be positive")
	}
	l := &launcher{g: g, catalog: catalog.New(cfg), custom: map[string]agentproc.Spec{}, rules: cfg.Permissions, changeLimits: cfg.Changes.Limits(), yolo: f.yolo, timeout: f.timeout, logs: map[string]*logfile.File{},
		cfg: cfg, flags: f, said: map[string]bool{}}
	name := f.name
	switch {
	case f.command != "" && cmd.Flags().Changed("agent"):
		return nil, "", fmt.Errorf("give either --agent or --agent-command, not both")
	case f.command != "":
		spec, err := catalog.ParseCommand(f.command)
		if err != nil {
			return nil, "", err
		}
		name = spec.String()
		l.custom[name] = spec
	default:
		if _, err := l.catalog.Lookup(name); err != nil {
			return nil, "", err
		}
	}
	if l.box, l.cleanup, err = commandSandbox(f.sandboxMode, f.sandboxWritable, "parley-terminal-"); err != nil {
		return nil, "", err
	}
	if _, err := confineAgent(l.confineRequest(name, agentproc.Spec{}, nil)); err != nil {
		return nil, "", err // a bad --sandbox or --sandbox-net, said at once
	}
	l.store, l.storeErr = store.Open(store.DefaultPath())
	if l.storeErr != nil {
		g.logger.Warn("remembered permission decisions cannot be read, so none is used and --yolo allows nothing unasked", "error", l.storeErr)
	}
	return l, name, nil
}

func (l *launcher) AgentOptions(name string, roots *workspace.Roots) (conversation.AgentOptions, error) {
	spec, custom := l.custom[name]
	var fetch *catalog.Fetch
	if !custom {
		a, err := l.catalog.Lookup(name)
		if err != nil {
			return conversation.AgentOptions{}, err
		}
		spec, fetch = a.Spec, a.Fetch
	} else {
		fetch = catalog.FetchOf(spec.Command, spec.Args)
	}
	dir := roots.Dirs()[0]
	spec.Dir = dir
	confined, err := confineAgent(l.confineRequest(name, spec, roots.Dirs()))
	if err != nil {
		return conversation.AgentOptions{}, err
	}
	spec.Sandbox = confined.spec
	l.sayConfinement(name, confined)
	// The page answers form and URL elicitations; a terminal sign-in is run with
	// `parley login` (the page says so), as in every other view.
	opts := conversation.AgentOptions{
		Name: name, Spec: spec, Timeout: l.timeout, Sandbox: l.box, Logger: l.g.logger,
		TerminalAuth: true, ElicitForms: true, ElicitURLs: true,
	}
	if fetch.NeedsDownload(dir) {
		opts.Start.Download = fetch.String()
		opts.Start.DownloadTimeout = downloadTimeout()
	}
	if log := l.log(name); log != nil {
		opts.Stderr, opts.LogName = log, log.Name()
	}
	return opts, nil
}

func (l *launcher) confineRequest(name string, spec agentproc.Spec, roots []string) confineRequest {
	f := l.flags
	return confineRequest{mode: f.sandboxMode, name: name, spec: spec, roots: roots, cfg: l.cfg,
		write: f.sandboxWritable, read: f.sandboxRead, net: f.sandboxNet}
}

// sayConfinement logs, the first time an agent starts, how it is confined.
func (l *launcher) sayConfinement(name string, c confinement) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.said[name] {
		return
	}
	l.said[name] = true
	if c.describe != "" {
		l.g.logger.Info(c.describe)
	}
	for _, w := range c.warnings {
		l.g.logger.Warn(w)
	}
}

// log is the agent's stderr log, opened once per agent and shared by its processes.
func (l *launcher) log(name string) *logfile.File {
	l.mu.Lock()
	defer l.mu.Unlock()
	if f, ok := l.logs[name]; ok {
		return f
	}
	f, err := openAgentLog(name)
	if err != nil {
		l.g.logger.Warn("the agent's stderr is not logged", "agent", name, "error", err)
	}
	l.logs[name] = f
	return f
}

func (l *launcher) Policy(name string, roots *workspace.Roots) *permission.Policy {
	home, _ := os.UserHomeDir()
	// Confined as the agent will be (listing: no state directories made here).
	req := l.confineRequest(name, agentproc.Spec{}, roots.Dirs())
	req.listing = true
	confined, err := confineAgent(req)
	return &permission.Policy{
		Store: l.store, StoreErr: l.storeErr, Agent: name, Workspace: roots.Dirs()[0], Roots: roots.Dirs(), Home: home,
		Yolo: l.yolo, Rules: l.rules, Confined: err == nil && confined.spec != nil && l.box != nil,
	}
}

func (l *launcher) Changes(name string, roots *workspace.Roots) *changes.Record {
	if l.store == nil || l.changeLimits.Off {
		return nil
	}
	rec, err := changes.NewLog(l.store, l.changeLimits).Conversation(context.Background(), roots, name)
	if err != nil {
		l.g.logger.Warn("the agent's changes will not be recorded", "agent", name, "error", err)
		return nil
	}
	return rec
}

func (l *launcher) Agents() []acpserver.AgentEntry {
	var out []acpserver.AgentEntry
	for name := range l.custom {
		out = append(out, acpserver.AgentEntry{Name: name, Source: "--agent-command"})
	}
	cwd, _ := os.Getwd() // where npx would find a package installed locally, as for `parley agents`
	for _, a := range l.catalog.All() {
		out = append(out, acpserver.AgentEntry{Name: a.Name, Source: a.Source, NotRunnable: a.NotRunnable, Availability: agentAvailability(context.Background(), a, cwd), About: catalog.About(a.Name), SignIn: a.SignIn()})
	}
	return out
}

// close releases what the agents shared; their processes have ended first.
func (l *launcher) close() {
	if l.store != nil {
		l.store.Close()
	}
	for _, f := range l.logs {
		if f != nil {
			f.Close()
		}
	}
	if l.cleanup != nil {
		l.cleanup()
	}
}

// newACPServer makes the server parley web and parley acp serve; idle is its
// Options.IdleTimeout, extra the agents added to the configuration's.
func newACPServer(g *globals, cmd *cobra.Command, f *agentFlags, idle time.Duration, extra map[string]config.AgentServer) (*acpserver.Server, *launcher, error) {
	l, name, err := newLauncher(g, cmd, f, extra)
	if err != nil {
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	roots, err := workspaceRoots(f.cwd)
	if err != nil {
		l.close()
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	srv, err := acpserver.New(acpserver.Options{Launcher: l, DefaultAgent: name, Workspace: roots.Dirs()[0], Logger: g.logger, IdleTimeout: idle, Store: l.store})
	if err != nil {
		l.close()
		return nil, nil, &exitError{code: exitUsage, err: err}
	}
	return srv, l, nil
}
