package cli

import (
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/parley-acp/parley/internal/catalog"
	"github.com/parley-acp/parley/internal/config"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/sandbox"
)

// agentConfinement is one agent's confinement as `parley agents` shows it, with the
// default flags in the current directory.
type agentConfinement struct {
	Confined bool     `json:"confined"`
	Profile  string   `json:"profile,omitempty"` // the catalog profile it follows
	Write    []string `json:"write,omitempty"`
	DenyRead []string `json:"deny_read,omitempty"`
	Net      any      `json:"net"` // "open", or the destinations allowed
	Notes    []string `json:"notes,omitempty"`
}

func confinementOf(a catalog.Agent, cfg *config.File) agentConfinement {
	cwd, _ := os.Getwd()
	c, err := confineAgent(confineRequest{mode: "auto", name: a.Name, spec: a.Spec, roots: []string{cwd}, cfg: cfg, listing: true})
	out := agentConfinement{Net: "open", Notes: c.warnings}
	if p := catalog.ProfileOf(a.Name, a.Spec); p != nil {
		out.Profile = p.Agent
	}
	if err != nil {
		out.Notes = append(out.Notes, err.Error())
	}
	if c.spec == nil {
		return out
	}
	out.Confined, out.Write, out.DenyRead = true, c.spec.Write, c.spec.DenyRead
	if c.spec.Net != nil {
		out.Net = c.spec.Net
	}
	return out
}

// listConfinement prints each known agent's confinement below the table.
func listConfinement(out io.Writer, known *catalog.Catalog, cfg *config.File) error {
	home, _ := os.UserHomeDir()
	printSafe(out, "\nConfinement (--sandbox auto; %s), in this directory:", landlockWords())
	for _, a := range known.All() {
		c := confinementOf(a, cfg)
		if !c.Confined {
			printSafe(out, "  %s: not confined: %s", cell(a.Name), strings.Join(c.Notes, "; "))
			continue
		}
		var write []string
		for _, w := range c.Write {
			write = append(write, tildePath(w, home))
		}
		net := "open (--sandbox-net limits it)"
		if dests, ok := c.Net.([]string); ok {
			net = strings.Join(dests, ", ")
		}
		printSafe(out, "  %s: writes %s, its TMPDIR; may not read %s; network %s", cell(a.Name), strings.Join(write, ", "), secretsSummary(c.DenyRead, home), net)
		for _, n := range c.Notes {
			printSafe(out, "    %s", n)
		}
	}
	return nil
}

// landlockWords says what this machine confines with.
func landlockWords() string {
	if abi := sandbox.ABI(); abi > 0 {
		return fmt.Sprintf("Landlock ABI %d", abi)
	}
	if sandbox.Mechanism() == "seatbelt" {
		return "Seatbelt, macOS's sandbox-exec"
	}
	if !sandbox.Supported {
		return "no Landlock on " + platformName()
	}
	return "this kernel offers no Landlock"
}

// listKnownJSON is parley agents --json: the known agents with their confinement.
func listKnownJSON(out io.Writer, known *catalog.Catalog, cfg *config.File) error {
	type entry struct {
		Name        string           `json:"name"`
		Command     string           `json:"command"`
		Source      string           `json:"source"`
		NotRunnable string           `json:"not_runnable,omitempty"`
		Confinement agentConfinement `json:"confinement"`
	}
	var list []entry
	for _, a := range known.All() {
		list = append(list, entry{Name: a.Name, Command: a.Spec.String(), Source: a.Source, NotRunnable: a.NotRunnable, Confinement: confinementOf(a, cfg)})
	}
	b, err := json.MarshalIndent(list, "", "  ")
	if err != nil {
		return err
	}
	_, err = fmt.Fprintln(out, string(b))
	return err
}
