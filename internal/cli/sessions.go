package cli

import (
	"fmt"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/spf13/cobra"
)

// sessionJSON is one line of parley sessions --json.
type sessionJSON struct {
	ID           string `json:"id"`
	Agent        string `json:"agent"`
	AgentSession string `json:"agentSessionId"`
	Title        string `json:"title"`
	Created      string `json:"created"`  // RFC 3339
	LastUsed     string `json:"lastUsed"` // RFC 3339
	Turns        int    `json:"turns"`
	From         string `json:"from,omitempty"` // the conversation it carries on
	FromTurns    int    `json:"fromTurns,omitempty"`
	How          string `json:"how"` // new, resume, load, fork, seeded, summarised
}

func newSessionsCommand(g *globals) *cobra.Command {
	var jsonOut bool
	var cwd string
	cmd := &cobra.Command{
		Use:   "sessions",
		Short: "List the conversations parley kept in this workspace",
		Long: `List the conversations parley kept in the workspace (the current directory, or --cwd),
the most recently used first: parley's id for each, the agent, its title (the agent's,
or the first prompt's first line), when it was last used and how many turns it has.
parley run --session ID (or --continue, for the last one with the agent) goes on with one,
--fork ID with a copy of it, --from ID --agent OTHER hands it to another agent; in a
chat, /fork, /handoff AGENT and /rewind TURN do the same.

A conversation that carries another on says where from ("from") and how it got the
earlier turns: fork, resume, load (the agent's own session), seeded or summarised (a new
session whose first prompt carried the transcript).`,
		Example: `  parley sessions
  parley sessions --json | jq -r .id
  parley run --session "$(parley sessions --json | head -1 | jq -r .id)" "go on"`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			roots, err := workspaceRoots(cwd)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			dir := roots.Dirs()[0]
			st, err := store.Open(store.DefaultPath())
			if err != nil {
				return fmt.Errorf("the kept conversations cannot be read: %w", err)
			}
			defer st.Close()
			list, err := st.ListTranscripts(cmd.Context(), dir)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			if jsonOut {
				for _, t := range list {
					b, err := json.Marshal(sessionJSON{ID: t.ID, Agent: t.Agent, AgentSession: t.AgentSession, Title: t.Title,
						Created: t.CreatedAt.UTC().Format(time.RFC3339), LastUsed: t.UpdatedAt.UTC().Format(time.RFC3339),
						Turns: t.Turns, From: t.FromID, FromTurns: t.FromTurn, How: t.How})
					if err != nil {
						return err
					}
					fmt.Fprintf(out, "%s\n", b)
				}
				return nil
			}
			if len(list) == 0 {
				fmt.Fprintf(cmd.ErrOrStderr(), "No conversation is kept in %s yet: parley run and parley chat keep theirs.\n", dir)
				return nil
			}
			w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "ID\tAGENT\tLAST USED\tTURNS\tTITLE")
			now := time.Now()
			for _, t := range list {
				title := toolui.SafeText(oneLineTitle(t.Title))
				if t.FromID != "" {
					title += fmt.Sprintf(" (%s of %s)", t.How, t.FromID)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%s\n", t.ID, toolui.SafeText(shortName(t.Agent)), ago(now, t.UpdatedAt), t.Turns, title)
			}
			return w.Flush()
		},
	}
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print one JSON object per conversation (id, agent, agentSessionId, title, created, lastUsed, turns, from, fromTurns, how)")
	cmd.Flags().StringVar(&cwd, "cwd", "", "the workspace `DIR` (default: the current directory)")
	return cmd
}

func oneLineTitle(s string) string {
	s = strings.Join(strings.Fields(s), " ")
	if r := []rune(s); len(r) > 60 {
		s = string(r[:59]) + "…"
	}
	return s
}

// shortName is an agent's name for a table: a command line's program.
func shortName(agent string) string {
	if f := strings.Fields(agent); len(f) > 1 {
		return f[0] + " …"
	}
	return agent
}

// ago says when, in a few characters: "12s ago", "3h ago", then the date.
func ago(now, t time.Time) string {
	d := now.Sub(t)
	switch {
	case d < time.Minute:
		return fmt.Sprintf("%ds ago", max(0, int(d.Seconds())))
	case d < time.Hour:
		return fmt.Sprintf("%dm ago", int(d.Minutes()))
	case d < 24*time.Hour:
		return fmt.Sprintf("%dh ago", int(d.Hours()))
	}
	return t.Local().Format("2006-01-02 15:04")
}
