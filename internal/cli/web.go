package cli

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/parley-acp/parley/internal/webui"
	"github.com/spf13/cobra"
)

func newWebCommand(g *globals) *cobra.Command {
	var af agentFlags
	var port int
	var noOpen bool
	var listen string
	var idle time.Duration
	var tlsCert, tlsKey, public string
	var behindProxy bool
	cmd := &cobra.Command{
		Use:   "web [flags]",
		Short: "Chat with ACP agents in the browser",
		Long: `Serve a chat with ACP agents in the browser, on 127.0.0.1 (a free port unless --port), and
open it. The first line parley prints is the address to open: it carries a token that
every request needs, so only who has the address can use the chat. The browser parley
opens itself ($BROWSER, else the system's) is given another address, which works once
and for a minute only: a browser's command line is there for any process to read. The
page can replace the token (its "New address" button): the old address, and every
page opened with it, stop working at once, and parley prints the new one.

The page opens on a conversation with the agent given (--agent, --agent-command; Eliza
by default); more conversations, each with any agent parley knows, open beside it. The
page speaks ACP to parley over a WebSocket at /acp: parley runs the agents, answers their
file and terminal requests inside the workspace (--cwd, default the current directory),
applies your permission rules, and asks you, on the page, only what a person must answer.

A conversation whose page is closed goes on (reopening the page brings it back) until it
has had no page and nothing to do for --idle-timeout; then it is closed and its agent
ends with its last conversation.

Besides its own token, parley web accepts the named tokens of parley web tokens, one per
device or person, each revoked alone without a restart: a revoked token's pages and
open connections end at once. The log (--log info) names the token of every connection
opened or refused and every revocation.

Serving others: --tls-cert and --tls-key serve https (and wss) with your certificate.
--listen serves another address than 127.0.0.1, and anyone who reaches it with a token
can use your agents, and through them your files; so it is refused without TLS, unless
a reverse proxy on another host or container terminates TLS in front of parley
(--behind-proxy; a proxy on this machine reaches parley on 127.0.0.1, so keep the
default --listen and need no flag). --public-url is the address the browser opens when
it is not parley's own (a proxy's https://HOST/PATH/, or a name in your certificate):
parley prints it, accepts its host and origin, and sets the cookie for its path.
docs/web.md and docs/deployment.md say more, with the nginx configuration parley is
tested with.`,
		Example: `  parley web
  parley web --agent claude --cwd ~/src/project
  parley web --no-open --port 8123
  parley web tokens add laptop
  parley web --listen 10.0.0.5 --port 8443 --tls-cert cert.pem --tls-key key.pem
  parley web --no-open --port 8123 --public-url https://dev.example/parley/`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			tuneHostGC()
			host, err := listenHost(listen)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if idle < 0 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--idle-timeout %v is negative (0 keeps conversations until parley web ends)", idle)}
			}
			if port < 0 || port > 65535 {
				return &exitError{code: exitUsage, err: fmt.Errorf("--port %d is not a port", port)}
			}
			var pub *url.URL
			if public != "" {
				if pub, err = publicURL(public); err != nil {
					return &exitError{code: exitUsage, err: fmt.Errorf("--public-url: %w", err)}
				}
			}
			tlsConfig, err := loadTLS(tlsCert, tlsKey)
			if err != nil {
				return &exitError{code: exitUsage, err: err}
			}
			if behindProxy && pub == nil {
				return &exitError{code: exitUsage, err: errors.New("--behind-proxy needs --public-url, the address the proxy serves parley at (for example --public-url https://dev.example/parley/): parley checks each request's Host and Origin against it")}
			}
			if !isLoopback(host) && tlsConfig == nil && !behindProxy {
				return &exitError{code: exitUsage, err: fmt.Errorf("--listen %s is reachable from other machines, and without TLS the token and the whole conversation cross the network in clear: "+
					"give --tls-cert FILE --tls-key FILE; or, if a reverse proxy on another host or container terminates TLS in front of parley, --behind-proxy --public-url https://HOST/PATH/ "+
					"(a proxy on this machine reaches parley on 127.0.0.1: keep the default --listen)", host)}
			}
			ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
			if err != nil {
				return &exitError{code: exitFailure, err: fmt.Errorf("listening on %s: %w (try another --port, or none for a free one)", net.JoinHostPort(host, strconv.Itoa(port)), err)}
			}
			defer ln.Close()
			srv, l, err := newACPServer(g, cmd, &af, idle, nil)
			if err != nil {
				return err
			}
			defer l.close()
			defer srv.Close()
			ctx, stop := interruptible(cmd.Context())
			defer stop()

			auth := webui.NewAuth()
			auth.UseTokens(webTokens(), g.logger)
			watchCtx, stopWatch := context.WithCancel(ctx)
			var watch sync.WaitGroup
			defer watch.Wait()
			defer stopWatch()
			watch.Go(func() { auth.Watch(watchCtx) })
			// $PARLEY_WEB_CODE_LIFETIME (a Go duration) is for tests: a code that is dead
			// before it is used.
			if d, err := time.ParseDuration(os.Getenv("PARLEY_WEB_CODE_LIFETIME")); err == nil && d > 0 {
				auth.SetCodeLifetime(d)
			}
			actual := ln.Addr().(*net.TCPAddr).Port
			hosts := webui.LoopbackHosts
			if behindProxy && isLoopback(host) {
				fmt.Fprintln(cmd.ErrOrStderr(), "parley web: --behind-proxy changes nothing on a loopback address: a proxy on this machine reaches parley there with no flag (--behind-proxy is for a proxy on another host or container, with --listen)")
			}
			if !isLoopback(host) {
				hosts = append(append([]string(nil), hosts...), host)
				how := "over TLS"
				if tlsConfig == nil {
					how = "without TLS, for the proxy in front (--behind-proxy): let nothing but the proxy reach it"
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "parley web: WARNING: listening on %s %s, not only on this machine: whoever reaches it with a token can use your agents, and through them the files in %s\n", host, how, srv.Workspace())
			}
			scheme := "http"
			if tlsConfig != nil {
				scheme = "https"
			}
			base := scheme + "://" + net.JoinHostPort(host, strconv.Itoa(actual)) + "/"
			if pub != nil {
				// Where the proxy passes requests to (for its configuration), then the
				// address the browser opens.
				fmt.Fprintf(cmd.ErrOrStderr(), "parley web: listening on %s for %s\n", base, pub)
				base = pub.String()
			}
			stdout := &lockedWriter{w: cmd.OutOrStdout()}
			fmt.Fprintf(stdout, "%s?token=%s\n", base, auth.Token())
			fmt.Fprintf(cmd.ErrOrStderr(), "parley web: serving %s with %s; Ctrl-C stops\n", srv.Workspace(), defaultAgentName(&af))
			rotated := func(token string) {
				fmt.Fprintf(stdout, "%s?token=%s\n", base, token)
				fmt.Fprintln(cmd.ErrOrStderr(), "parley web: the page replaced the token: the address above is the one that works now")
			}
			hs := &http.Server{
				Handler:           webui.Handler(webui.Options{ACP: srv, Auth: auth, Rotated: rotated, Port: actual, Hosts: hosts, PublicURL: pub, Logger: g.logger}),
				ReadHeaderTimeout: 10 * time.Second,
				BaseContext:       func(net.Listener) context.Context { return ctx },
				TLSConfig:         tlsConfig,
				ErrorLog:          slog.NewLogLogger(g.logger.Handler(), slog.LevelDebug), // a client's failed TLS handshake is its own affair
			}
			served := make(chan error, 1)
			go func() {
				if tlsConfig != nil {
					served <- hs.ServeTLS(ln, "", "")
				} else {
					served <- hs.Serve(ln)
				}
			}()
			if !noOpen {
				// A browser's command line is there for every process of the machine to
				// read: it gets an address that works once, for a minute, not the token.
				go func() {
					if err := openInBrowser(base + "?code=" + auth.NewCode()); err != nil {
						g.logger.Info("the browser was not opened; open the address above", "error", err)
					}
				}()
			}
			select {
			case err = <-served:
			case <-ctx.Done():
			}
			shutdown, cancel := context.WithTimeout(context.Background(), 3*time.Second)
			defer cancel()
			hs.Shutdown(shutdown) // WebSocket connections end with ctx (their handlers' BaseContext)
			if err != nil && !errors.Is(err, http.ErrServerClosed) {
				return &exitError{code: exitFailure, err: err}
			}
			return nil
		},
	}
	cmd.AddCommand(newWebTokensCommand())
	af.register(cmd)
	cmd.Flags().IntVar(&port, "port", 0, "the port `N` to serve on (default: a free one)")
	cmd.Flags().DurationVar(&idle, "idle-timeout", 30*time.Minute, "close a conversation no page has shown for a `DURATION` while it had nothing to do (0: never)")
	cmd.Flags().BoolVar(&noOpen, "no-open", false, "do not open the browser; only print the address")
	cmd.Flags().StringVar(&listen, "listen", "127.0.0.1", "the address `ADDR` to serve on; anything but the loopback address is reachable by others, and wants --tls-cert or --behind-proxy")
	cmd.Flags().StringVar(&tlsCert, "tls-cert", "", "serve https with the certificate (chain) in `FILE`, PEM; with --tls-key")
	cmd.Flags().StringVar(&tlsKey, "tls-key", "", "the private key of --tls-cert, in `FILE`, PEM")
	cmd.Flags().BoolVar(&behindProxy, "behind-proxy", false, "a reverse proxy on another host or container terminates TLS in front of parley: --listen beyond loopback without TLS; needs --public-url")
	cmd.Flags().StringVar(&public, "public-url", "", "the `URL` the browser opens when it is not parley's own, such as a proxy's https://HOST/parley/: printed, its host and origin accepted, the cookie set for its path")
	return cmd
}

// loadTLS reads --tls-cert and --tls-key (both or neither; nil without them).
func loadTLS(cert, key string) (*tls.Config, error) {
	if cert == "" && key == "" {
		return nil, nil
	}
	if cert == "" || key == "" {
		return nil, errors.New("--tls-cert and --tls-key go together: give both, the certificate (chain) and its private key, in PEM files")
	}
	pair, err := tls.LoadX509KeyPair(cert, key)
	if err != nil {
		return nil, fmt.Errorf("--tls-cert %s --tls-key %s: %w (give a PEM certificate and the PEM private key it was made for)", cert, key, err)
	}
	return &tls.Config{Certificates: []tls.Certificate{pair}, MinVersion: tls.VersionTLS12}, nil
}

func defaultAgentName(f *agentFlags) string {
	if f.command != "" {
		return f.command
	}
	return f.name
}

// listenHost checks --listen: one address, not "every address" (requests must name the
// host they are for, and parley must know which that is).
func listenHost(listen string) (string, error) {
	if h, _, err := net.SplitHostPort(listen); err == nil {
		return "", fmt.Errorf("--listen %q: give the address alone (the port is --port); for example --listen %s", listen, h)
	}
	if listen == "" {
		return "", errors.New("--listen needs an address")
	}
	if ip := net.ParseIP(listen); ip != nil && ip.IsUnspecified() {
		return "", fmt.Errorf("--listen %s would serve every address of this machine; give the one the browser will use", listen)
	}
	return listen, nil
}

func isLoopback(host string) bool {
	if host == "localhost" {
		return true
	}
	ip := net.ParseIP(host)
	return ip != nil && ip.IsLoopback()
}

// lockedWriter serialises the lines written to w from several goroutines.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}
