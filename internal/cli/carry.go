package cli

import (
	"context"
	"errors"
	"fmt"
	"os"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/store"
	"github.com/spf13/cobra"
)

// carryFlags are parley run's ways to go on with a conversation parley kept (see
// internal/conversation/carry.go).
type carryFlags struct {
	session, fork, from string
	cont                bool
}

func (f *carryFlags) register(cmd *cobra.Command) {
	cmd.Flags().StringVar(&f.session, "session", "", "go on with the kept conversation `ID` (parley sessions lists them): the agent's own session where it can resume or load it, else a new one seeded with the transcript")
	cmd.Flags().BoolVar(&f.cont, "continue", false, "go on with this workspace's last conversation with the agent (as --session does)")
	cmd.Flags().StringVar(&f.fork, "fork", "", "go on with a copy of the kept conversation `ID`: session/fork where the agent offers it, else a new session seeded with the transcript; the original stays as it was")
	cmd.Flags().StringVar(&f.from, "from", "", "hand the kept conversation `ID` to the agent --agent names: a new session seeded with the transcript (summarised when it is long)")
}

// kind is the carry the flags ask for ("" for none), and the conversation's id.
func (f *carryFlags) kind() (kind, id string, err error) {
	n := 0
	for _, set := range []bool{f.session != "", f.cont, f.fork != "", f.from != ""} {
		if set {
			n++
		}
	}
	switch {
	case n > 1:
		return "", "", errors.New("give one of --session, --continue, --fork and --from")
	case f.session != "":
		return conversation.CarryContinue, f.session, nil
	case f.cont:
		return conversation.CarryContinue, "", nil
	case f.fork != "":
		return conversation.CarryFork, f.fork, nil
	case f.from != "":
		return conversation.CarryHandoff, f.from, nil
	}
	return "", "", nil
}

// findKept finds a kept conversation by its id (or the start of it).
func findKept(ctx context.Context, st *store.Store, id string) (store.Transcript, error) {
	t, ok, err := st.FindTranscript(ctx, id)
	switch {
	case errors.Is(err, store.ErrAmbiguous):
		return t, fmt.Errorf("conversation %q: %w (parley sessions lists them)", id, err)
	case err != nil:
		return t, err
	case !ok:
		return t, fmt.Errorf("no conversation %q is kept (parley sessions lists those of a workspace)", id)
	}
	return t, nil
}

// prepareCarry reads the conversation the flags name, before the agent is chosen: to go
// on with or fork a conversation is to do so with its agent, unless --agent or
// --agent-command says otherwise. It returns the kind of carry and the conversation
// (zero for --continue, found once the agent is known).
func prepareCarry(cmd *cobra.Command, cf *carryFlags, af *agentFlags) (string, store.Transcript, error) {
	kind, id, err := cf.kind()
	if err != nil || kind == "" {
		return kind, store.Transcript{}, err
	}
	agentGiven := cmd.Flags().Changed("agent") || cmd.Flags().Changed("agent-command")
	if kind == conversation.CarryHandoff && !agentGiven {
		return "", store.Transcript{}, errors.New("--from hands a conversation to another agent: name it with --agent (or --agent-command)")
	}
	if id == "" {
		return kind, store.Transcript{}, nil
	}
	st, err := store.Open(store.DefaultPath())
	if err != nil {
		return "", store.Transcript{}, fmt.Errorf("the kept conversations cannot be read: %w", err)
	}
	defer st.Close()
	t, err := findKept(cmd.Context(), st, id)
	if err != nil {
		return "", t, err
	}
	if !agentGiven && kind != conversation.CarryHandoff {
		af.name = t.Agent
		if strings.ContainsAny(t.Agent, " /\\") { // a command line, as --agent-command gave it
			af.name, af.command = "", t.Agent
		}
	}
	return kind, t, nil
}

// planCarry works out, once the agent and workspace are known, how the run's session
// carries the conversation on.
func planCarry(ctx context.Context, kind string, t store.Transcript, opts sessionOptions) (*conversation.Carried, store.Transcript, error) {
	st, err := store.Open(store.DefaultPath())
	if err != nil {
		return nil, t, fmt.Errorf("the kept conversations cannot be read: %w", err)
	}
	defer st.Close()
	if t.ID == "" { // --continue
		last, ok, err := st.LastTranscript(ctx, opts.dir, opts.agentName)
		if err != nil {
			return nil, t, err
		}
		if !ok {
			return nil, t, fmt.Errorf("--continue: no conversation with %s is kept in %s (parley sessions lists them; a run without --continue starts one)", opts.agentName, opts.dir)
		}
		t = last
	}
	if t.Workspace != opts.dir {
		return nil, t, fmt.Errorf("conversation %s was held in %s: run in that directory (or with --cwd %s)", t.ID, t.Workspace, t.Workspace)
	}
	if kind != conversation.CarryHandoff && t.Agent != opts.agentName {
		// Another agent cannot resume or fork this agent's session: that is a hand-off.
		kind = conversation.CarryHandoff
	}
	c, err := conversation.PlanCarry(ctx, st, t, conversation.CarryPlan{Kind: kind, Budget: seedBudget()})
	if err != nil {
		return nil, t, err
	}
	return &c, t, nil
}

// seedBudget is $PARLEY_SEED_BUDGET (characters), or the default: how much transcript a
// seeded session's first prompt carries before it is summarised.
func seedBudget() int {
	if n, err := strconv.Atoi(os.Getenv("PARLEY_SEED_BUDGET")); err == nil && n > 0 {
		return n
	}
	return conversation.DefaultSeedBudget
}

// carriedJSON is the --json event that says how a run went on with a conversation.
type carriedJSON struct {
	Type string `json:"type"` // "carried"
	How  string `json:"how"`  // resume, load, fork, seeded, summarised
	From string `json:"from"` // the kept conversation
	// Conversation is the kept conversation the run goes on in: From itself for resume and
	// load, a new one (which names From) otherwise.
	Conversation string `json:"conversation,omitempty"`
	Agent        string `json:"agent"`
	Session      string `json:"sessionId"`         // the agent's session now
	Turns        int    `json:"turns"`             // the turns carried on
	SeedChars    int    `json:"seedChars"`         // the seed's size, when seeded
	Summary      string `json:"summary,omitempty"` // the seed, when summarised
	Why          string `json:"why,omitempty"`     // why the agent's own way failed, when it did
}

// tellCarried says on stderr (and in --json) how the session carries the conversation on.
func tellCarried(con *linechat.Console, c *conversation.Carried, from store.Transcript, agent string, s conversation.Session, kept string) {
	ev := carriedJSON{Type: "carried", How: s.Carried, From: from.ID, Conversation: kept, Agent: agent, Session: string(s.ID), Turns: len(c.From.Turns)}
	seededHow := s.Carried == conversation.CarriedSeeded || s.Carried == conversation.CarriedSummarised
	if seededHow {
		ev.SeedChars = len(c.Seed.Text)
	}
	if s.Carried == conversation.CarriedSummarised {
		ev.Summary = c.Seed.Text
	}
	if s.CarryErr != nil {
		ev.Why = s.CarryErr.Error()
	}
	if con.JSONEvent(ev) {
		return
	}
	what := fmt.Sprintf("conversation %s (%s)", from.ID, plural(len(c.From.Turns), "turn"))
	switch s.Carried {
	case conversation.CarriedResume, conversation.CarriedLoad:
		con.Say("parley: going on with %s in %s's session %s (session/%s)", what, agent, s.ID, s.Carried)
	case conversation.CarriedFork:
		con.Say("parley: going on with a fork of %s: %s's session %s (session/fork)", what, agent, s.ID)
	case conversation.CarriedSeeded:
		con.Say("parley: going on with %s in a new session of %s, its first prompt seeded with the transcript (%d characters)", what, agent, len(c.Seed.Text))
	case conversation.CarriedSummarised:
		con.Say("parley: going on with %s in a new session of %s, its first prompt seeded with a summary of the transcript (%d characters; $PARLEY_SEED_BUDGET sets the limit):\n%s",
			what, agent, len(c.Seed.Text), strings.TrimRight(c.Seed.Text, "\n"))
	}
}

// headlessFlags are run's policy for what a run with nobody to ask allows: --allow and
// --deny add rules after the configured ones (so they win), by tool kind.
type headlessFlags struct {
	allow, deny []string
}

// toolKinds are the kinds --allow and --deny take, as ACP names tool calls.
var toolKinds = []string{"read", "edit", "delete", "move", "search", "execute", "think", "fetch", "other"}

func (f *headlessFlags) register(cmd *cobra.Command) {
	kinds := strings.Join(toolKinds, ", ")
	cmd.Flags().StringArrayVar(&f.allow, "allow", nil, "allow tool calls of `KIND` without asking (repeatable: "+kinds+", or all as --yolo); critical commands and rules configured as ask still ask")
	cmd.Flags().StringArrayVar(&f.deny, "deny", nil, "refuse tool calls of `KIND` without asking (repeatable; the same kinds, or all)")
}

// rules turns the flags into permission rules, and says whether --allow all was given.
func (f *headlessFlags) rules() ([]permission.Rule, bool, error) {
	var out []permission.Rule
	all := false
	add := func(flag string, kinds []string, action permission.Action) error {
		for _, k := range kinds {
			for _, k := range strings.Split(k, ",") {
				k = strings.TrimSpace(strings.ToLower(k))
				switch {
				case k == "all" && action == permission.ActionAllow:
					all = true
				case k == "all":
					out = append(out, permission.Rule{Tool: "*", Action: action})
				case contains(toolKinds, k):
					out = append(out, permission.Rule{Tool: k + ":*", Action: action})
				default:
					return fmt.Errorf("%s %q: give one of %s, or all", flag, k, strings.Join(toolKinds, ", "))
				}
			}
		}
		return nil
	}
	if err := add("--allow", f.allow, permission.ActionAllow); err != nil {
		return nil, false, err
	}
	if err := add("--deny", f.deny, permission.ActionReject); err != nil {
		return nil, false, err
	}
	return out, all, nil
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

func plural(n int, what string) string {
	if n == 1 {
		return "1 " + what
	}
	return fmt.Sprintf("%d %ss", n, what)
}
