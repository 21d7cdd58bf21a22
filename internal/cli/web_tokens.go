package cli

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"strings"
	"text/tabwriter"
	"time"

	"github.com/parley-acp/parley/internal/webui"
	"github.com/parley-acp/parley/internal/xdg"
	"github.com/spf13/cobra"
)

// webTokens is the file of named tokens every parley web of this user accepts.
func webTokens() *webui.Tokens {
	return webui.NewTokens(filepath.Join(xdg.DataDir(), webui.TokensFile))
}

func newWebTokensCommand() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "tokens",
		Short: "Add, list and revoke the named tokens parley web accepts",
		Long: `A named token lets one device or person in to every parley web of this user, besides
the token parley web makes each time it starts: give each its own, and revoke it alone
when the device is lost or the person leaves. A running parley web notices a revocation
at once: the token's pages, its sessions and its open connections end.

parley keeps only a hash of each token (SHA-256), with its name, when it was added and
when a server last let it in, in ` + filepath.Join("$XDG_DATA_HOME", "parley", webui.TokensFile) + ` (mode 0600; see
parley web --help for where that is on each system). The token itself is printed once,
by add.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return cmd.Help() },
	}
	var base string
	add := &cobra.Command{
		Use:   "add NAME",
		Short: "Make a token named NAME and print it, once",
		Long: `Make a token named NAME and print it, once: parley keeps only its hash. Give it to the
device or person as the address parley web serves with ?token=TOKEN (--url prints that
address whole), or to an ACP client as the WebSocket subprotocol parley-token.TOKEN.`,
		Example: `  parley web tokens add laptop
  parley web tokens add ana --url https://dev.example/parley/`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var u *url.URL
			if base != "" {
				var err error
				if u, err = publicURL(base); err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("--url: %w", err)}
				}
			}
			if err := webui.CheckTokenName(args[0]); err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			tok, err := webTokens().Add(args[0], time.Now())
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if u != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%s?token=%s\n", u, tok)
			} else {
				fmt.Fprintln(cmd.OutOrStdout(), tok)
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "parley web tokens: %q added; this is the only time its token is shown.\n", args[0])
			fmt.Fprintln(cmd.ErrOrStderr(), "Open the address parley web serves with ?token=TOKEN (for example https://HOST:PORT/?token=TOKEN, or your --public-url followed by ?token=TOKEN); an ACP client sends it as the WebSocket subprotocol parley-token.TOKEN.")
			return nil
		},
	}
	add.Flags().StringVar(&base, "url", "", "print the whole address: the `URL` parley web serves (its --public-url, or https://HOST:PORT/) with the token")
	list := &cobra.Command{
		Use:   "list",
		Short: "List the named tokens: name, when added, when last used",
		Args:  cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			records, err := webTokens().List()
			if err != nil {
				return &exitError{code: exitFailure, err: err}
			}
			if len(records) == 0 {
				fmt.Fprintln(cmd.ErrOrStderr(), "parley web tokens: none (add one with parley web tokens add NAME)")
				return nil
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "NAME\tCREATED\tLAST USED")
			for _, r := range records {
				used := "never"
				if !r.LastUsed.IsZero() {
					used = r.LastUsed.Local().Format(time.DateTime)
				}
				fmt.Fprintf(w, "%s\t%s\t%s\n", r.Name, r.Created.Local().Format(time.DateTime), used)
			}
			return w.Flush()
		},
	}
	revoke := &cobra.Command{
		Use:   "revoke NAME",
		Short: "Revoke the token named NAME: refused at once, open connections closed",
		Args:  cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := webTokens().Revoke(args[0]); err != nil {
				if errors.Is(err, webui.ErrNoToken) {
					return &exitError{code: exitUsage, err: err}
				}
				return &exitError{code: exitFailure, err: err}
			}
			fmt.Fprintf(cmd.ErrOrStderr(), "parley web tokens: %q revoked; every running parley web refuses it now and closes what it let in\n", args[0])
			return nil
		},
	}
	cmd.AddCommand(add, list, revoke)
	return cmd
}

// publicURL checks --public-url (and tokens add --url): an absolute http(s) address,
// with no query or fragment; its path ends in a slash (the page's own files and /acp are
// found relative to it).
func publicURL(raw string) (*url.URL, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || u.Host == "" || u.User != nil {
		return nil, fmt.Errorf("%q is not an http or https address: give the one the browser opens, for example https://dev.example/parley/", raw)
	}
	if u.RawQuery != "" || u.Fragment != "" {
		return nil, fmt.Errorf("%q: give the address without a query or fragment (parley adds ?token=)", raw)
	}
	if !strings.HasSuffix(u.Path, "/") {
		u.Path += "/"
	}
	u.RawPath = ""
	return u, nil
}
