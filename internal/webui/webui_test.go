package webui

import (
	"context"
	"net"
	"net/http"
	"net/http/cookiejar"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/parley-acp/parley/internal/acpserver"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/permission"
	"github.com/parley-acp/parley/internal/workspace"
)

// noAgents knows no agent: these tests never get as far as starting one.
type noAgents struct{}

func (noAgents) AgentOptions(string, *workspace.Roots) (conversation.AgentOptions, error) {
	return conversation.AgentOptions{}, net.ErrClosed
}
func (noAgents) Policy(string, *workspace.Roots) *permission.Policy { return &permission.Policy{} }
func (noAgents) Agents() []acpserver.AgentEntry                     { return nil }
func (noAgents) Changes(string, *workspace.Roots) *changes.Record   { return nil }

// server is the handler served on 127.0.0.1.
type server struct {
	base    string
	port    int
	auth    *Auth
	rotated chan string // the tokens Rotated was given
}

// serve starts the handler on 127.0.0.1 and returns its address.
func serve(t *testing.T) (base string, port int) {
	t.Helper()
	s := serveAuth(t)
	token = s.auth.Token()
	return s.base, s.port
}

// token is the token of the server serve started last.
var token string

func serveAuth(t *testing.T) *server { t.Helper(); return serveWith(t, nil) }

// serveWith is serveAuth with the Options changed by opt (on the Auth it was given).
func serveWith(t *testing.T, opt func(*Options)) *server {
	t.Helper()
	acp, err := acpserver.New(acpserver.Options{Launcher: noAgents{}, DefaultAgent: "none", Workspace: t.TempDir()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(acp.Close)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	s := &server{port: ln.Addr().(*net.TCPAddr).Port, auth: NewAuth(), rotated: make(chan string, 8)}
	s.base = "http://127.0.0.1:" + strconv.Itoa(s.port)
	rotated := func(tok string) { s.rotated <- tok }
	opts := Options{ACP: acp, Auth: s.auth, Rotated: rotated, Port: s.port, Hosts: LoopbackHosts}
	if opt != nil {
		opt(&opts)
	}
	srv := httptest.NewUnstartedServer(Handler(opts))
	srv.Listener.Close()
	srv.Listener = ln
	srv.Start()
	t.Cleanup(srv.Close)
	return s
}

func noRedirect(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }

func get(t *testing.T, c *http.Client, u string, header http.Header) *http.Response {
	t.Helper()
	req, _ := http.NewRequest("GET", u, nil)
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

func TestTheTokenIsRequiredOnEveryPath(t *testing.T) {
	base, _ := serve(t)
	c := &http.Client{CheckRedirect: noRedirect}
	for _, path := range []string{"/", "/app.js", "/style.css", "/index.html", "/acp", "/nothing"} {
		if resp := get(t, c, base+path, nil); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s without the token: %d, want 401", path, resp.StatusCode)
		}
	}
	if resp := get(t, c, base+"/?token=wrong", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a wrong token: %d, want 403", resp.StatusCode)
	}
	// The right token sets the cookie and sends the browser on to the address without it.
	resp := get(t, c, base+"/?token="+token, nil)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" {
		t.Fatalf("the token: %d to %q", resp.StatusCode, resp.Header.Get("Location"))
	}
	cookie := resp.Cookies()[0]
	// The cookie is a session of its own, not the token: the browser's store never holds it.
	if !cookie.HttpOnly || cookie.SameSite != http.SameSiteStrictMode || cookie.Path != "/" || cookie.Secure || cookie.Value == token || len(cookie.Value) < 40 {
		t.Errorf("cookie %+v", cookie)
	}
	jar, _ := cookiejar.New(nil)
	u, _ := url.Parse(base)
	jar.SetCookies(u, []*http.Cookie{cookie})
	withCookie := &http.Client{Jar: jar, CheckRedirect: noRedirect}
	page := get(t, withCookie, base+"/", nil)
	if page.StatusCode != 200 {
		t.Fatalf("with the cookie: %d", page.StatusCode)
	}
	csp := page.Header.Get("Content-Security-Policy")
	for _, want := range []string{"default-src 'none'", "script-src 'self'", "connect-src 'self'", "frame-ancestors 'none'"} {
		if !strings.Contains(csp, want) {
			t.Errorf("CSP %q lacks %q", csp, want)
		}
	}
	if strings.Contains(csp, "unsafe-inline") || strings.Contains(csp, "unsafe-eval") || strings.Contains(csp, "http") {
		t.Errorf("CSP %q allows inline or remote code", csp)
	}
}

// A page on another name that resolves to 127.0.0.1 (DNS rebinding) names its own host.
func TestAHostThatIsNotParleysIsRefused(t *testing.T) {
	base, port := serve(t)
	c := &http.Client{CheckRedirect: noRedirect}
	p := strconv.Itoa(port)
	for _, host := range []string{"evil.example:" + p, "127.0.0.1:1", "localhost.evil.example:" + p, "127.0.0.2:" + p} {
		resp := get(t, c, base+"/?token="+token, http.Header{"Host": {host}})
		if resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: %d, want 421", host, resp.StatusCode)
		}
	}
	for _, host := range []string{"localhost:" + p, "127.0.0.1:" + p, "[::1]:" + p} {
		resp := get(t, c, base+"/?token="+token, http.Header{"Host": {host}})
		if resp.StatusCode != http.StatusSeeOther {
			t.Errorf("Host %s: %d, want 303", host, resp.StatusCode)
		}
	}
}

// signIn visits base with query (token=… or code=…) and returns the session cookie
// parley set.
func signIn(t *testing.T, base, query string) *http.Cookie {
	t.Helper()
	resp := get(t, &http.Client{CheckRedirect: noRedirect}, base+"/?"+query, nil)
	if resp.StatusCode != http.StatusSeeOther || len(resp.Cookies()) != 1 {
		t.Fatalf("?%s: %d, cookies %v", query, resp.StatusCode, resp.Cookies())
	}
	return resp.Cookies()[0]
}

func dial(t *testing.T, base string, header http.Header, protocols ...string) (*websocket.Conn, *http.Response, error) {
	t.Helper()
	ws, resp, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(base, "http")+"/acp", &websocket.DialOptions{HTTPHeader: header, Subprotocols: protocols})
	if ws != nil {
		t.Cleanup(func() { ws.CloseNow() })
	}
	return ws, resp, err
}

func TestTheWebSocketWantsTheTokenAndParleysOrigin(t *testing.T) {
	base, _ := serve(t)
	cookie := http.Header{"Cookie": {signIn(t, base, "token="+token).String()}}
	if _, resp, err := dial(t, base, nil, "acp"); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("no token: %v", err)
	}
	if _, resp, err := dial(t, base, nil, "acp", tokenProtocol+"wrong"); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("a wrong token: %v", err)
	}
	evil := cookie.Clone()
	evil.Set("Origin", "http://evil.example")
	if _, resp, err := dial(t, base, evil, "acp"); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("another origin: %v", err)
	}
	ok := cookie.Clone()
	ok.Set("Origin", base)
	for _, h := range []http.Header{ok, nil} {
		protocols := []string{"acp"}
		if h == nil {
			protocols = []string{"acp", tokenProtocol + token} // a client that cannot set cookies
		}
		ws, _, err := dial(t, base, h, protocols...)
		if err != nil {
			t.Fatalf("parley's own page: %v", err)
		}
		if ws.Subprotocol() != "acp" {
			t.Errorf("subprotocol %q", ws.Subprotocol())
		}
		// One JSON-RPC message per text frame: initialize is answered.
		ctx := context.Background()
		if err := ws.Write(ctx, websocket.MessageText, []byte("{\n \"jsonrpc\": \"2.0\", \"id\": 1, \"method\": \"initialize\", \"params\": {\"protocolVersion\": 1}\n}")); err != nil {
			t.Fatal(err)
		}
		_, msg, err := ws.Read(ctx)
		if err != nil || !strings.Contains(string(msg), `"id":1`) || !strings.Contains(string(msg), `"loadSession":true`) {
			t.Errorf("initialize answered %s, %v", msg, err)
		}
	}
}
