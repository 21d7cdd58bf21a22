package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/spf13/cobra"
)

func newPermissionsCommand(g *globals) *cobra.Command {
	var dbPath string
	var filter permissionFilter
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "permissions",
		Short: `List the permission decisions parley remembers ("always allow", "always reject")`,
		Long: `List the permission decisions parley remembers. When an agent asks permission for a
tool call and you answer "always", parley remembers that answer for the agent and the
workspace, and answers the same way next time without asking. The COVERS column says
what it covers, in the words the question used:

  - a command is remembered exactly as it was shown ("exactly ` + "`rm -f build.log`" + `"), up to
    quoting and spacing; a command that only reads (risk none) is remembered with its
    file arguments open ("` + "`cat README.md`" + ` and the same command with other files in the
    workspace"). A decision only covers commands of the same risk, and an "always allow"
    never covers a critical command: those are asked about every time;
  - another tool is remembered by its kind and name ("edit:Write"): every call of it.

parley's own coding agent (parley agent) keeps its "always ... in this workspace"
answers here too, under the agent name "parley-agent": for commands the exact command
(or, for harmless ones, the command with other files of the workspace), for edits the
file, for MCP tools the tool. A remembered allow never covers a critical command.

Rules you configure yourself are not listed here; a configured "ask" rule always asks,
whatever was remembered. Forget remembered decisions with "parley permissions reset".`,
		Example: `  parley permissions
  parley permissions --agent codex --json
  parley permissions reset --workspace .
  parley permissions reset --all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			f, err := filter.resolve()
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			rules, err := listRules(cmd.Context(), g, dbPath, f)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if asJSON {
				return printRulesJSON(cmd.OutOrStdout(), rules)
			}
			return printRules(cmd.OutOrStdout(), rules)
		},
	}
	cmd.PersistentFlags().StringVar(&dbPath, "db", store.DefaultPath(), "the parley database `FILE`")
	filter.flags(cmd, "list only the decisions")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print a JSON array, for scripts")
	cmd.AddCommand(newPermissionsResetCommand(g, &dbPath))
	return cmd
}

func newPermissionsResetCommand(g *globals, dbPath *string) *cobra.Command {
	var filter permissionFilter
	var all bool
	cmd := &cobra.Command{
		Use:   "reset {--agent NAME | --workspace DIR | --all}",
		Short: "Forget remembered permission decisions",
		Long: `Forget remembered permission decisions: those for one agent, for one workspace, for
both, or with --all every one of them. The agent will be asked again.`,
		Example: `  parley permissions reset --agent codex
  parley permissions reset --workspace ~/src/project
  parley permissions reset --all`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			if !all && filter.empty() {
				return &exitError{code: exitUsage, err: errors.New("say which decisions to forget: --agent NAME, --workspace DIR, or --all for every one")}
			}
			if all && !filter.empty() {
				return &exitError{code: exitUsage, err: errors.New("--all forgets every decision; give it without --agent and --workspace")}
			}
			f, err := filter.resolve()
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			n, err := resetRules(cmd.Context(), g, *dbPath, f)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			noun := "decisions"
			if n == 1 {
				noun = "decision"
			}
			fmt.Fprintf(cmd.OutOrStdout(), "Forgot %d remembered permission %s.\n", n, noun)
			return nil
		},
	}
	filter.flags(cmd, "forget the decisions")
	cmd.Flags().BoolVar(&all, "all", false, "forget every remembered decision")
	return cmd
}

// permissionFilter is the --agent and --workspace flags.
type permissionFilter struct{ agent, workspace string }

func (f *permissionFilter) flags(cmd *cobra.Command, what string) {
	cmd.Flags().StringVar(&f.agent, "agent", "", what+" for this agent (`NAME`)")
	cmd.Flags().StringVar(&f.workspace, "workspace", "", what+" for this workspace directory `DIR`")
}

func (f permissionFilter) empty() bool { return f.agent == "" && f.workspace == "" }

// resolve returns the store filter. The workspace is made absolute with symlinks resolved,
// the way parley names the workspace of a session; a directory that no longer exists
// is taken as written (made absolute), so its decisions can still be forgotten.
func (f permissionFilter) resolve() (store.RuleFilter, error) {
	out := store.RuleFilter{Agent: f.agent}
	if f.workspace == "" {
		return out, nil
	}
	abs, err := filepath.Abs(f.workspace)
	if err != nil {
		return out, fmt.Errorf("--workspace: %w", err)
	}
	out.Workspace = abs
	if real, err := filepath.EvalSymlinks(abs); err == nil {
		out.Workspace = real
	}
	return out, nil
}

// openExisting opens the database at path, or returns nil if there is none: listing or
// forgetting decisions does not create a database.
func openExisting(g *globals, path string) (*store.Store, error) {
	if _, err := os.Stat(path); errors.Is(err, fs.ErrNotExist) {
		if g.logger != nil {
			g.logger.Debug("no parley database yet", "path", path)
		}
		return nil, nil
	}
	return store.Open(path)
}

func listRules(ctx context.Context, g *globals, path string, f store.RuleFilter) ([]store.Rule, error) {
	s, err := openExisting(g, path)
	if s == nil || err != nil {
		return nil, err
	}
	defer s.Close()
	return s.ListRules(ctx, f)
}

func resetRules(ctx context.Context, g *globals, path string, f store.RuleFilter) (int, error) {
	s, err := openExisting(g, path)
	if s == nil || err != nil {
		return 0, err
	}
	defer s.Close()
	return s.ResetRules(ctx, f)
}

func printRules(w io.Writer, rules []store.Rule) error {
	if len(rules) == 0 {
		_, err := fmt.Fprintln(w, `No remembered permission decisions. Answer "always" when an agent asks, and parley remembers it.`)
		return err
	}
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "AGENT\tWORKSPACE\tDECISION\tCOVERS\tWHEN")
	for _, r := range rules {
		fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", toolui.SafeText(r.Agent), toolui.SafeText(r.Workspace), r.Decision,
			toolui.SafeText(covers(r)), r.CreatedAt.Local().Format("2006-01-02 15:04"))
	}
	return tw.Flush()
}

// covers says what a remembered decision covers: the question's words, with the risk
// for a command (a decision only covers commands of that risk); the key when there
// are no words.
func covers(r store.Rule) string {
	if r.Description == "" {
		return r.ToolKey
	}
	if rest, ok := strings.CutPrefix(r.ToolKey, "execute:"); ok {
		if tier, _, ok := strings.Cut(rest, " "); ok {
			return r.Description + " (risk " + tier + ")"
		}
	}
	return r.Description
}

// ruleJSON is a remembered decision as parley permissions --json prints it.
type ruleJSON struct {
	Agent       string `json:"agent"`
	Workspace   string `json:"workspace"`
	Tool        string `json:"tool"`        // the key: "execute:<risk> <command>" or kind:tool
	Description string `json:"description"` // what it covers, in the question's words
	Decision    string `json:"decision"`
	CreatedAt   string `json:"createdAt"` // RFC 3339, UTC
}

func printRulesJSON(w io.Writer, rules []store.Rule) error {
	out := make([]ruleJSON, 0, len(rules))
	for _, r := range rules {
		out = append(out, ruleJSON{
			Agent:       r.Agent,
			Workspace:   r.Workspace,
			Tool:        r.ToolKey,
			Description: r.Description,
			Decision:    string(r.Decision),
			CreatedAt:   r.CreatedAt.UTC().Format(time.RFC3339),
		})
	}
	b, err := toolui.MarshalIndentJSON(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}
