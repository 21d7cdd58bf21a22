// Package webui serves the web chat: the page (built from web/ in the repository and
// embedded here, so the binary needs no Node) and /acp, the WebSocket over which the
// page speaks ACP to parley (internal/acpserver), one JSON-RPC message per text frame.
//
// The server is safe by construction, because any web page the user visits can reach a
// port on 127.0.0.1, and any process of the machine can read a command line:
//
//   - every path wants a session (see Auth): a visit with ?token= (the address parley
//     prints, or a named token's) or with ?code= (a one-time code, the address parley
//     gives the browser it starts) gets a fresh session secret as a cookie (HttpOnly,
//     SameSite=Strict, named for the port, Secure over TLS or behind an https PublicURL)
//     and is sent on to the address without it; /acp also takes a token as a WebSocket
//     subprotocol, since only browsers set cookies;
//   - POST /rotate (from the page, with a session of the run token) replaces the run
//     token: the old token, codes and sessions are refused from then on and their
//     WebSocket connections closed; a named token ends the same way when the file of
//     named tokens no longer has it (Auth.Watch, and a read of the file on every
//     authorisation by one);
//   - each /acp connection is served with the name of the token that let it in as its
//     acpserver.Peer, and logged (opened, closed, refused) with that name;
//   - the Host header must name the address parley listens on (127.0.0.1, localhost,
//     [::1], or the --listen host) with its port, or PublicURL's host (a reverse proxy
//     passes the browser's): a DNS rebinding attack sends another;
//   - a WebSocket's or a POST's Origin, when there is one (browsers always send it), must
//     be the page's own origin, as parley serves it or at PublicURL;
//   - the page is sent with a Content-Security-Policy that allows only its own script and
//     style (no inline script, no eval), images from data: and blob: only, connections
//     only back to parley, no frames, no forms, no remote loads of any kind.
package webui

import (
	"context"
	"embed"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"sync"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/acpserver"
)

//go:embed dist
var dist embed.FS

// Options configure the web chat's handler.
type Options struct {
	ACP  *acpserver.Server
	Auth *Auth
	// Rotated is called with the new token when the page has the token replaced (POST
	// /rotate), so the new address can be given to the user.
	Rotated func(token string)
	// Port is the port parley listens on; Hosts the host names a request may name (the
	// loopback names, and the --listen host).
	Port  int
	Hosts []string
	// PublicURL, if set, is the address clients use instead of parley's own, such as a
	// reverse proxy's https://host/parley/ (the proxy strips the path before it passes a
	// request on): its host is one more a request may name (the proxy passes the Host
	// the browser sent), its origin one more a page may come from; for a request that
	// came by it (its Host), its path is the cookie's and the sign-in's redirect's, and
	// https there makes the cookie Secure.
	PublicURL *url.URL
	Logger    *slog.Logger
}

// LoopbackHosts are the host names of the loopback address a request may use.
var LoopbackHosts = []string{"127.0.0.1", "localhost", "::1"}

// Handler serves the page and /acp.
func Handler(opts Options) http.Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &handler{opts: opts, cookie: "parley_" + strconv.Itoa(opts.Port), path: "/"}
	if u := opts.PublicURL; u != nil {
		h.path = u.Path
		if !strings.HasSuffix(h.path, "/") {
			h.path += "/"
		}
		h.publicHost = canonicalHost(u.Host, u.Scheme)
		h.publicOrigin = u.Scheme + "://" + u.Host
		h.secure = u.Scheme == "https"
	}
	assets, err := fs.Sub(dist, "dist")
	if err != nil {
		panic(err) // the embedded tree is part of the build
	}
	h.assets = http.FileServerFS(assets)
	return h
}

type handler struct {
	opts   Options
	cookie string
	assets http.Handler

	path         string // PublicURL's path, or "/"
	publicHost   string // PublicURL's host:port, or ""
	publicOrigin string // PublicURL's scheme://host, or ""
	secure       bool   // the cookie is Secure even on plain http (PublicURL is https)
}

// csp allows the page's own script and style and nothing else from anywhere.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' data: blob:; font-src 'self'; " +
	"connect-src 'self'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'"

func (h *handler) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Referrer-Policy", "no-referrer")
	hdr.Set("Cache-Control", "no-store")
	if !h.hostAllowed(r.Host) {
		http.Error(w, "parley: this address is not the one parley serves (Host "+strconv.Quote(r.Host)+")", http.StatusMisdirectedRequest)
		return
	}
	if r.URL.Path == "/" && (r.URL.Query().Has("token") || r.URL.Query().Has("code")) {
		h.signIn(w, r)
		return
	}
	if r.URL.Path == "/acp" {
		h.serveACP(w, r)
		return
	}
	g, ok := h.session(r)
	if !ok {
		http.Error(w, "parley: open the address parley printed (it carries the token)", http.StatusUnauthorized)
		return
	}
	if r.URL.Path == "/rotate" {
		h.rotate(w, r, g)
		return
	}
	if r.Method != http.MethodGet && r.Method != http.MethodHead {
		http.Error(w, "parley: method not allowed", http.StatusMethodNotAllowed)
		return
	}
	hdr.Set("Content-Security-Policy", csp)
	hdr.Set("X-Frame-Options", "DENY")
	h.assets.ServeHTTP(w, r)
}

// hostAllowed checks the Host header: one of the names parley serves, with its port.
func (h *handler) hostAllowed(hostport string) bool {
	if h.publicHost != "" && canonicalHost(hostport, h.scheme(nil)) == h.publicHost {
		return true
	}
	host, port, err := net.SplitHostPort(hostport)
	if err != nil || port != strconv.Itoa(h.opts.Port) {
		return false
	}
	for _, allowed := range h.opts.Hosts {
		if strings.EqualFold(host, allowed) {
			return true
		}
	}
	return false
}

// signIn trades the token or a one-time code for a session cookie, and sends the browser
// on to the address without them, so they stay out of its history and screenshots.
func (h *handler) signIn(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	var session string
	var ok bool
	if q.Has("token") {
		var g *grant
		if session, g, ok = h.opts.Auth.sessionForToken(q.Get("token")); !ok {
			h.opts.Logger.Info("web: sign-in refused: wrong token", "remote", remote(r))
			http.Error(w, "parley: wrong token (parley web makes a new one each time it starts, and when the page asks; a named token may have been revoked); open the address parley printed last", http.StatusForbidden)
			return
		}
		h.opts.Logger.Info("web: signed in", "token", g.name, "remote", remote(r))
	} else if session, ok = h.opts.Auth.sessionForCode(q.Get("code")); !ok {
		h.opts.Logger.Info("web: sign-in refused: the one-time code was used or expired", "remote", remote(r))
		http.Error(w, "parley: this one-time address was used already or has expired; open the address parley printed", http.StatusForbidden)
		return
	}
	h.setCookie(w, r, session)
	http.Redirect(w, r, h.pathFor(r), http.StatusSeeOther)
}

// viaPublic reports whether r came by PublicURL (its Host is PublicURL's), not to
// parley's own address directly.
func (h *handler) viaPublic(r *http.Request) bool {
	return h.publicHost != "" && canonicalHost(r.Host, h.scheme(nil)) == h.publicHost
}

// pathFor is where the page is for r: PublicURL's path when r came by it, else "/".
func (h *handler) pathFor(r *http.Request) string {
	if h.viaPublic(r) {
		return h.path
	}
	return "/"
}

func (h *handler) setCookie(w http.ResponseWriter, r *http.Request, session string) {
	http.SetCookie(w, &http.Cookie{
		Name: h.cookie, Value: session, Path: h.pathFor(r),
		HttpOnly: true, SameSite: http.SameSiteStrictMode, Secure: r.TLS != nil || h.secure && h.viaPublic(r),
	})
}

// session reports whether the request carries a live session cookie, and its grant.
func (h *handler) session(r *http.Request) (*grant, bool) {
	c, err := r.Cookie(h.cookie)
	if err != nil {
		return nil, false
	}
	return h.opts.Auth.sessionOK(c.Value)
}

// ownOrigin reports whether the request comes from parley's own page (as parley serves
// it, or at PublicURL), or from no page at all (no Origin: not a browser's cross-site
// request).
func (h *handler) ownOrigin(r *http.Request) bool {
	origin := r.Header.Get("Origin")
	return origin == "" || origin == h.scheme(r)+"://"+r.Host || (h.publicOrigin != "" && strings.EqualFold(origin, h.publicOrigin))
}

// scheme is the request's own scheme (nil: parley's).
func (h *handler) scheme(r *http.Request) string {
	if r != nil && r.TLS != nil {
		return "https"
	}
	if r == nil && h.opts.PublicURL != nil {
		return h.opts.PublicURL.Scheme
	}
	return "http"
}

// canonicalHost is hostport with scheme's default port when it names none, lower case.
func canonicalHost(hostport, scheme string) string {
	if _, _, err := net.SplitHostPort(hostport); err != nil {
		port := "80"
		if scheme == "https" {
			port = "443"
		}
		hostport = net.JoinHostPort(strings.Trim(hostport, "[]"), port)
	}
	return strings.ToLower(hostport)
}

// remote is who sent r, for the log: the peer's address, and what a proxy says it
// forwarded for (not trusted for anything else).
func remote(r *http.Request) string {
	if f := r.Header.Get("X-Forwarded-For"); f != "" {
		return r.RemoteAddr + " for " + f
	}
	return r.RemoteAddr
}

// rotate replaces the token at the page's request. The page that asked gets a session
// under the new token; every other session, and every connection, ends.
func (h *handler) rotate(w http.ResponseWriter, r *http.Request, g *grant) {
	if r.Method != http.MethodPost {
		http.Error(w, "parley: /rotate wants POST", http.StatusMethodNotAllowed)
		return
	}
	if g.sum != "" {
		// The run token is the owner's: a device or person let in by a named token does
		// not lock the owner out.
		http.Error(w, fmt.Sprintf("parley: this page was opened with the named token %q, which cannot replace parley web's own token; a named token is revoked with parley web tokens revoke NAME", g.name), http.StatusForbidden)
		return
	}
	if !h.ownOrigin(r) {
		http.Error(w, "parley: only parley's own page may replace the token", http.StatusForbidden)
		return
	}
	tok := h.opts.Auth.Rotate()
	h.opts.Logger.Info("web: the page replaced the run token; what the old one let in ends", "remote", remote(r))
	h.setCookie(w, r, h.opts.Auth.newSession())
	if h.opts.Rotated != nil {
		h.opts.Rotated(tok)
	}
	w.WriteHeader(http.StatusNoContent)
}

// tokenProtocol is the WebSocket subprotocol that carries the token: parley-token.TOKEN.
const tokenProtocol = "parley-token."

func (h *handler) serveACP(w http.ResponseWriter, r *http.Request) {
	g, authorized := h.session(r)
	for _, p := range subprotocols(r) {
		if tok, ok := strings.CutPrefix(p, tokenProtocol); ok {
			if pg, ok := h.opts.Auth.tokenOK(tok); ok {
				g, authorized = pg, true
			}
		}
	}
	log := h.opts.Logger
	if !authorized {
		log.Info("web: connection refused: no token, or a wrong or revoked one", "remote", remote(r))
		http.Error(w, "parley: /acp wants the token (a named token may have been revoked)", http.StatusUnauthorized)
		return
	}
	if !h.ownOrigin(r) {
		log.Info("web: connection refused: from another site's page", "token", g.name, "origin", r.Header.Get("Origin"), "remote", remote(r))
		http.Error(w, fmt.Sprintf("parley: a WebSocket from %q is not parley's own page", r.Header.Get("Origin")), http.StatusForbidden)
		return
	}
	ws, err := websocket.Accept(w, r, &websocket.AcceptOptions{
		Subprotocols: []string{"acp"},
		// The Origin was checked above against the Host, which was checked against the
		// names parley serves.
		InsecureSkipVerify: true,
	})
	if err != nil {
		return // Accept has answered
	}
	ws.SetReadLimit(64 << 20)
	stream := newWSStream(ws)
	log.Info("web: connection opened", "token", g.name, "remote", remote(r))
	defer log.Info("web: connection closed", "token", g.name, "remote", remote(r))
	// A rotation or revocation ends the connection: what let it in is refused from then on.
	ctx, cancel := context.WithCancel(acpserver.WithPeer(r.Context(), acpserver.Peer{Name: g.name, Remote: true}))
	var watch sync.WaitGroup
	defer watch.Wait()
	defer cancel()
	watch.Go(func() {
		select {
		case <-g.revoked:
			stream.closeWith(websocket.StatusPolicyViolation, g.reason)
			cancel()
		case <-ctx.Done():
		}
	})
	if err := h.opts.ACP.Serve(ctx, stream); err != nil {
		h.opts.Logger.Debug("web chat connection ended", "error", err)
	}
	stream.Close()
}

// subprotocols lists the WebSocket subprotocols the client offered.
func subprotocols(r *http.Request) []string {
	var out []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for _, p := range strings.Split(h, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}
