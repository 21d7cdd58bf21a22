package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/chatcmd"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/linechat"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/spf13/cobra"
)

// `parley changes` and `parley undo`: the record of changes (internal/changes) from the
// shell, in the workspace the current directory is in. Both read the conversation
// updated last there, unless --session names another: turns of parley chat, parley run
// and parley's own agent alike.

func newChangesCommand(g *globals) *cobra.Command {
	var session string
	var turn int
	var all, asJSON, sessions bool
	var dbPath string
	cmd := &cobra.Command{
		Use:   "changes [--session ID] [--turn N | --all] [--json]",
		Short: "List the files an agent's last turn created, changed and deleted here",
		Long: `List the files an agent's turn created (A), changed (M) and deleted (D), with the lines
it added and removed, one per line: by default the last turn of the last conversation
recorded in the workspace the current directory is in (parley chat and parley run
alike). parley records every turn: what the agent writes through parley, and what it
changes on disk by itself (its own tools, its commands), found by comparing the
workspace before and after the turn. Files git ignores are not followed; a binary file,
or one larger than the record reads, is listed by hash and cannot be restored.

Undo a turn, or some of its files, with "parley undo".`,
		Example: `  parley changes
  parley changes --all
  parley changes --session 019a4f2e-… --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			ctx := cmd.Context()
			log, st, dir, err := openChangeLog(cmd, dbPath)
			if err != nil {
				return err
			}
			defer st.Close()
			if sessions {
				return printChangeSessions(ctx, cmd.OutOrStdout(), log, dir, asJSON)
			}
			rec, err := log.Open(ctx, dir, session)
			if errors.Is(err, store.ErrNoChangeSession) && session == "" {
				// Nothing recorded is an answer, not a failure: no agent changed anything
				// here (a conversation is recorded from its first change).
				fmt.Fprintf(cmd.ErrOrStderr(), "no agent has changed anything in %s (as far as parley recorded)\n", dir)
				return nil
			}
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			defer rec.Close()
			turns, err := rec.Turns(ctx)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			switch {
			case all:
			case turn != 0:
				turns = selectTurn(turns, turn)
				if len(turns) == 0 {
					return &exitError{code: exitFailure, err: fmt.Errorf("there is no turn %d (parley changes --all lists them)", turn)}
				}
			case len(turns) > 0:
				turns = turns[len(turns)-1:]
			}
			if asJSON {
				return printTurnsJSON(cmd.OutOrStdout(), turns, dir)
			}
			for _, t := range turns {
				fmt.Fprintln(cmd.ErrOrStderr(), toolui.SafeText(linechat.TurnHeading(t)))
				for _, c := range t.Changes {
					fmt.Fprintln(cmd.OutOrStdout(), toolui.SafeText(linechat.ChangeLine(c, relTo(dir, c.Path))))
				}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "the conversation: its agent session `ID` (parley changes --sessions lists them)")
	cmd.Flags().IntVar(&turn, "turn", 0, "the `TURN` to list (default: the last)")
	cmd.Flags().BoolVar(&all, "all", false, "list every turn of the conversation")
	cmd.Flags().BoolVar(&sessions, "sessions", false, "list the conversations recorded in this workspace")
	cmd.Flags().BoolVar(&asJSON, "json", false, "print JSON, for scripts")
	cmd.Flags().StringVar(&dbPath, "db", store.DefaultPath(), "the parley database `FILE`")
	return cmd
}

func newUndoCommand(g *globals) *cobra.Command {
	var session string
	var turn, to int
	var dbPath string
	cmd := &cobra.Command{
		Use:   "undo [--session ID] [--turn N | --to N] [FILE...]",
		Short: "Undo what an agent's last turn changed here (or some files of it)",
		Long: `Undo what an agent's turn changed: the files it changed get back what they held, those it
created are deleted, those it deleted come back. By default the last turn of the last
conversation recorded in this workspace whose changes can still be undone; with FILEs,
only those (each from the last turn that changed it); --to N undoes every turn from N
on, back to how things were before turn N.

An undo never overwrites a change made after the turn by someone else (a hand edit,
another tool): when a file is no longer what the turn left, nothing is changed, the
files are named, and the exit status is 1 (on a terminal, parley offers to show how
they changed). Undoing a turn is all or nothing. An undo is recorded like a turn: undo
it to get the changes back.`,
		Example: `  parley undo
  parley undo notes.txt
  parley undo --turn 3
  parley undo --to 2`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if turn != 0 && to != 0 {
				return &exitError{code: exitUsage, err: errors.New("give --turn or --to, not both")}
			}
			ctx := cmd.Context()
			log, st, dir, err := openChangeLog(cmd, dbPath)
			if err != nil {
				return err
			}
			defer st.Close()
			rec, err := log.Open(ctx, dir, session)
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			defer rec.Close()
			req := changes.UndoRequest{Turn: turn}
			if to != 0 {
				req = changes.UndoRequest{Turn: to, Rewind: true}
			}
			for _, a := range args {
				req.Paths = append(req.Paths, chatcmd.AbsPath(dir, a))
			}
			res, err := rec.Undo(ctx, req)
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			if ce, ok := errors.AsType[*changes.ConflictError](err); ok {
				if ce.Partial != nil {
					printUndone(out, ce.Partial, dir)
				}
				fmt.Fprintln(errw, toolui.SafeText(linechat.ConflictText(ce, undoOthersHint(ce, session, turn, to))))
				if linechat.IsTerminal(cmd.InOrStdin()) && linechat.HasSince(ce) {
					offerConflictDiffs(ctx, cmd.InOrStdin(), errw, rec, ce)
				}
				return &exitError{code: exitFailure, err: errors.New("nothing was undone")}
			}
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			printUndone(out, &res, dir)
			if res.Record.Number != 0 {
				fmt.Fprintln(errw, "(recorded as turn "+strconv.Itoa(res.Record.Number)+": `parley undo` again brings the changes back)")
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&session, "session", "", "the conversation: its agent session `ID` (parley changes --sessions lists them)")
	cmd.Flags().IntVar(&turn, "turn", 0, "the `TURN` to undo (default: the last with changes to undo)")
	cmd.Flags().IntVar(&to, "to", 0, "undo every turn from this `TURN` on")
	cmd.Flags().StringVar(&dbPath, "db", store.DefaultPath(), "the parley database `FILE`")
	return cmd
}

// openChangeLog opens the database and the record in it, for the workspace of the
// current directory.
func openChangeLog(cmd *cobra.Command, dbPath string) (*changes.Log, *store.Store, string, error) {
	cfg, err := config.Load(config.Path())
	if err != nil {
		return nil, nil, "", &exitError{code: exitUsage, err: err}
	}
	warnConfig(cmd.ErrOrStderr(), cfg)
	dir, err := os.Getwd()
	if err != nil {
		return nil, nil, "", &exitError{code: exitFailure, err: err}
	}
	if resolved, err := filepath.EvalSymlinks(dir); err == nil {
		dir = resolved
	}
	st, err := store.Open(dbPath)
	if err != nil {
		return nil, nil, "", &exitError{code: exitFailure, err: err}
	}
	return changes.NewLog(st, cfg.Changes.Limits()), st, dir, nil
}

// warnConfig says what the configuration file has that parley does not know.
func warnConfig(w io.Writer, cfg *config.File) {
	for _, msg := range cfg.Warnings {
		fmt.Fprintln(w, "parley: "+msg)
	}
}

// relTo is path as the user in dir names it.
func relTo(dir, path string) string {
	if rel, err := filepath.Rel(dir, path); err == nil {
		return filepath.ToSlash(rel)
	}
	return path
}

func selectTurn(turns []changes.Turn, n int) []changes.Turn {
	for _, t := range turns {
		if t.Number == n {
			return []changes.Turn{t}
		}
	}
	return nil
}

// printUndone says what an undo did, a line per file.
func printUndone(w io.Writer, res *changes.UndoResult, dir string) {
	for _, o := range res.Files {
		fmt.Fprintln(w, toolui.SafeText(relTo(dir, o.Path)+": "+o.Did))
	}
}

// offerConflictDiffs asks, on a terminal, whether to show how the files changed since
// their turn, and shows it.
func offerConflictDiffs(ctx context.Context, in io.Reader, w io.Writer, rec *changes.Record, ce *changes.ConflictError) {
	fmt.Fprint(w, "Show how they changed since? [y/N] ")
	answer := make([]byte, 64)
	n, _ := in.Read(answer)
	if a := strings.ToLower(strings.TrimSpace(string(answer[:n]))); a != "y" && a != "yes" {
		return
	}
	for _, c := range ce.Conflicts {
		if !c.Since {
			continue
		}
		d, err := rec.Diff(ctx, changes.DiffRequest{Turn: c.Turn, Path: c.Path, Since: true})
		if err != nil {
			fmt.Fprintf(w, "%s: %v\n", c.Rel, err)
			continue
		}
		fmt.Fprintln(w, toolui.SafeText(linechat.DiffText(d)))
	}
}

// The JSON of parley changes: one object per turn.
type turnJSON struct {
	Number  int          `json:"turn"`
	Label   string       `json:"label"`
	Undo    bool         `json:"undo,omitempty"`
	Started time.Time    `json:"started"`
	Ended   *time.Time   `json:"ended,omitempty"`
	Files   []changeJSON `json:"files"`
}

type changeJSON struct {
	Status  string      `json:"status"` // A, M or D
	Path    string      `json:"path"`
	Rel     string      `json:"rel"`
	Added   int         `json:"added"`
	Removed int         `json:"removed"`
	Written bool        `json:"written"`
	State   string      `json:"state"`
	Before  versionJSON `json:"before"`
	After   versionJSON `json:"after"`
	// RunsCode: how the change makes git run a program (a hook, core.fsmonitor...).
	RunsCode string `json:"runs_code,omitempty"`
}

type versionJSON struct {
	Exists bool   `json:"exists"`
	Binary bool   `json:"binary,omitempty"`
	Large  bool   `json:"large,omitempty"`
	Kept   bool   `json:"kept"`
	Size   int64  `json:"size"`
	Hash   string `json:"sha256,omitempty"`
	Mode   string `json:"mode,omitempty"` // permission bits in octal, "755"; absent when not known
}

func versionOfJSON(v changes.Version) versionJSON {
	j := versionJSON{Exists: v.Exists, Binary: v.Binary, Large: v.Large, Kept: v.Kept, Size: v.Size, Hash: v.Hash}
	if v.Exists && v.Mode != 0 {
		j.Mode = fmt.Sprintf("%03o", v.Mode.Perm())
	}
	return j
}

func printTurnsJSON(w io.Writer, turns []changes.Turn, dir string) error {
	out := []turnJSON{}
	for _, t := range turns {
		tj := turnJSON{Number: t.Number, Label: t.Label, Undo: t.Undo, Started: t.Started, Files: []changeJSON{}}
		if !t.Ended.IsZero() {
			tj.Ended = &t.Ended
		}
		for _, c := range t.Changes {
			tj.Files = append(tj.Files, changeJSON{Status: string(c.Kind), Path: c.Path, Rel: relTo(dir, c.Path), Added: c.Added, Removed: c.Removed,
				Written: c.Written, State: string(c.Status), Before: versionOfJSON(c.Before), After: versionOfJSON(c.After), RunsCode: c.RunsCode})
		}
		out = append(out, tj)
	}
	b, err := toolui.MarshalIndentJSON(out, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(w, "%s\n", b)
	return err
}

func printChangeSessions(ctx context.Context, w io.Writer, log *changes.Log, dir string, asJSON bool) error {
	all, err := log.Sessions(ctx, dir)
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	if asJSON {
		type sessionJSON struct {
			Agent   string    `json:"agent"`
			Session string    `json:"session"`
			Updated time.Time `json:"updated"`
		}
		out := []sessionJSON{}
		for _, s := range all {
			out = append(out, sessionJSON{s.Agent, s.AgentSession, s.UpdatedAt})
		}
		b, _ := toolui.MarshalIndentJSON(out, "", "  ")
		_, err := fmt.Fprintf(w, "%s\n", b)
		return err
	}
	for _, s := range all {
		fmt.Fprintln(w, toolui.SafeText(fmt.Sprintf("%s  %-40s %s", s.UpdatedAt.Local().Format("2006-01-02 15:04"), s.AgentSession, s.Agent)))
	}
	return nil
}
