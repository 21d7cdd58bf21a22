package webui

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"sync"
	"time"
)

// Auth holds what lets a browser in: the token, one-time codes and the sessions traded
// for either.
//
//   - The token is the long-lived secret of the address parley prints for the user to
//     copy. It lives only in parley's memory and on its stdout, never on a command line
//     (which any process of the machine reads in /proc) or in a file.
//   - A one-time code is what parley gives the browser it starts itself: that address is
//     on the browser's command line, so the code works once, for CodeLifetime, and then
//     never again.
//   - A session is what a visit with either gets instead, as a cookie: a fresh secret, so
//     the token never sits in the browser's cookie store.
//
// Rotate replaces the token: the old one, every code and every session minted before are
// refused at once, and the WebSocket connections they authorised are closed.
type Auth struct {
	mu       sync.Mutex
	token    string
	codes    map[string]time.Time // code → when it expires
	sessions map[string]time.Time // session → when it was minted
	revoked  chan struct{}        // closed by Rotate: what was authorised before ends
	lifetime time.Duration        // of a code: CodeLifetime, unless SetCodeLifetime
	now      func() time.Time
}

// CodeLifetime is how long a one-time code may wait for its browser: long enough for a
// browser that starts cold, short enough that an address read from its command line is
// dead by the time anyone tries it.
const CodeLifetime = 60 * time.Second

// Bounds, so that whoever has the token cannot make parley hold without end.
const (
	maxCodes    = 16
	maxSessions = 256
)

// NewAuth returns an Auth with a fresh token.
func NewAuth() *Auth {
	a := &Auth{now: time.Now, lifetime: CodeLifetime}
	a.reset()
	return a
}

func (a *Auth) reset() {
	a.token = newSecret()
	a.codes = map[string]time.Time{}
	a.sessions = map[string]time.Time{}
	a.revoked = make(chan struct{})
}

// newSecret returns 32 random bytes, as base64 that needs no escaping in a URL.
func newSecret() string {
	var b [32]byte
	rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// Token is the current token.
func (a *Auth) Token() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.token
}

// Rotate replaces the token and refuses everything the old one let in (codes, sessions,
// open connections); it returns the new token.
func (a *Auth) Rotate() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	close(a.revoked)
	a.reset()
	return a.token
}

// NewCode returns a one-time code: it is good for one visit within CodeLifetime.
func (a *Auth) NewCode() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	now := a.now()
	for c, exp := range a.codes {
		if !now.Before(exp) {
			delete(a.codes, c)
		}
	}
	if len(a.codes) >= maxCodes {
		dropOldest(a.codes)
	}
	c := newSecret()
	a.codes[c] = now.Add(a.lifetime)
	return c
}

// SetCodeLifetime changes how long the codes made from now on are good for.
func (a *Auth) SetCodeLifetime(d time.Duration) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.lifetime = d
}

// tokenOK reports whether tok is the current token.
func (a *Auth) tokenOK(tok string) (revoked <-chan struct{}, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.revoked, subtle.ConstantTimeCompare([]byte(tok), []byte(a.token)) == 1
}

// sessionForToken mints a session if tok is the current token.
func (a *Auth) sessionForToken(tok string) (session string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if subtle.ConstantTimeCompare([]byte(tok), []byte(a.token)) != 1 {
		return "", false
	}
	return a.mintLocked(), true
}

// sessionForCode spends a one-time code (good only the first time, and only before it
// expires) and mints a session for it; in one step, so that no rotation falls between.
func (a *Auth) sessionForCode(code string) (session string, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	exp, ok := a.codes[code]
	if !ok {
		return "", false
	}
	delete(a.codes, code)
	if !a.now().Before(exp) {
		return "", false
	}
	return a.mintLocked(), true
}

// newSession mints a session under the current token.
func (a *Auth) newSession() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mintLocked()
}

func (a *Auth) mintLocked() string {
	if len(a.sessions) >= maxSessions {
		dropOldest(a.sessions)
	}
	s := newSecret()
	a.sessions[s] = a.now()
	return s
}

// sessionOK reports whether s is a session minted since the last rotation.
func (a *Auth) sessionOK(s string) (revoked <-chan struct{}, ok bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	_, ok = a.sessions[s]
	return a.revoked, ok && s != ""
}

// dropOldest removes the entry with the earliest time.
func dropOldest(m map[string]time.Time) {
	var oldest string
	var at time.Time
	for k, t := range m {
		if oldest == "" || t.Before(at) {
			oldest, at = k, t
		}
	}
	delete(m, oldest)
}
