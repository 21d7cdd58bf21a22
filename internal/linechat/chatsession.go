package linechat

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
)

// The chat's commands for what ACP says about the session beyond the turn: signing in,
// the settings, the agent's other sessions, the title, the usage, attachments.

// offerSignIn lists the methods and says how to sign in with them.
func (c *chat) offerSignIn(agent string, methods []conversation.AuthMethod) {
	c.signIn = methods
	if c.signIn == nil {
		c.signIn = []conversation.AuthMethod{}
	}
	if len(methods) == 0 {
		c.con.Say("parley: %s needs you to sign in, and offers no method parley can use: sign in with its own tools, then start parley again.", agent)
		return
	}
	hint := "/login N signs in with the Nth"
	if len(methods) == 1 {
		hint = "/login signs in"
	}
	c.con.Say("parley: %s needs you to sign in. Its methods:\n%s\n%s; /quit leaves.", agent, strings.Join(MethodLines(methods, true), "\n"), hint)
}

// promptIfIdle shows the input prompt when nothing else is on screen.
func (c *chat) promptIfIdle() {
	if c.turn == 0 && c.question == nil && c.elicit == nil && c.confirmRun == nil && !c.quitting {
		c.con.Prompt("› ")
	}
}

// login signs in with a method, by number or id.
func (c *chat) login(arg string) error {
	methods := c.signIn
	if methods == nil {
		methods = c.session.Agent.Methods
	}
	if len(methods) == 0 {
		return errors.New("this agent offers no sign-in method parley can use")
	}
	if arg == "" && len(methods) > 1 {
		c.con.Say("sign-in methods:\n%s\n/login N signs in with the Nth", strings.Join(MethodLines(methods, true), "\n"))
		return nil
	}
	m := methods[0]
	if arg != "" {
		found := false
		for i, x := range methods {
			if string(x.ID) == arg || strconv.Itoa(i+1) == arg {
				m, found = x, true
				break
			}
		}
		if !found {
			return fmt.Errorf("no sign-in method %q: /login lists them", arg)
		}
	}
	if m.Refused != "" {
		return RefusedSignIn(m)
	}
	switch m.Kind {
	case conversation.AuthTerminal:
		if !c.tty {
			return conversation.ErrNoTerminal
		}
		c.con.Say("%s", RunBlock(m))
		c.confirmRun = &m
		c.confirmMark, _ = c.in.DiscardTypeAhead()
		c.con.Prompt(RunQuestion)
		return errAsking
	case conversation.AuthEnvVar:
		return c.askVars(m)
	}
	return c.conv.SignIn(m.ID, conversation.SignInOptions{})
}

// onRunAnswer reads a line as the answer to runQuestion: yes runs the terminal method
// shown, as it was shown; anything else runs nothing.
func (c *chat) onRunAnswer(l InputLine) {
	if l.Epoch < c.confirmMark {
		return // typed before the question
	}
	m := *c.confirmRun
	c.confirmRun = nil
	if !Yes(l.Text) {
		c.con.Say("(not run: no sign-in)")
		c.promptIfIdle()
		return
	}
	if err := c.conv.SignIn(m.ID, conversation.SignInOptions{RunTerminal: TerminalRunner(c.con, c.in), Approved: m.Run}); err != nil {
		c.con.Say("parley: %v", err)
		c.promptIfIdle()
	}
}

// askVars asks for the variables of an environment variable method that are not set
// (a secret one without echo), then signs in with them. The values stay in this parley:
// they are given to the agent's process and nowhere else.
func (c *chat) askVars(m conversation.AuthMethod) error {
	form := &conversation.Form{Answerable: true}
	var set []string
	for _, v := range m.Vars {
		if os.Getenv(v.Name) != "" {
			set = append(set, v.Name)
			continue
		}
		label := v.Name
		if v.Label != "" {
			label = v.Label + " (" + v.Name + ")"
		}
		form.Fields = append(form.Fields, conversation.Field{Name: v.Name, Title: label, Kind: conversation.FieldText, Required: !v.Optional, Secret: v.Secret})
	}
	if len(set) > 0 {
		c.con.Say("parley: %s %s set in your environment already", strings.Join(set, ", "), map[bool]string{true: "is", false: "are"}[len(set) == 1])
	}
	if len(form.Fields) == 0 {
		return c.conv.SignIn(m.ID, conversation.SignInOptions{})
	}
	if !c.tty {
		return errors.New("set " + strings.Join(VarNames(m), ", ") + " in your environment and start parley again")
	}
	message := fmt.Sprintf("%s reads these variables when it starts: parley starts it again with them (and saves them nowhere)", c.o.Agent)
	if m.Link != "" {
		message += "; get them at " + m.Link
	}
	ask := conversation.ElicitationAsked{Elicitation: &conversation.Elicitation{Agent: c.o.Agent, Message: message, Mode: acp.ElicitationModeForm, Form: form}}
	c.elicit = c.con.ShowElicitation(ask, func(a conversation.ElicitationAnswer) error {
		if a.Action != acp.ElicitationActionAccept {
			c.con.Say("(no sign-in)")
			c.promptIfIdle()
			return nil
		}
		if _, err := form.Validate(a.Content); err != nil {
			return err
		}
		vars := map[string]string{}
		for k, v := range a.Content {
			vars[k], _ = v.(string)
		}
		if err := c.conv.SignIn(m.ID, conversation.SignInOptions{Vars: vars}); err != nil {
			c.con.Say("parley: %v", err)
			c.promptIfIdle()
		}
		return nil
	}, c.in)
	return errAsking
}

// errAsking: the command goes on as a question on screen; no prompt yet.
var errAsking = errors.New("asking")

func VarNames(m conversation.AuthMethod) []string {
	var names []string
	for _, v := range m.Vars {
		names = append(names, v.Name)
	}
	return names
}

func (c *chat) showSetting(st conversation.Setting) {
	var lines []string
	if st.Description != "" {
		lines = append(lines, "  "+OneLineSafe(st.Description))
	}
	if st.Kind == conversation.SettingBoolean {
		lines = append(lines, fmt.Sprintf("  %s (true or false)", st.Current))
	}
	group := ""
	for _, v := range st.Values {
		if v.Group != group && v.Group != "" {
			lines = append(lines, "  "+OneLineSafe(v.Group)+":")
		}
		group = v.Group
		mark := "  "
		if v.ID == st.Current {
			mark = "* "
		}
		line := fmt.Sprintf("  %s%-24s %s", mark, OneLineSafe(v.ID), OneLineSafe(v.Name))
		if v.Description != "" {
			line += " — " + OneLineSafe(v.Description)
		}
		lines = append(lines, line)
	}
	c.con.Say("%s (%s):\n%s", OneLineSafe(st.Name), st.ID, strings.Join(lines, "\n"))
}

// showTitle says the session's title when it changes.
func (c *chat) showTitle() {
	if t := c.session.Title; t != c.title {
		c.title = t
		if t != "" {
			c.con.Say("(title: %s)", OneLineSafe(t))
		}
	}
}

// sendWithAttachments sends a prompt and the files its @PATH words name.
func (c *chat) sendWithAttachments(line string) {
	content := []acp.ContentBlock{acp.TextBlock(line)}
	for _, path := range mentions(line, c.session.Cwd) {
		block, note, err := c.session.Attach(path)
		if err != nil {
			c.con.Say("parley: %v", err)
			continue
		}
		if note != "" {
			c.con.Say("parley: %s", note)
		}
		content = append(content, block)
	}
	p := c.conv.Send(content)
	c.turn = p.ID
}

// mentions are the words of line that start with @ and name a file.
func mentions(line, cwd string) []string {
	var paths []string
	for _, w := range strings.Fields(line) {
		path, ok := strings.CutPrefix(w, "@")
		path = strings.TrimRight(path, ",.;:!?)")
		if !ok || path == "" {
			continue
		}
		if strings.HasPrefix(path, "~/") {
			if home, err := os.UserHomeDir(); err == nil {
				path = home + path[1:]
			}
		}
		abs := path
		if !filepath.IsAbs(abs) {
			abs = filepath.Join(cwd, path)
		}
		if info, err := os.Stat(abs); err == nil && info.Mode().IsRegular() {
			paths = append(paths, abs)
		}
	}
	return paths
}

// turnUsageText is the end-of-turn usage as the agent reported it (never added up: it
// may be the turn's or the session's).
func turnUsageText(u *acp.Usage) string {
	parts := []string{"in " + count(u.InputTokens), "out " + count(u.OutputTokens)}
	if u.ThoughtTokens != nil {
		parts = append(parts, "thinking "+count(*u.ThoughtTokens))
	}
	if u.CachedReadTokens != nil {
		parts = append(parts, "cache read "+count(*u.CachedReadTokens))
	}
	if u.CachedWriteTokens != nil {
		parts = append(parts, "cache write "+count(*u.CachedWriteTokens))
	}
	return fmt.Sprintf("usage: %s tokens (%s)", count(u.TotalTokens), strings.Join(parts, ", "))
}

// count is a token count in a few characters.
func count(n uint64) string {
	switch {
	case n < 1000:
		return strconv.FormatUint(n, 10)
	case n < 999_500:
		return fmt.Sprintf("%dk", (n+500)/1000)
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", float64(n)/1e6), ".0") + "M"
}
