package cli

import (
	"errors"
	"fmt"
	"strings"

	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/parley-acp/parley/internal/safety"
)

// How parley run says an agent needs a sign-in, and the parley login command that signs in.

// exitSignIn is parley run's exit status when the agent needs the user to sign in.
const exitSignIn = 6

// loginCommand is the parley login command line that signs in to the agent of opts with
// method.
func loginCommand(opts sessionOptions, method string) string {
	argv := []string{"parley", "login"}
	if opts.agentCommand != "" {
		argv = append(argv, "--agent-command", opts.agentCommand)
	} else {
		argv = append(argv, "--agent", opts.agentName)
	}
	if opts.cwdFlag != "" {
		argv = append(argv, "--cwd", opts.cwdFlag)
	}
	return safety.JoinArgv(append(argv, "--method", method))
}

// signInNeeded is parley run's message when the agent needs a sign-in: the agent, its
// methods, and the command that signs in with each.
func signInNeeded(opts sessionOptions, ae *conversation.AuthRequiredError) error {
	var b strings.Builder
	fmt.Fprintf(&b, "%v.\nparley run does not sign in by itself.", ae)
	if len(ae.Methods) == 0 {
		b.WriteString(" The agent offers no sign-in method parley can use: sign in with the agent's own tools.")
		return &exitError{code: exitSignIn, err: errors.New(b.String())}
	}
	b.WriteString(" Its methods:\n")
	b.WriteString(strings.Join(linechat.MethodLines(ae.Methods, false), "\n"))
	var usable []conversation.AuthMethod
	for _, m := range ae.Methods {
		if m.Refused == "" {
			usable = append(usable, m)
		}
	}
	if len(usable) == 0 {
		b.WriteString("\nparley refuses each of them: sign in with the agent's own tools.")
		return &exitError{code: exitSignIn, err: errors.New(b.String())}
	}
	b.WriteString("\nTo sign in, run one of:")
	for _, m := range usable {
		fmt.Fprintf(&b, "\n  %s", loginCommand(opts, string(m.ID)))
		if m.Kind == conversation.AuthEnvVar {
			var names []string
			for _, v := range m.Vars {
				names = append(names, v.Name)
			}
			fmt.Fprintf(&b, "   (after setting %s)", strings.Join(names, ", "))
		}
	}
	return &exitError{code: exitSignIn, err: errors.New(b.String())}
}
