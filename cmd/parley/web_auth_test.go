package main

// Issue 26, class 3: the web chat's token where other processes read it. The browser
// parley web starts gets a one-time address, not the token (a command line is there for
// every process of the machine to read); the token can be replaced from the page.

import (
	"bufio"
	"context"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// webServer is a running parley web.
type webServer struct {
	base, token string
	out         *bufio.Reader // stdout after the first address
	cmd         *exec.Cmd
	stderr      *strings.Builder
}

// startWeb runs parley web with args and env added, and reads the address it prints.
func startWeb(t *testing.T, env []string, args ...string) *webServer {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second) // a hang guard
	t.Cleanup(cancel)
	cmd := exec.CommandContext(ctx, self(t), append([]string{"web", "--cwd", t.TempDir()}, args...)...)
	cmd.Env = append(append(append(os.Environ(), "PARLEY_TEST_ROLE=parley"), isolatedXDG(t)...), env...)
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	s := &webServer{cmd: cmd, stderr: &strings.Builder{}, out: bufio.NewReader(stdout)}
	cmd.Stderr = s.stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
	})
	s.base, s.token = s.nextAddress(t)
	return s
}

// nextAddress reads the next address parley prints: its origin and its token.
func (s *webServer) nextAddress(t *testing.T) (base, token string) {
	t.Helper()
	line, err := s.out.ReadString('\n')
	if err != nil {
		s.cmd.Wait()
		t.Fatalf("no address: %v; stderr:\n%s", err, s.stderr.String())
	}
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil || len(u.Query().Get("token")) < 40 {
		t.Fatalf("%q: want http://127.0.0.1:PORT/?token=…", line)
	}
	return u.Scheme + "://" + u.Host, u.Query().Get("token")
}

var noRedirects = &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}

// visit GETs base+path with header and returns the response (its body closed).
func visit(t *testing.T, method, u string, header http.Header) *http.Response {
	t.Helper()
	req, err := http.NewRequest(method, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	for k, v := range header {
		req.Header[k] = v
	}
	if h := header.Get("Host"); h != "" {
		req.Host = h
	}
	resp, err := noRedirects.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp
}

// sessionCookie is the cookie a sign-in set, as a Cookie header.
func sessionCookie(t *testing.T, resp *http.Response) http.Header {
	t.Helper()
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/" || len(resp.Cookies()) != 1 {
		t.Fatalf("sign-in: %d to %q, cookies %v", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
	c := resp.Cookies()[0]
	if !c.HttpOnly || c.SameSite != http.SameSiteStrictMode || c.Path != "/" {
		t.Errorf("cookie %+v: want HttpOnly, SameSite=Strict, Path=/", c)
	}
	return http.Header{"Cookie": {c.Name + "=" + c.Value}}
}

// initializeOver opens /acp with header and protocols and has initialize answered (with
// the page's capabilities).
func initializeOver(t *testing.T, base string, header http.Header, protocols ...string) (*websocket.Conn, error) {
	t.Helper()
	ws, _, err := websocket.Dial(t.Context(), "ws"+strings.TrimPrefix(base, "http")+"/acp", &websocket.DialOptions{HTTPHeader: header, Subprotocols: protocols})
	if err != nil {
		return nil, err
	}
	t.Cleanup(func() { ws.CloseNow() })
	if err := ws.Write(t.Context(), websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"elicitation":{"form":{},"url":{}},"_meta":{"parley":{}}}}}`)); err != nil {
		return nil, err
	}
	_, msg, err := ws.Read(t.Context())
	if err != nil || !strings.Contains(string(msg), `"id":1`) || !strings.Contains(string(msg), `"result"`) {
		t.Fatalf("initialize answered %s, %v", msg, err)
	}
	return ws, nil
}

// TestWebGivesTheBrowserAOneTimeCodeNotTheToken: the browser's command line holds an
// address with a code, not the token; the code is traded once for a session cookie, then
// refused; the cookie lets the page's WebSocket in, from parley's own origin and host only.
func TestWebGivesTheBrowserAOneTimeCodeNotTheToken(t *testing.T) {
	t.Parallel()
	argv := filepath.Join(t.TempDir(), "argv")
	if err := mkfifo(argv); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	browser := writeScript(t, "browser", "#!/bin/sh\nprintf '%s\\n' \"$0\" \"$@\" > "+argv+"\n")
	s := startWeb(t, []string{"BROWSER=" + browser + " --new-window"})
	got := strings.Split(strings.TrimSpace(readFIFO(t, argv)), "\n")
	if len(got) != 3 || got[1] != "--new-window" {
		t.Fatalf("the browser ran as %q: want the script, $BROWSER's own argument, the address", got)
	}
	if strings.Contains(strings.Join(got, " "), s.token) {
		t.Fatalf("the token is on the browser's command line: %q", got)
	}
	u, err := url.Parse(got[2])
	if err != nil || u.Scheme+"://"+u.Host != s.base || u.Path != "/" || len(u.Query().Get("code")) < 40 || len(u.Query()) != 1 {
		t.Fatalf("the browser was given %q: want %s/?code=…", got[2], s.base)
	}
	cookie := sessionCookie(t, visit(t, "GET", got[2], nil))
	if strings.Contains(cookie.Get("Cookie"), s.token) || strings.Contains(cookie.Get("Cookie"), u.Query().Get("code")) {
		t.Errorf("the cookie %q holds the token or the code", cookie.Get("Cookie"))
	}
	if resp := visit(t, "GET", got[2], nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the one-time address again: %d, want 403", resp.StatusCode)
	}
	if resp := visit(t, "GET", s.base+"/", cookie); resp.StatusCode != http.StatusOK {
		t.Errorf("the page with the cookie: %d", resp.StatusCode)
	}
	own := cookie.Clone()
	own.Set("Origin", s.base)
	if _, err := initializeOver(t, s.base, own, "acp"); err != nil {
		t.Errorf("the page's WebSocket with the cookie: %v", err)
	}
	evil := cookie.Clone()
	evil.Set("Origin", "http://evil.example")
	if _, err := initializeOver(t, s.base, evil, "acp"); err == nil || !strings.Contains(err.Error(), "403") {
		t.Errorf("a WebSocket from another origin with the cookie: %v, want 403", err)
	}
	rebound := cookie.Clone()
	rebound.Set("Host", "evil.example:"+u.Port())
	if resp := visit(t, "GET", s.base+"/", rebound); resp.StatusCode != http.StatusMisdirectedRequest {
		t.Errorf("another Host with the cookie: %d, want 421", resp.StatusCode)
	}
	// The printed address still works, as often as the user opens it.
	sessionCookie(t, visit(t, "GET", s.base+"/?token="+s.token, nil))
	sessionCookie(t, visit(t, "GET", s.base+"/?token="+s.token, nil))
}

// TestWebOneTimeCodeExpires: a code not used in time is refused.
func TestWebOneTimeCodeExpires(t *testing.T) {
	t.Parallel()
	argv := filepath.Join(t.TempDir(), "argv")
	if err := mkfifo(argv); err != nil {
		t.Skip("no FIFOs here:", err)
	}
	browser := writeScript(t, "browser", "#!/bin/sh\nprintf '%s' \"$1\" > "+argv+"\n")
	s := startWeb(t, []string{"BROWSER=" + browser, "PARLEY_WEB_CODE_LIFETIME=1ns"})
	addr := readFIFO(t, argv)
	if !strings.HasPrefix(addr, s.base+"/?code=") {
		t.Fatalf("the browser was given %q", addr)
	}
	resp := visit(t, "GET", addr, nil)
	if resp.StatusCode != http.StatusForbidden || len(resp.Cookies()) != 0 {
		t.Errorf("an expired code: %d, cookies %v; want 403 and none", resp.StatusCode, resp.Cookies())
	}
}

// TestWebRotatedTokenIsRefused: the page replaces the token; parley prints the new
// address; the old token, the sessions it gave and their open WebSockets are refused at
// once; the page that asked goes on with a new session.
func TestWebRotatedTokenIsRefused(t *testing.T) {
	t.Parallel()
	s := startWeb(t, nil, "--no-open")
	page := sessionCookie(t, visit(t, "GET", s.base+"/?token="+s.token, nil))
	other := sessionCookie(t, visit(t, "GET", s.base+"/?token="+s.token, nil))
	otherWS := other.Clone()
	otherWS.Set("Origin", s.base)
	open, err := initializeOver(t, s.base, otherWS, "acp")
	if err != nil {
		t.Fatal(err)
	}
	byToken, err := initializeOver(t, s.base, nil, "acp", "parley-token."+s.token)
	if err != nil {
		t.Fatal(err)
	}

	foreign := page.Clone()
	foreign.Set("Origin", "http://evil.example")
	if resp := visit(t, "POST", s.base+"/rotate", foreign); resp.StatusCode != http.StatusForbidden {
		t.Fatalf("POST /rotate from another origin: %d, want 403", resp.StatusCode)
	}
	if resp := visit(t, "POST", s.base+"/rotate", http.Header{"Origin": {s.base}}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("POST /rotate without a session: %d, want 401", resp.StatusCode)
	}
	rotate := page.Clone()
	rotate.Set("Origin", s.base)
	resp := visit(t, "POST", s.base+"/rotate", rotate)
	if resp.StatusCode != http.StatusNoContent || len(resp.Cookies()) != 1 {
		t.Fatalf("POST /rotate: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	renewed := http.Header{"Cookie": {resp.Cookies()[0].Name + "=" + resp.Cookies()[0].Value}}
	base, token := s.nextAddress(t)
	if base != s.base || token == s.token {
		t.Fatalf("after the rotation parley printed %s/?token=%s (was %s/?token=%s)", base, token, s.base, s.token)
	}

	for what, ws := range map[string]*websocket.Conn{"cookie": open, "token": byToken} {
		_, _, err := ws.Read(t.Context())
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), "new address") {
			t.Errorf("a WebSocket let in by the old %s, after the rotation: %v", what, err)
		}
	}
	if resp := visit(t, "GET", s.base+"/?token="+s.token, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the old token: %d, want 403", resp.StatusCode)
	}
	for what, h := range map[string]http.Header{"another page's": other, "the asking page's old": page} {
		if resp := visit(t, "GET", s.base+"/", h); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s session: %d, want 401", what, resp.StatusCode)
		}
	}
	if _, err := initializeOver(t, s.base, nil, "acp", "parley-token."+s.token); err == nil || !strings.Contains(err.Error(), "401") {
		t.Errorf("the old token on /acp: %v, want 401", err)
	}
	if resp := visit(t, "GET", s.base+"/", renewed); resp.StatusCode != http.StatusOK {
		t.Errorf("the asking page's new session: %d", resp.StatusCode)
	}
	sessionCookie(t, visit(t, "GET", s.base+"/?token="+token, nil))
}
