package webui

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// The file keeps names, hashes and times, never a token; it is the user's alone.
func TestNamedTokensAreKeptAsHashes(t *testing.T) {
	tokens := NewTokens(filepath.Join(t.TempDir(), "parley", TokensFile))
	now := time.Date(2026, 12, 2, 6, 0, 0, 0, time.UTC)
	laptop, err := tokens.Add("laptop", now)
	if err != nil {
		t.Fatal(err)
	}
	phone, err := tokens.Add("ana@team", now.Add(time.Hour))
	if err != nil {
		t.Fatal(err)
	}
	if laptop == phone || len(laptop) < 40 {
		t.Fatalf("tokens %q, %q", laptop, phone)
	}
	if _, err := tokens.Add("laptop", now); err == nil || !strings.Contains(err.Error(), "revoke it first") {
		t.Errorf("the same name again: %v", err)
	}
	for _, bad := range []string{"", RunTokenName, "a b", "-x", "x/y", strings.Repeat("a", 65)} {
		if _, err := tokens.Add(bad, now); err == nil {
			t.Errorf("name %q was taken", bad)
		}
	}
	data, err := os.ReadFile(tokens.Path())
	if err != nil {
		t.Fatal(err)
	}
	if bytes.Contains(data, []byte(laptop)) || bytes.Contains(data, []byte(phone)) || !bytes.Contains(data, []byte(hashToken(laptop))) {
		t.Errorf("the file holds a token, or not its hash:\n%s", data)
	}
	if fi, _ := os.Stat(tokens.Path()); runtime.GOOS != "windows" && fi.Mode().Perm() != 0o600 {
		t.Errorf("the file's mode is %v, want 0600", fi.Mode().Perm())
	}
	list, err := tokens.List()
	if err != nil || len(list) != 2 || list[0].Name != "laptop" || !list[0].Created.Equal(now) || !list[0].LastUsed.IsZero() || list[1].Name != "ana@team" {
		t.Errorf("list: %+v, %v", list, err)
	}
	if err := tokens.Revoke("laptop"); err != nil {
		t.Fatal(err)
	}
	if err := tokens.Revoke("laptop"); !errors.Is(err, ErrNoToken) {
		t.Errorf("revoking it again: %v", err)
	}
	if list, _ := tokens.List(); len(list) != 1 || list[0].Name != "ana@team" {
		t.Errorf("after the revocation: %+v", list)
	}
	if leftovers, _ := filepath.Glob(tokens.Path() + ".*[0-9]"); len(leftovers) != 0 {
		t.Errorf("temporary files left: %v", leftovers)
	}
}

// Writers from many processes (here goroutines: the lock is on the file, not in memory)
// never lose each other's changes.
func TestNamedTokenChangesAreNeverLost(t *testing.T) {
	path := filepath.Join(t.TempDir(), TokensFile)
	var wg sync.WaitGroup
	for i := range 8 {
		wg.Go(func() {
			if _, err := NewTokens(path).Add("device-"+string(rune('a'+i)), time.Now()); err != nil {
				t.Error(err)
			}
		})
	}
	wg.Wait()
	if list, err := NewTokens(path).List(); err != nil || len(list) != 8 {
		t.Errorf("%d tokens after 8 adds at once, %v", len(list), err)
	}
}

// logBuffer is a slog handler's output, safe to read while the server writes.
type logBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *logBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *logBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveNamed serves with the named tokens of a fresh file; watch says whether the file
// is watched (the test without it proves the re-read on every authorisation).
func serveNamed(t *testing.T, watch bool) (*server, *Tokens, *logBuffer) {
	t.Helper()
	tokens := NewTokens(filepath.Join(t.TempDir(), TokensFile))
	logs := &logBuffer{}
	logger := slog.New(slog.NewTextHandler(logs, nil))
	s := serveWith(t, func(o *Options) {
		o.Auth.UseTokens(tokens, logger)
		o.Logger = logger
	})
	if watch {
		// No help from the poll: the watch alone must see the change.
		s.auth.poll = time.Hour
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		wg.Go(func() { s.auth.Watch(ctx) })
		t.Cleanup(func() { cancel(); wg.Wait() })
	}
	return s, tokens, logs
}

// A revoked named token is refused at once on every path: the address, the sessions
// minted from it, new WebSockets, and the WebSockets it let in already (closed, saying
// why); the run token and the other named tokens go on.
func TestARevokedNamedTokenEndsEverywhere(t *testing.T) {
	s, tokens, logs := serveNamed(t, true)
	c := &http.Client{CheckRedirect: noRedirect}
	laptop, _ := tokens.Add("laptop", time.Now())
	phone, _ := tokens.Add("phone", time.Now())
	cookie := signIn(t, s.base, "token="+laptop)
	byCookie, _, err := dial(t, s.base, http.Header{"Cookie": {cookie.String()}, "Origin": {s.base}}, "acp")
	if err != nil {
		t.Fatal(err)
	}
	byToken, _, err := dial(t, s.base, nil, "acp", tokenProtocol+laptop)
	if err != nil {
		t.Fatal(err)
	}
	other, _, err := dial(t, s.base, nil, "acp", tokenProtocol+phone)
	if err != nil {
		t.Fatal(err)
	}
	run, _, err := dial(t, s.base, nil, "acp", tokenProtocol+s.auth.Token())
	if err != nil {
		t.Fatal(err)
	}
	if list, _ := tokens.List(); list[0].LastUsed.IsZero() {
		t.Error("the laptop's token was used, its last use is not in the file")
	}

	revokedAt := time.Now()
	if err := tokens.Revoke("laptop"); err != nil {
		t.Fatal(err)
	}
	guard, cancel := context.WithTimeout(context.Background(), 10*time.Second) // a hang guard: the watch says at once
	defer cancel()
	for what, ws := range map[string]*websocket.Conn{"cookie": byCookie, "token": byToken} {
		_, _, err := ws.Read(guard)
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), "the token laptop was revoked") {
			t.Errorf("a WebSocket let in by the revoked token's %s: %v", what, err)
		}
	}
	t.Logf("from the revocation written to its connections closed: %v", time.Since(revokedAt))
	if resp := get(t, c, s.base+"/", http.Header{"Cookie": {cookie.String()}}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token's session: %d, want 401", resp.StatusCode)
	}
	if resp := get(t, c, s.base+"/?token="+laptop, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the revoked token: %d, want 403", resp.StatusCode)
	}
	if _, resp, err := dial(t, s.base, nil, "acp", tokenProtocol+laptop); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token on /acp: %v", err)
	}
	for what, ws := range map[string]*websocket.Conn{"phone": other, "run": run} {
		ctx := context.Background()
		err := ws.Write(ctx, websocket.MessageText, []byte(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`))
		if _, msg, rerr := ws.Read(ctx); err != nil || rerr != nil || !strings.Contains(string(msg), `"id":1`) {
			t.Errorf("the %s token's connection after another was revoked: %v, %v", what, err, rerr)
		}
	}
	signIn(t, s.base, "token="+phone)
	log := logs.String()
	for _, want := range []string{`connection opened" token=laptop`, `connection opened" token=phone`, `connection opened" token=run`, `revoked; its sessions and connections end" token=laptop`, `connection refused`} {
		if !strings.Contains(log, want) {
			t.Errorf("the log lacks %q:\n%s", want, log)
		}
	}
}

// Without word from the watch, the next authorisation reads the file: a revoked token's
// session and address are refused all the same.
func TestARevocationIsSeenWithoutTheWatch(t *testing.T) {
	s, tokens, _ := serveNamed(t, false)
	c := &http.Client{CheckRedirect: noRedirect}
	laptop, _ := tokens.Add("laptop", time.Now())
	cookie := signIn(t, s.base, "token="+laptop)
	ws, _, err := dial(t, s.base, nil, "acp", tokenProtocol+laptop)
	if err != nil {
		t.Fatal(err)
	}
	tokens.Revoke("laptop")
	if resp := get(t, c, s.base+"/", http.Header{"Cookie": {cookie.String()}}); resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the revoked token's session: %d, want 401", resp.StatusCode)
	}
	// That read ended the token's open connections too.
	if _, _, err := ws.Read(context.Background()); websocket.CloseStatus(err) != websocket.StatusPolicyViolation {
		t.Errorf("its WebSocket: %v", err)
	}
	if resp := get(t, c, s.base+"/?token="+laptop, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the revoked token: %d, want 403", resp.StatusCode)
	}
}

// A page opened with a named token cannot replace the run token (and lock the owner
// out); the owner's rotation leaves the named tokens' sessions alone.
func TestRotationIsTheRunTokensOnly(t *testing.T) {
	s, tokens, _ := serveNamed(t, false)
	c := &http.Client{CheckRedirect: noRedirect}
	laptop, _ := tokens.Add("laptop", time.Now())
	named := signIn(t, s.base, "token="+laptop)
	req, _ := http.NewRequest("POST", s.base+"/rotate", nil)
	req.Header.Set("Cookie", named.String())
	req.Header.Set("Origin", s.base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusForbidden || len(s.rotated) != 0 {
		t.Fatalf("POST /rotate from a named token's page: %d (rotated %d)", resp.StatusCode, len(s.rotated))
	}
	owner := signIn(t, s.base, "token="+s.auth.Token())
	req, _ = http.NewRequest("POST", s.base+"/rotate", nil)
	req.Header.Set("Cookie", owner.String())
	req.Header.Set("Origin", s.base)
	if resp, err = c.Do(req); err != nil || resp.StatusCode != http.StatusNoContent {
		t.Fatalf("the owner's POST /rotate: %v, %v", resp, err)
	}
	if resp := get(t, c, s.base+"/", http.Header{"Cookie": {named.String()}}); resp.StatusCode != http.StatusOK {
		t.Errorf("the named token's session after a rotation: %d, want 200", resp.StatusCode)
	}
}

// Behind a reverse proxy at https://proxy.example/parley/ (which strips the prefix and
// passes the browser's Host): the proxy's host is allowed, its origin is the page's, the
// cookie is for the prefix and Secure, the sign-in sends the browser to the prefix.
func TestBehindAProxyUnderAPrefix(t *testing.T) {
	public, _ := url.Parse("https://proxy.example/parley/")
	s := serveWith(t, func(o *Options) { o.PublicURL = public })
	c := &http.Client{CheckRedirect: noRedirect}
	proxied := http.Header{"Host": {"proxy.example"}}
	resp := get(t, c, s.base+"/?token="+s.auth.Token(), proxied)
	if resp.StatusCode != http.StatusSeeOther || resp.Header.Get("Location") != "/parley/" || len(resp.Cookies()) != 1 {
		t.Fatalf("sign-in through the proxy: %d to %q, %v", resp.StatusCode, resp.Header.Get("Location"), resp.Cookies())
	}
	cookie := resp.Cookies()[0]
	if cookie.Path != "/parley/" || !cookie.Secure || !cookie.HttpOnly {
		t.Errorf("cookie %+v: want Path=/parley/, Secure, HttpOnly", cookie)
	}
	withCookie := http.Header{"Host": {"proxy.example:443"}, "Cookie": {cookie.Name + "=" + cookie.Value}}
	if resp := get(t, c, s.base+"/app.js", withCookie); resp.StatusCode != http.StatusOK {
		t.Errorf("the page's script through the proxy: %d", resp.StatusCode)
	}
	for _, host := range []string{"proxy.example:8443", "evil.example"} {
		if resp := get(t, c, s.base+"/", http.Header{"Host": {host}}); resp.StatusCode != http.StatusMisdirectedRequest {
			t.Errorf("Host %s: %d, want 421", host, resp.StatusCode)
		}
	}
	// At parley's own address, not by the proxy, a sign-in works as it always did.
	direct := get(t, c, s.base+"/?token="+s.auth.Token(), nil)
	if direct.Header.Get("Location") != "/" || len(direct.Cookies()) != 1 || direct.Cookies()[0].Path != "/" || direct.Cookies()[0].Secure {
		t.Errorf("a sign-in at parley's own address: to %q, cookies %v", direct.Header.Get("Location"), direct.Cookies())
	}
	h := http.Header{"Cookie": {cookie.Name + "=" + cookie.Value}, "Origin": {"https://proxy.example"}}
	if _, _, err := dial(t, s.base, h, "acp"); err != nil {
		t.Errorf("a WebSocket from the proxied page: %v", err)
	}
	h.Set("Origin", "https://evil.example")
	if _, resp, err := dial(t, s.base, h, "acp"); err == nil || resp.StatusCode != http.StatusForbidden {
		t.Errorf("a WebSocket from another site: %v", err)
	}
}
