package conversation

import (
	"context"
	"errors"
	"fmt"
	"github.com/parley-acp/parley/internal/agentproc"
	"os"
	"os/exec"
	"slices"
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// Sign-in. An agent lists its methods in initialize; an operation that needs the user
// signed in fails with auth_required (-32000), which the conversation reports as
// SignInRequired with those methods. SignIn carries one out, by its kind:
//
//   - agent: authenticate with its id (the agent signs in itself, often through a web page
//     it opens or an elicitation);
//   - terminal: the agent's own command again, with the method's arguments appended and
//     its variables added (or, in an older form, a command the agent names), run
//     interactively where the user can type (the view's RunTerminal) once the user has
//     seen the whole of it and said yes (auth_run.go); exit status 0 is success, and the
//     agent is then started again;
//   - environment variables (an older form agents still send): the agent is started
//     again with the variables set.
//
// Then the session is opened again. Nothing here prints or logs a variable's value.

// AuthKind is how a sign-in method is carried out.
type AuthKind string

const (
	AuthAgent    AuthKind = "agent"    // authenticate: the agent signs the user in itself
	AuthTerminal AuthKind = "terminal" // a program the user runs in a terminal
	AuthEnvVar   AuthKind = "env_var"  // variables the agent reads when it starts
)

// AuthMethod is a sign-in method the agent offers, as a view shows it.
type AuthMethod struct {
	ID          acp.AuthMethodID
	Name        string
	Description string
	Kind        AuthKind
	// Command is, for a terminal method, the command line the sign-in runs, and EnvNames
	// the variables it adds; Run is the whole of what runs, values and all, which a view
	// shows before it asks (TerminalRun.Lines).
	Command  []string
	EnvNames []string
	Run      *TerminalRun
	// Vars are, for an environment variable method, the variables to set; Link is where
	// to get their values, if the agent said.
	Vars []AuthVar
	Link string
	// Refused says why parley will not carry the method out ("" when it will): it sets a
	// variable that makes programs run code (safety.CodeVariable). SignIn refuses it.
	Refused string
}

// AuthVar is a variable an environment variable method needs.
type AuthVar struct {
	Name     string
	Label    string
	Secret   bool // the value must not be shown (the default)
	Optional bool
}

// AuthRequiredError is an agent's auth_required answer: the user must sign in before it
// does what it was asked (During: the ACP method).
type AuthRequiredError struct {
	Agent   string
	During  string
	Methods []AuthMethod
	Err     error
}

func (e *AuthRequiredError) Error() string {
	return fmt.Sprintf("%s needs you to sign in (it answered %s with %q)", e.Agent, e.During, errorMessage(e.Err))
}

func (e *AuthRequiredError) Unwrap() error { return e.Err }

func errorMessage(err error) string {
	if e, ok := errors.AsType[*acp.Error](err); ok {
		return e.Message
	}
	return err.Error()
}

func isAuthRequired(err error) bool {
	e, ok := errors.AsType[*acp.Error](err)
	return ok && e.Code == acp.CodeAuthRequired
}

// SignInRequired: the agent answered auth_required; the user must sign in with one of
// Methods (SignIn) before it opens a session (or does what During names).
type SignInRequired struct {
	Agent   string
	During  string
	Methods []AuthMethod
}

// SigningIn: SignIn has started with Method; SignInEnded follows.
type SigningIn struct {
	Method AuthMethod
}

// SignInEnded: the sign-in with Method is over; Err says why it failed. After a success
// the session is opened again (Starting, then Ready or SignInRequired).
type SignInEnded struct {
	Method AuthMethod
	Err    error
}

func (SignInRequired) event() {}
func (SigningIn) event()      {}
func (SignInEnded) event()    {}

// authMethods turns initialize's methods into parley's, in the agent's order: ACP's
// forms, the older _meta["terminal-auth"] form (a method naming its own command) and the
// older environment variable form. A method of any other kind is left out: parley cannot
// carry it out.
func authMethods(spec []string, dir string, methods []acp.AuthMethod) []AuthMethod {
	var out []AuthMethod
	seen := map[acp.AuthMethodID]bool{}
	add := func(m AuthMethod) {
		if m.ID == "" || seen[m.ID] {
			return
		}
		seen[m.ID] = true
		if m.Name == "" {
			m.Name = string(m.ID)
		}
		out = append(out, m)
	}
	// A method in ACP's terminal form wins over another of the same id (the older form
	// of the same method).
	standard := map[acp.AuthMethodID]bool{}
	for _, m := range methods {
		if m.Terminal != nil {
			standard[m.Terminal.ID] = true
		}
	}
	for _, m := range methods {
		switch {
		case m.Terminal != nil:
			t := m.Terminal
			run := terminalRun(spec[0], append(slices.Clone(spec[1:]), t.Args...), t.Env, dir, false)
			add(AuthMethod{
				ID: t.ID, Name: t.Name, Description: t.Description, Kind: AuthTerminal,
				Command: append(slices.Clone(spec), t.Args...), EnvNames: sortedKeys(t.Env),
				Run: &run, Refused: refusedEnv(sortedKeys(t.Env)),
			})
		case m.Agent != nil && !standard[m.Agent.ID]:
			if legacy, ok := legacyTerminal(m.Agent, dir); ok {
				add(legacy)
			} else {
				add(AuthMethod{ID: m.Agent.ID, Name: m.Agent.Name, Description: m.Agent.Description, Kind: AuthAgent})
			}
		case m.Unknown != nil && m.Kind() == string(AuthEnvVar):
			if env, ok := envVarMethod(m.Unknown); ok && !standard[env.ID] {
				add(env)
			}
		}
	}
	return out
}

// legacyTerminal reads the older terminal form: an agent method whose
// _meta["terminal-auth"] names a command to run.
func legacyTerminal(m *acp.AuthMethodAgent, dir string) (AuthMethod, bool) {
	raw, ok := m.Meta["terminal-auth"]
	if !ok {
		return AuthMethod{}, false
	}
	var ta struct {
		Command string            `json:"command"`
		Args    []string          `json:"args"`
		Label   string            `json:"label"`
		Env     map[string]string `json:"env"`
	}
	if json.Unmarshal(raw, &ta) != nil || ta.Command == "" {
		return AuthMethod{}, false
	}
	name := m.Name
	if name == "" {
		name = ta.Label
	}
	run := terminalRun(ta.Command, ta.Args, ta.Env, dir, true)
	return AuthMethod{
		ID: m.ID, Name: name, Description: m.Description, Kind: AuthTerminal,
		Command: append([]string{ta.Command}, ta.Args...), EnvNames: sortedKeys(ta.Env),
		Run: &run, Refused: refusedEnv(sortedKeys(ta.Env)),
	}, true
}

// envVarMethod reads the older environment variable form.
func envVarMethod(raw json.RawMessage) (AuthMethod, bool) {
	var m struct {
		ID          acp.AuthMethodID `json:"id"`
		Name        string           `json:"name"`
		Description string           `json:"description"`
		Link        string           `json:"link"`
		Vars        []struct {
			Name     string `json:"name"`
			Label    string `json:"label"`
			Secret   *bool  `json:"secret"`
			Optional bool   `json:"optional"`
		} `json:"vars"`
	}
	if json.Unmarshal(raw, &m) != nil || len(m.Vars) == 0 {
		return AuthMethod{}, false
	}
	out := AuthMethod{ID: m.ID, Name: m.Name, Description: m.Description, Kind: AuthEnvVar, Link: m.Link}
	var names []string
	for _, v := range m.Vars {
		if !validEnvName(v.Name) {
			return AuthMethod{}, false
		}
		out.Vars = append(out.Vars, AuthVar{Name: v.Name, Label: v.Label, Secret: v.Secret == nil || *v.Secret, Optional: v.Optional})
		names = append(names, v.Name)
	}
	out.Refused = refusedEnv(names)
	return out, true
}

// validEnvName refuses names that would not be one variable (a "=" or a NUL).
func validEnvName(name string) bool {
	return name != "" && !strings.ContainsAny(name, "=\x00")
}

func sortedKeys(m map[string]string) []string {
	var keys []string
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}

// methodsOf is proc's sign-in methods.
func (a *Agent) methodsOf(p *agentproc.Server) []AuthMethod {
	if p == nil || p.Info == nil {
		return nil
	}
	return authMethods(a.specLine(), a.opts.Spec.Dir, p.Info.AuthMethods)
}

// specLine is the agent's command line as a list.
func (a *Agent) specLine() []string {
	return append([]string{a.opts.Spec.Command}, a.opts.Spec.Args...)
}

// SignInOptions say how a view carries out what SignIn cannot do alone.
type SignInOptions struct {
	// RunTerminal runs a terminal method's program where the user can use it (the
	// terminal parley runs in), and returns once it has ended: nil for exit status 0.
	// Without it, a terminal method fails.
	RunTerminal func(ctx context.Context, cmd *exec.Cmd) error
	// Approved is, for a terminal method, what the user was shown (the method's Run,
	// through TerminalRun.Lines) and said yes to. The method runs only when it is what
	// runs now: else SignIn fails with ErrNotApproved.
	Approved *TerminalRun
	// Vars are values for an environment variable method's variables; those not given
	// are taken from parley's environment.
	Vars map[string]string
}

// signInTimeout bounds a sign-in: a person may take minutes on a web page, but an agent
// that never answers authenticate must not hold the conversation for ever.
const signInTimeout = 15 * time.Minute

// ErrNoTerminal is SignIn's error for a terminal method when the view has no terminal.
var ErrNoTerminal = errors.New("this sign-in runs a program in a terminal, and there is none here: run `parley login` in a terminal")

// SignIn starts signing in with the agent's method id, and returns at once: the
// conversation reports how it goes (SigningIn, then SignInEnded) and, once signed in,
// opens its session again. An error here means it did not start (an unknown method, a
// sign-in or turn already running). A terminal or environment variable sign-in starts
// the agent again: its other conversations, if any, lose their sessions.
func (c *Conversation) SignIn(id acp.AuthMethodID, opts SignInOptions) error {
	reply := make(chan error, 1)
	err, closed := roundTrip(context.Background(), c, signInMsg{id: id, opts: opts, reply: reply}, reply)
	if closed != nil {
		return closed
	}
	return err
}

// CancelSignIn gives up the sign-in under way, if any (its authenticate request is
// cancelled, its terminal program ended).
func (c *Conversation) CancelSignIn() { c.post(cancelSignInMsg{}) }

// Methods returns the sign-in methods the agent offered when it last started (nil
// before it has).
func (a *Agent) Methods() []AuthMethod {
	a.mu.Lock()
	p := a.proc
	a.mu.Unlock()
	return a.methodsOf(p)
}

type signInMsg struct {
	id    acp.AuthMethodID
	opts  SignInOptions
	reply chan error
}

func (m signInMsg) handle(c *Conversation) {
	switch {
	case c.st.closed:
		m.reply <- ErrClosed
		return
	case c.st.signIn != nil:
		m.reply <- errors.New("a sign-in is under way already")
		return
	case c.st.starting:
		m.reply <- errors.New("the agent is still starting")
		return
	case c.st.turn != nil:
		m.reply <- errors.New("a turn is running: cancel it first")
		return
	}
	method, ok := c.findMethod(m.id)
	if !ok {
		m.reply <- c.unknownMethod(m.id)
		return
	}
	if method.Refused != "" {
		m.reply <- fmt.Errorf("parley will not sign in with %s: %s", method.ID, method.Refused)
		return
	}
	if method.Kind == AuthTerminal {
		switch {
		case m.opts.RunTerminal == nil:
			m.reply <- ErrNoTerminal
			return
		case method.Run == nil || m.opts.Approved == nil || !method.Run.equal(*m.opts.Approved):
			m.reply <- ErrNotApproved
			return
		}
	}
	ctx, cancel := context.WithTimeout(c.ctx, signInTimeout)
	c.st.signIn, c.st.signInWith = cancel, &method
	c.emit(SigningIn{Method: method})
	m.reply <- nil
	proc := c.st.proc
	c.goHelper(func() {
		err := c.agent.signIn(ctx, c, proc, method, m.opts)
		cancel()
		c.post(signedInMsg{method: method, err: err})
	})
}

// findMethod looks the method up among those the agent last offered.
func (c *Conversation) findMethod(id acp.AuthMethodID) (AuthMethod, bool) {
	for _, m := range c.methods() {
		if m.ID == id {
			return m, true
		}
	}
	return AuthMethod{}, false
}

func (c *Conversation) methods() []AuthMethod {
	if c.st.proc != nil {
		return c.agent.methodsOf(c.st.proc)
	}
	return c.agent.Methods()
}

func (c *Conversation) unknownMethod(id acp.AuthMethodID) error {
	var ids []string
	for _, m := range c.methods() {
		ids = append(ids, string(m.ID))
	}
	if len(ids) == 0 {
		return fmt.Errorf("%s offers no sign-in method parley can use", c.agent.Name())
	}
	return fmt.Errorf("%s has no sign-in method %q; it offers: %s", c.agent.Name(), id, strings.Join(ids, ", "))
}

type cancelSignInMsg struct{}

func (cancelSignInMsg) handle(c *Conversation) {
	if c.st.signIn != nil {
		c.st.signIn()
	}
}

type signedInMsg struct {
	method AuthMethod
	err    error
}

func (m signedInMsg) handle(c *Conversation) {
	c.helperDone()
	c.st.signIn, c.st.signInWith = nil, nil
	if m.err == nil {
		c.st.wantSignIn = nil
	}
	c.emit(SignInEnded{Method: m.method, Err: m.err})
	if m.err != nil || c.st.closed {
		return
	}
	// An agent method signs in the running process: a session it opened stays. The
	// others started the agent again: the session is opened again, on the new process
	// (not reported as a restart: the views know why).
	if m.method.Kind != AuthAgent && c.st.proc != nil {
		c.agent.detach(c.st.session.ID, c)
		c.st.proc = nil
	}
	if c.st.proc == nil || exited(c.st.proc) || c.st.start != nil {
		c.startSession()
	}
}

// signIn carries the method out; it runs on a helper goroutine of c's.
func (a *Agent) signIn(ctx context.Context, c *Conversation, proc *agentproc.Server, m AuthMethod, opts SignInOptions) error {
	switch m.Kind {
	case AuthAgent:
		if proc == nil || exited(proc) {
			p, _, err := a.running(ctx)
			if err != nil {
				return err
			}
			proc = p
		}
		a.mu.Lock()
		a.signingIn = c
		a.mu.Unlock()
		defer func() {
			a.mu.Lock()
			if a.signingIn == c {
				a.signingIn = nil
			}
			a.mu.Unlock()
		}()
		if _, err := proc.Conn.Authenticate(ctx, &acp.AuthenticateRequest{MethodID: m.ID}); err != nil {
			if errors.Is(err, context.DeadlineExceeded) {
				return fmt.Errorf("%s did not finish signing in within %v", a.opts.Name, signInTimeout)
			}
			return proc.Explain(fmt.Errorf("signing in with %s: %w", m.ID, err))
		}
		return nil
	case AuthTerminal:
		cmd := a.loginCommand(m)
		if err := opts.RunTerminal(ctx, cmd); err != nil {
			return fmt.Errorf("the sign-in program (%s) failed: %w", m.Run.Line(), err)
		}
		a.restart()
		return nil
	case AuthEnvVar:
		env, err := envFor(m, opts.Vars, a.opts.Spec.Env)
		if err != nil {
			return err
		}
		a.mu.Lock()
		a.authEnv = env
		a.mu.Unlock()
		a.restart()
		return nil
	}
	return fmt.Errorf("parley cannot sign in with %q", m.ID)
}

// loginCommand is the program a terminal method runs: its Run (the agent's command with
// the method's arguments appended and its variables added, or the command an older agent
// named), with the agent's configured variables under them, and parley's stdin, stdout
// and stderr. Unlike the agent, it runs in the user's terminal: the user is there to
// sign in, and said yes to it.
func (a *Agent) loginCommand(m AuthMethod) *exec.Cmd {
	a.mu.Lock()
	base := append(slices.Clone(a.opts.Spec.Env), a.authEnv...)
	a.mu.Unlock()
	return m.Run.command(base)
}

// envFor is the variables an environment variable method starts the agent with: each
// from vars, else from the agent's configured environment or parley's own. A required one
// that is nowhere is an error naming it (never its value).
func envFor(m AuthMethod, vars map[string]string, specEnv []string) ([]string, error) {
	var env, missing []string
	for _, v := range m.Vars {
		value, ok := vars[v.Name]
		if !ok {
			value, ok = lookupEnv(specEnv, v.Name)
		}
		if !ok {
			value, ok = os.LookupEnv(v.Name)
		}
		switch {
		case ok && value != "":
			env = append(env, v.Name+"="+value)
		case !v.Optional:
			missing = append(missing, v.Name)
		}
	}
	if len(missing) > 0 {
		return nil, fmt.Errorf("set %s (in your environment, or in the agent's \"env\" in config.json) and sign in again", strings.Join(missing, ", "))
	}
	return env, nil
}

func lookupEnv(env []string, name string) (string, bool) {
	for i := len(env) - 1; i >= 0; i-- {
		if k, v, ok := strings.Cut(env[i], "="); ok && k == name {
			return v, true
		}
	}
	return "", false
}

// restart ends the agent process, so that the next conversation that needs it starts it
// again (with what the sign-in changed).
func (a *Agent) restart() {
	a.mu.Lock()
	p := a.proc
	a.mu.Unlock()
	if p != nil {
		p.Close()
	}
}

// ErrNoLogout: the agent cannot sign out through ACP.
var ErrNoLogout = errors.New("the agent does not offer to sign out (it does not advertise auth.logout); sign out with the agent's own tools")

// Logout signs the user out of the agent (logout), starting the agent if it is not
// running.
func (a *Agent) Logout(ctx context.Context) error {
	p, _, err := a.running(ctx)
	if err != nil {
		return err
	}
	if p.Info.AgentCapabilities.Auth.Logout == nil {
		return fmt.Errorf("%s: %w", a.opts.Name, ErrNoLogout)
	}
	return a.call(ctx, p, acp.MethodLogout, func(ctx context.Context, conn *acp.ClientConn) error {
		_, err := conn.Logout(ctx, &acp.LogoutRequest{})
		return err
	})
}

// Start starts the agent (initialize) if it is not running, for a view that needs what
// it says about itself before any session: its sign-in methods, say.
func (a *Agent) Start(ctx context.Context) (AgentInfo, error) {
	p, _, err := a.running(ctx)
	if err != nil {
		return AgentInfo{}, err
	}
	return a.info(p), nil
}

// noteAuth tells the views when err is the agent asking for a sign-in.
func (c *Conversation) noteAuth(err error) {
	if ae, ok := errors.AsType[*AuthRequiredError](err); ok {
		ev := SignInRequired{Agent: ae.Agent, During: ae.During, Methods: ae.Methods}
		c.st.wantSignIn = &ev
		c.emit(ev)
	}
}
