package webui

import (
	"context"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
)

// A one-time code lets one browser in, once, within CodeLifetime.
func TestAOneTimeCodeWorksOnceAndExpires(t *testing.T) {
	s := serveAuth(t)
	c := &http.Client{CheckRedirect: noRedirect}
	code := s.auth.NewCode()
	if code == s.auth.Token() || len(code) < 40 {
		t.Fatalf("code %q", code)
	}
	cookie := signIn(t, s.base, "code="+code)
	if resp := get(t, c, s.base+"/", http.Header{"Cookie": {cookie.String()}}); resp.StatusCode != http.StatusOK {
		t.Errorf("the session the code was traded for: %d", resp.StatusCode)
	}
	if resp := get(t, c, s.base+"/?code="+code, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("the code again: %d, want 403", resp.StatusCode)
	}
	if resp := get(t, c, s.base+"/?code=", nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("an empty code: %d, want 403", resp.StatusCode)
	}
	if resp := get(t, c, s.base+"/?token="+code, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a code as the token: %d, want 403", resp.StatusCode)
	}

	now := time.Now()
	s.auth.mu.Lock()
	s.auth.now = func() time.Time { return now }
	s.auth.mu.Unlock()
	late := s.auth.NewCode()
	s.auth.mu.Lock()
	s.auth.now = func() time.Time { return now.Add(CodeLifetime) }
	s.auth.mu.Unlock()
	if resp := get(t, c, s.base+"/?code="+late, nil); resp.StatusCode != http.StatusForbidden {
		t.Errorf("a code used %v after it was made: %d, want 403", CodeLifetime, resp.StatusCode)
	}
}

// Codes never pile up: only the newest are kept.
func TestCodesAndSessionsAreBounded(t *testing.T) {
	a := NewAuth()
	first := a.NewCode()
	for range maxCodes {
		a.NewCode()
	}
	kept := len(a.codes)
	if _, ok := a.sessionForCode(first); ok || kept != maxCodes {
		t.Errorf("%d codes kept, the first still good: %v", kept, ok)
	}
	for range maxSessions + 10 {
		a.newSession()
	}
	if len(a.sessions) != maxSessions {
		t.Errorf("%d sessions kept", len(a.sessions))
	}
}

// The page replaces the token: the old token, its codes and sessions are refused, its
// WebSocket connections closed; the page that asked has a session under the new one.
func TestRotationRefusesWhatTheOldTokenLetIn(t *testing.T) {
	s := serveAuth(t)
	c := &http.Client{CheckRedirect: noRedirect}
	old := s.auth.Token()
	code := s.auth.NewCode()
	page := signIn(t, s.base, "token="+old)
	other := signIn(t, s.base, "token="+old)
	ws, _, err := dial(t, s.base, http.Header{"Cookie": {other.String()}, "Origin": {s.base}}, "acp")
	if err != nil {
		t.Fatal(err)
	}
	byToken, _, err := dial(t, s.base, nil, "acp", tokenProtocol+old)
	if err != nil {
		t.Fatal(err)
	}

	req, _ := http.NewRequest("POST", s.base+"/rotate", nil)
	req.Header.Set("Cookie", page.String())
	req.Header.Set("Origin", s.base)
	resp, err := c.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusNoContent || len(resp.Cookies()) != 1 {
		t.Fatalf("POST /rotate: %d, cookies %v", resp.StatusCode, resp.Cookies())
	}
	fresh := <-s.rotated
	if fresh == old || fresh != s.auth.Token() {
		t.Errorf("rotated to %q (the token is %q, was %q)", fresh, s.auth.Token(), old)
	}
	for _, conn := range []*websocket.Conn{ws, byToken} {
		_, _, err := conn.Read(context.Background())
		if websocket.CloseStatus(err) != websocket.StatusPolicyViolation || !strings.Contains(err.Error(), "token was replaced") {
			t.Errorf("an open connection after the rotation: %v", err)
		}
	}
	for what, h := range map[string]http.Header{"the old session": {"Cookie": {other.String()}}, "the rotating page's old session": {"Cookie": {page.String()}}} {
		if resp := get(t, c, s.base+"/", h); resp.StatusCode != http.StatusUnauthorized {
			t.Errorf("%s: %d, want 401", what, resp.StatusCode)
		}
	}
	for _, q := range []string{"token=" + old, "code=" + code} {
		if resp := get(t, c, s.base+"/?"+q, nil); resp.StatusCode != http.StatusForbidden {
			t.Errorf("?%s after the rotation: %d, want 403", q, resp.StatusCode)
		}
	}
	if _, resp, err := dial(t, s.base, nil, "acp", tokenProtocol+old); err == nil || resp.StatusCode != http.StatusUnauthorized {
		t.Errorf("the old token on /acp: %v", err)
	}
	if resp := get(t, c, s.base+"/", http.Header{"Cookie": {resp.Cookies()[0].String()}}); resp.StatusCode != http.StatusOK {
		t.Errorf("the rotating page's new session: %d", resp.StatusCode)
	}
	signIn(t, s.base, "token="+fresh)
}

// Only parley's own page, with its session, replaces the token, and only by POST.
func TestRotateWantsTheSessionParleysOriginAndPost(t *testing.T) {
	s := serveAuth(t)
	c := &http.Client{CheckRedirect: noRedirect}
	session := signIn(t, s.base, "token="+s.auth.Token())
	for _, tc := range []struct {
		what, method string
		header       http.Header
		want         int
	}{
		{"no session", "POST", http.Header{"Origin": {s.base}}, http.StatusUnauthorized},
		{"another site", "POST", http.Header{"Cookie": {session.String()}, "Origin": {"http://evil.example"}}, http.StatusForbidden},
		{"GET", "GET", http.Header{"Cookie": {session.String()}, "Origin": {s.base}}, http.StatusMethodNotAllowed},
	} {
		req, _ := http.NewRequest(tc.method, s.base+"/rotate", nil)
		req.Header = tc.header
		resp, err := c.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != tc.want {
			t.Errorf("%s: %d, want %d", tc.what, resp.StatusCode, tc.want)
		}
	}
	if len(s.rotated) != 0 {
		t.Error("the token was replaced")
	}
	signIn(t, s.base, "token="+s.auth.Token())
}
