package cli

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"slices"
	"strings"
	"text/tabwriter"
	"unicode/utf8"

	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/registry"
	"github.com/parley-acp/parley/internal/toolui"
	"github.com/spf13/cobra"
)

func newAgentsCommand(g *globals) *cobra.Command {
	var refresh, jsonOut bool
	cmd := &cobra.Command{
		Use:   "agents",
		Short: "List the ACP agents parley knows, and install agents from the ACP registry",
		Long: `List the ACP agents parley knows: the built-in ones, those installed from the ACP
registry, and those of the agent_servers section of ` + config.Path() + `, which has the
shape editors use:

  {"agent_servers": {"mine": {"command": "my-agent", "args": ["--acp"], "env": {"KEY": "value"}}}}

Then the agents of the ACP registry (` + registry.DefaultURL + `,
fetched at most once a day and kept for when it cannot be reached; "registry_url" in
config.json or $` + registry.EnvURL + ` names another: an https URL, an http URL on this
machine, or a file). Install one with 'parley agents install ID'; it is then known by its
id everywhere (parley run --agent ID, parley chat --agent ID, the VS Code model list).

An agent that npx or uvx starts downloads its package the first time: "needs a download".

Each agent's confinement follows (as it would be in this directory): what it may write
besides the workspace, which of your secrets it may not read, and its network.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			cfg, err := config.Load(config.Path())
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			known := catalog.New(cfg)
			out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
			if jsonOut {
				return listKnownJSON(out, known, cfg)
			}
			for _, w := range known.Warnings() {
				printSafe(errw, "parley: %s", w)
			}
			if err := listKnown(out, known); err != nil {
				return err
			}
			if err := listConfinement(out, known, cfg); err != nil {
				return err
			}
			loaded, err := registryLoader(cfg).Load(cmd.Context(), refresh)
			if err != nil {
				printSafe(errw, "parley: the ACP registry's agents are not listed: %s", err)
				return nil
			}
			return listRegistry(out, errw, loaded, known)
		},
	}
	cmd.Flags().BoolVar(&refresh, "refresh", false, "fetch the registry's index now, even if the copy kept is less than a day old")
	cmd.Flags().BoolVar(&jsonOut, "json", false, "print the known agents and their confinement as JSON (the registry is not listed)")
	cmd.AddCommand(newAgentsInstallCommand(), newAgentsUpdateCommand(), newAgentsRemoveCommand())
	return cmd
}

func registryLoader(cfg *config.File) *registry.Loader {
	return &registry.Loader{Location: registry.Location(cfg.RegistryURL), CacheDir: registry.CacheDir()}
}

func listKnown(out io.Writer, known *catalog.Catalog) error {
	cwd, _ := os.Getwd()
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	printSafe(w, "NAME\tCOMMAND\tSOURCE\tRUNNABLE")
	for _, a := range known.All() {
		runnable := agentAvailability(context.Background(), a, cwd)
		printSafe(w, "%s\t%s\t%s\t%s", cell(a.Name), cell(a.Spec.String()), cell(a.Source), cell(runnable))
	}
	return w.Flush()
}

func listRegistry(out, errw io.Writer, loaded *registry.Loaded, known *catalog.Catalog) error {
	printSafe(out, "\nThe ACP registry (%s%s):", loaded.From, fetchedWhen(loaded))
	if loaded.Offline != nil {
		printSafe(errw, "parley: %s; listing the copy kept from %s", loaded.Offline, loaded.FetchedAt.Local().Format("2006-01-02 15:04"))
	}
	for _, s := range loaded.Skipped {
		printSafe(errw, "parley: the registry's entry %s is left out", s)
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	printSafe(w, "ID\tNAME\tVERSION\tINSTALLED\tDESCRIPTION")
	for _, e := range loaded.Index.Agents {
		installed := "no"
		if a, err := known.Lookup(e.ID); a.Installed != nil {
			switch {
			case a.Installed.Version != e.Version:
				installed = a.Installed.Version + " (update to " + e.Version + ": parley agents update " + e.ID + ")"
			case err != nil:
				installed = "yes, but cannot run: " + a.NotRunnable
			default:
				installed = "yes"
			}
		} else if e.Kind() == "" {
			installed = "no (nothing for " + registry.Platform() + ")"
		}
		printSafe(w, "%s\t%s\t%s\t%s\t%s", cell(e.ID), oneLine(e.Name, 30), oneLine(e.Version, 20), cell(installed), oneLine(e.Description, 70))
	}
	return w.Flush()
}

func fetchedWhen(l *registry.Loaded) string {
	if l.FetchedAt.IsZero() {
		return ""
	}
	return ", fetched " + l.FetchedAt.Local().Format("2006-01-02 15:04")
}

// oneLine is registry text for one cell of a table, cut at max runes (printSafe makes it
// safe to print).
func oneLine(s string, max int) string {
	s = cell(s)
	if utf8.RuneCountInString(s) > max {
		s = string([]rune(s)[:max-1]) + "…"
	}
	return s
}

// cell is text for one cell of a table: on one line, without tabs.
func cell(s string) string { return strings.Join(strings.Fields(s), " ") }

// printSafe prints a line. Each of parley's lines about agents holds text from the
// registry, from an agent's record or from the configuration (names, versions,
// descriptions, commands, errors naming them): the whole line is made safe to print
// (toolui.SafeText), so none of it can drive the terminal or hide in it.
func printSafe(w io.Writer, format string, args ...any) {
	fmt.Fprintln(w, toolui.SafeText(fmt.Sprintf(format, args...)))
}

// allowUnverifiedHelp is what --allow-unverified means, for install and update alike.
const allowUnverifiedHelp = "install a binary distribution even when the registry gives no sha256 for it: its archive is then unpacked and run as the server sends it, and nothing could show that it is the one the registry lists (a checksum that is not 64 hex digits, or that does not match, is refused all the same)"

func newAgentsInstallCommand() *cobra.Command {
	var allowUnverified bool
	cmd := &cobra.Command{
		Use:   "install ID...",
		Short: "Install agents from the ACP registry",
		Long: `Install agents from the ACP registry by their id (see 'parley agents'). A binary
distribution is downloaded for this machine, its sha256 checked against the registry's,
and unpacked into parley's data directory; an npx or uvx one is recorded as the command
that runs it (the package is fetched on the agent's first start; parley says so when the
registry pins no exact version of it).

A binary distribution the registry gives no sha256 for is refused before anything is
downloaded, unless --allow-unverified: then it is installed as downloaded, unchecked.`,
		Args: needArgs(1, "the ID of an agent of the registry (parley agents lists them)"),
		RunE: func(cmd *cobra.Command, ids []string) error {
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return installAgents(ctx, cmd, ids, false, allowUnverified)
		},
	}
	cmd.Flags().BoolVar(&allowUnverified, "allow-unverified", false, allowUnverifiedHelp)
	return cmd
}

func newAgentsUpdateCommand() *cobra.Command {
	var allowUnverified bool
	cmd := &cobra.Command{
		Use:   "update [ID...]",
		Short: "Update agents installed from the ACP registry (all of them when no id is given)",
		Long: `Update agents installed from the ACP registry (all of them when no id is given) to the
registry's version, checked as 'parley agents install' checks it: a new version whose
binary distribution has no sha256 is refused (the installed one stays) unless
--allow-unverified.`,
		RunE: func(cmd *cobra.Command, ids []string) error {
			ctx, stop := interruptible(cmd.Context())
			defer stop()
			return installAgents(ctx, cmd, ids, true, allowUnverified)
		},
	}
	cmd.Flags().BoolVar(&allowUnverified, "allow-unverified", false, allowUnverifiedHelp)
	return cmd
}

// installAgents installs ids (update: the installed ones, every one when ids is empty,
// and only when the registry has another version).
func installAgents(ctx context.Context, cmd *cobra.Command, ids []string, update, allowUnverified bool) error {
	cfg, err := config.Load(config.Path())
	if err != nil {
		return &exitError{code: exitFailure, err: err}
	}
	out, errw := cmd.OutOrStdout(), cmd.ErrOrStderr()
	installed, err := registry.ReadInstalled(registry.DefaultDir())
	if err != nil && update {
		return &exitError{code: exitFailure, err: err}
	}
	if update && len(ids) == 0 {
		for id := range installed {
			ids = append(ids, id)
		}
		slices.Sort(ids)
		if len(ids) == 0 {
			printSafe(out, "No agent is installed from the ACP registry (see `parley agents`).")
			return nil
		}
	}
	// An update asks the registry now; an install may use the copy of the day.
	loaded, err := registryLoader(cfg).Load(ctx, update)
	if err != nil {
		return &exitError{code: exitFailure, err: fmt.Errorf("%w\n(set registry_url in %s or $%s to use a mirror)", err, config.Path(), registry.EnvURL)}
	}
	if loaded.Offline != nil {
		printSafe(errw, "parley: %s; using the copy kept from %s", loaded.Offline, loaded.FetchedAt.Local().Format("2006-01-02 15:04"))
	}
	in := &registry.Installer{AllowUnverified: allowUnverified, Say: func(msg string) { printSafe(errw, "parley: %s", msg) }}
	var failed []string
	for _, id := range ids {
		e, ok := loaded.Index.Find(id)
		old, had := installed[id]
		switch {
		case catalog.Reserved(id):
			printSafe(errw, "parley: %s is the name of parley's own agent: an agent from the registry cannot take it", id)
			failed = append(failed, id)
			continue
		case !ok && loaded.WhyLeftOut(id) != "":
			printSafe(errw, "parley: refusing %s: the registry's entry for it is malformed (%s)", id, loaded.WhyLeftOut(id))
			failed = append(failed, id)
			continue
		case !ok:
			printSafe(errw, "parley: %s is not in the registry %s (`parley agents` lists its agents)", id, loaded.From)
			failed = append(failed, id)
			continue
		case update && !had:
			printSafe(errw, "parley: %s is not installed; install it with `parley agents install %s`", id, id)
			failed = append(failed, id)
			continue
		case had && old.Version == e.Version:
			printSafe(out, "%s %s is installed and up to date.", id, old.Version)
			continue
		}
		rec, err := in.Install(ctx, e, loaded.From)
		if err != nil {
			if ctx.Err() != nil {
				return &exitError{code: exitCancelled, err: fmt.Errorf("interrupted while installing %s; nothing of it was kept", id)}
			}
			printSafe(errw, "parley: %s", err)
			failed = append(failed, id)
			continue
		}
		if had {
			printSafe(out, "Updated %s from %s to %s: %s", id, old.Version, rec.Version, commandLine(rec))
		} else {
			printSafe(out, "Installed %s %s: %s", id, rec.Version, commandLine(rec))
		}
		if rec.Kind == "npx" || rec.Kind == "uvx" {
			printSafe(out, "  %s fetches %s on its first start.", rec.Kind, rec.Package)
			if _, err := exec.LookPath(rec.Command); err != nil {
				printSafe(errw, "parley: %s is not on PATH: install %s to run %s", rec.Command, map[string]string{"npx": "Node.js", "uvx": "uv"}[rec.Kind], id)
			}
		}
		printSafe(out, "  Try it: parley chat --agent %s", id)
	}
	if len(failed) > 0 {
		return &exitError{code: exitFailure, err: fmt.Errorf("not installed: %s", strings.Join(failed, ", "))}
	}
	return nil
}

func commandLine(rec registry.Installed) string {
	return strings.TrimSpace(rec.Command + " " + strings.Join(rec.Args, " "))
}

func newAgentsRemoveCommand() *cobra.Command {
	return &cobra.Command{
		Use:   "remove ID...",
		Short: "Remove agents installed from the ACP registry",
		Args:  needArgs(1, "the ID of an installed agent"),
		RunE: func(cmd *cobra.Command, ids []string) error {
			in := &registry.Installer{}
			var errs []error
			for _, id := range ids {
				rec, err := in.Remove(id)
				if err != nil {
					errs = append(errs, err)
					continue
				}
				printSafe(cmd.OutOrStdout(), "Removed %s %s.", id, rec.Version)
			}
			if err := errors.Join(errs...); err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			return nil
		},
	}
}
