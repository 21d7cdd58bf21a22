// Package webui serves the web chat: the page (built from web/ in the repository and
// embedded here, so the binary needs no Node) and /acp, the WebSocket over which the
// page speaks ACP to parley (internal/acpserver), one JSON-RPC message per text frame.
//
// The server is safe by construction, because any web page the user visits can reach a
// port on 127.0.0.1:
//
//   - every path wants the token, an unguessable secret in the address parley prints: a
//     visit with ?token= sets it as a cookie (HttpOnly, SameSite=Strict, named for the
//     port) and sends the browser on to the address without it; /acp also takes it as a
//     WebSocket subprotocol, since browsers cannot set a WebSocket's headers;
//   - the Host header must name the address parley listens on (127.0.0.1, localhost,
//     [::1], or the --listen host) with its port: a DNS rebinding attack sends another;
//   - a WebSocket's Origin, when there is one (browsers always send it), must be the page's
//     own origin;
//   - the page is sent with a Content-Security-Policy that allows only its own script and
//     style (no inline script, no eval), images from data: and blob: only, connections
//     only back to parley, no frames, no forms, no remote loads of any kind.
package webui

import (
	"crypto/rand"
	"crypto/subtle"
	"embed"
	"encoding/base64"
	"fmt"
	"io/fs"
	"log/slog"
	"net"
	"net/http"
	"strconv"
	"strings"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/acpserver"
)

//go:embed dist
var dist embed.FS

// Options configure the web chat's handler.
type Options struct {
	ACP   *acpserver.Server
	Token string
	// Port is the port parley listens on; Hosts the host names a request may name (the
	// loopback names, and the --listen host).
	Port   int
	Hosts  []string
	Logger *slog.Logger
}

// NewToken returns a fresh token: 32 random bytes.
func NewToken() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// LoopbackHosts are the host names of the loopback address a request may use.
var LoopbackHosts = []string{"127.0.0.1", "localhost", "::1"}

// Handler serves the page and /acp.
func Handler(opts Options) http.Handler {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	h := &handler{opts: opts, cookie: "parley_" + strconv.Itoa(opts.Port)}
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
	if tok := r.URL.Query().Get("token"); tok != "" && r.URL.Path == "/" {
		if !h.tokenOK(tok) {
			http.Error(w, "parley: wrong token; open the address parley printed", http.StatusForbidden)
			return
		}
		http.SetCookie(w, &http.Cookie{Name: h.cookie, Value: tok, Path: "/", HttpOnly: true, SameSite: http.SameSiteStrictMode})
		// On to the address without the token, so it stays out of history and screenshots.
		http.Redirect(w, r, "/", http.StatusSeeOther)
		return
	}
	if r.URL.Path == "/acp" {
		h.serveACP(w, r)
		return
	}
	if !h.cookieOK(r) {
		http.Error(w, "parley: open the address parley printed (it carries the token)", http.StatusUnauthorized)
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

func (h *handler) tokenOK(tok string) bool {
	return subtle.ConstantTimeCompare([]byte(tok), []byte(h.opts.Token)) == 1
}

func (h *handler) cookieOK(r *http.Request) bool {
	c, err := r.Cookie(h.cookie)
	return err == nil && h.tokenOK(c.Value)
}

// tokenProtocol is the WebSocket subprotocol that carries the token: parley-token.TOKEN.
const tokenProtocol = "parley-token."

func (h *handler) serveACP(w http.ResponseWriter, r *http.Request) {
	authorized := h.cookieOK(r)
	for _, p := range subprotocols(r) {
		if tok, ok := strings.CutPrefix(p, tokenProtocol); ok && h.tokenOK(tok) {
			authorized = true
		}
	}
	if !authorized {
		http.Error(w, "parley: /acp wants the token", http.StatusUnauthorized)
		return
	}
	if origin := r.Header.Get("Origin"); origin != "" && origin != "http://"+r.Host {
		http.Error(w, fmt.Sprintf("parley: a WebSocket from %q is not parley's own page", origin), http.StatusForbidden)
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
	if err := h.opts.ACP.Serve(r.Context(), stream); err != nil {
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
