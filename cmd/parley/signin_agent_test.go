package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
	"golang.org/x/term"
)

// The sign-in agents: each answers session/new with auth_required until the user has
// signed in, in one of the forms an agent offers:
//
//	signin-agent     an agent method (authenticate); it signs out too (logout)
//	signin-device    an agent method that asks the user to open a page (a URL
//	                 elicitation about the authenticate request), then says it is done
//	signin-slow      an agent method whose authenticate never ends by itself: it says it
//	                 started in $HOME/authenticate-started, waits for $/cancel_request, and
//	                 says so in $HOME/authenticate-cancelled
//	signin-terminal  a terminal method: the same command with --login, which reads a code
//	                 on its terminal (offered only to a client that advertised
//	                 auth.terminal)
//	signin-legacy    the older form: an agent method whose _meta["terminal-auth"] names the
//	                 command (offered only to a client that advertised _meta["terminal-auth"])
//	signin-env       the older environment variable form: FAKE_AGENT_KEY must be
//	                 "sekrit-value" in the agent's environment
//	signin-codevar   one terminal method that sets the variable $FAKE_SIGNIN_VAR to
//	                 $HOME/login-rc.sh, a script that leaves $HOME/rc-ran: in the older
//	                 form running `bash -c 'echo signing in; true'`, or with
//	                 FAKE_SIGNIN_FORM=standard in ACP's form (the agent's command with
//	                 --login)
//
// Signing in leaves $HOME/signed-in (the methods other than signin-env), as a real agent
// keeps its credentials; logout removes it.

// signInCode is what the terminal login reads.
const signInCode = "1234"

func runSignInAgent(behaviour string, args []string) int {
	if len(args) > 0 && args[0] == "--login" {
		return terminalLogin(behaviour)
	}
	a := &signInAgent{behaviour: behaviour}
	acp.NewAgentConn(acp.Stdio(), func(conn *acp.AgentConn) acp.Agent { a.conn = conn; return a }, nil)
	<-a.conn.Done()
	return 0
}

func markerPath() string { return filepath.Join(os.Getenv("HOME"), "signed-in") }

// terminalLogin is the login program of the terminal methods: it needs a terminal, and
// the method's variable (for ACP's form).
func terminalLogin(behaviour string) int {
	if !term.IsTerminal(0) {
		fmt.Println("login: stdin is not a terminal")
		return 3
	}
	if behaviour == "signin-terminal" && os.Getenv("FAKE_LOGIN_MODE") != "tty" {
		fmt.Println("login: FAKE_LOGIN_MODE is not set")
		return 4
	}
	fmt.Print("Login code: ")
	line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
	if strings.TrimSpace(line) != signInCode {
		fmt.Println("login: wrong code")
		return 1
	}
	if err := os.WriteFile(markerPath(), []byte(behaviour), 0o600); err != nil {
		fmt.Println("login:", err)
		return 5
	}
	fmt.Println("logged in")
	return 0
}

type signInAgent struct {
	behaviour string
	conn      *acp.AgentConn
}

func (a *signInAgent) signedIn() bool {
	if a.behaviour == "signin-env" {
		return os.Getenv("FAKE_AGENT_KEY") == "sekrit-value"
	}
	_, err := os.Stat(markerPath())
	return err == nil
}

func (a *signInAgent) Initialize(ctx context.Context, req *acp.InitializeRequest) (*acp.InitializeResponse, error) {
	resp := &acp.InitializeResponse{ProtocolVersion: acp.ProtocolVersion, AgentInfo: &acp.Implementation{Name: "guarded", Version: "1"}}
	self, _ := os.Executable()
	switch a.behaviour {
	case "signin-agent", "signin-device", "signin-slow":
		resp.AuthMethods = []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{ID: "agent-login", Name: "Sign in", Description: "with your account"}}}
		resp.AgentCapabilities.Auth.Logout = &acp.LogoutCapabilities{}
	case "signin-terminal":
		if req.ClientCapabilities.Auth.Terminal {
			resp.AuthMethods = []acp.AuthMethod{{Terminal: &acp.AuthMethodTerminal{
				ID: "tui-login", Name: "Log in in a terminal", Args: []string{"--login"}, Env: map[string]string{"FAKE_LOGIN_MODE": "tty"},
			}}}
		}
	case "signin-legacy":
		if string(req.ClientCapabilities.Meta["terminal-auth"]) == "true" {
			meta := fmt.Sprintf(`{"command":%q,"args":["signin-legacy","--login"],"label":"Old-style login","env":{"PARLEY_TEST_ROLE":"fake-agent"}}`, self)
			resp.AuthMethods = []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{ID: "old-login", Name: "Old-style login", Meta: acp.Meta{"terminal-auth": []byte(meta)}}}}
		}
	case "signin-codevar":
		script := filepath.Join(os.Getenv("HOME"), "login-rc.sh")
		if err := os.WriteFile(script, []byte("echo ran > \"$HOME/rc-ran\"\n"), 0o755); err != nil {
			return nil, err
		}
		env := map[string]string{os.Getenv("FAKE_SIGNIN_VAR"): script}
		if os.Getenv("FAKE_SIGNIN_FORM") == "standard" {
			resp.AuthMethods = []acp.AuthMethod{{Terminal: &acp.AuthMethodTerminal{ID: "rc-login", Name: "Log in", Args: []string{"--login"}, Env: env}}}
			break
		}
		raw, _ := json.Marshal(map[string]any{"command": "bash", "args": []string{"-c", "echo signing in; true"}, "label": "Shell login", "env": env})
		resp.AuthMethods = []acp.AuthMethod{{Agent: &acp.AuthMethodAgent{ID: "rc-login", Name: "Shell login", Meta: acp.Meta{"terminal-auth": raw}}}}
	case "signin-env":
		resp.AuthMethods = []acp.AuthMethod{{Unknown: []byte(`{"type":"env_var","id":"api-key","name":"API key","vars":[{"name":"FAKE_AGENT_KEY","label":"Your key"}],"link":"https://example.com/keys"}`)}}
	}
	return resp, nil
}

var errAuthRequired = jsonrpc2.Errorf(acp.CodeAuthRequired, "Authentication required")

func (a *signInAgent) NewSession(ctx context.Context, req *acp.NewSessionRequest) (*acp.NewSessionResponse, error) {
	if !a.signedIn() {
		return nil, errAuthRequired
	}
	return &acp.NewSessionResponse{SessionID: "guarded-1"}, nil
}

func (a *signInAgent) Authenticate(ctx context.Context, req *acp.AuthenticateRequest) (*acp.AuthenticateResponse, error) {
	if req.MethodID != "agent-login" {
		return nil, acp.ErrInvalidParams("no method %s", req.MethodID)
	}
	switch a.behaviour {
	case "signin-device":
		el := &acp.CreateElicitationRequest{Message: "Open this page and enter the code WXYZ", Mode: acp.ElicitationModeURL}
		el.URL, el.ElicitationID, el.RequestID = "https://xn--exmple-cua.com/device?code=WXYZ", "device-1", []byte("1")
		resp, err := a.conn.CreateElicitation(ctx, el)
		if err != nil {
			return nil, err
		}
		if resp.Action != acp.ElicitationActionAccept {
			return nil, fmt.Errorf("sign-in %s", resp.Action)
		}
		defer a.conn.CompleteElicitation(ctx, &acp.CompleteElicitationNotification{ElicitationID: "device-1"})
	case "signin-slow":
		os.WriteFile(filepath.Join(os.Getenv("HOME"), "authenticate-started"), []byte("started"), 0o600)
		<-ctx.Done()
		os.WriteFile(filepath.Join(os.Getenv("HOME"), "authenticate-cancelled"), []byte(context.Cause(ctx).Error()), 0o600)
		return nil, ctx.Err()
	}
	if err := os.WriteFile(markerPath(), []byte(a.behaviour), 0o600); err != nil {
		return nil, err
	}
	return &acp.AuthenticateResponse{}, nil
}

func (a *signInAgent) Logout(ctx context.Context, req *acp.LogoutRequest) (*acp.LogoutResponse, error) {
	if err := os.Remove(markerPath()); err != nil && !errors.Is(err, os.ErrNotExist) {
		return nil, err
	}
	return &acp.LogoutResponse{}, nil
}

func (a *signInAgent) Prompt(ctx context.Context, req *acp.PromptRequest) (*acp.PromptResponse, error) {
	if !a.signedIn() {
		return nil, errAuthRequired
	}
	a.conn.Update(ctx, req.SessionID, acp.AgentMessageChunk(acp.TextBlock("you are signed in")))
	return &acp.PromptResponse{StopReason: acp.StopReasonEndTurn}, nil
}

func (a *signInAgent) Cancel(ctx context.Context, req *acp.CancelNotification) error { return nil }
