package webui

import (
	"bytes"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"fmt"
	"log/slog"
	"sync"
	"time"
)

// Auth holds what lets a browser or an ACP client in: the run token, the named tokens,
// one-time codes and the sessions traded for any of them.
//
//   - The run token is the long-lived secret of the address parley prints for the user to
//     copy. It lives only in parley's memory and on its stdout, never on a command line
//     (which any process of the machine reads in /proc) or in a file.
//   - The named tokens (see Tokens) are the user's, one per device or person, kept as
//     hashes in a file that every parley web of the user reads: added and revoked with
//     `parley web tokens`, no restart.
//   - A one-time code is what parley gives the browser it starts itself: that address is
//     on the browser's command line, so the code works once, for CodeLifetime, and then
//     never again.
//   - A session is what a visit with a token or a code gets instead, as a cookie: a
//     fresh secret, so no token sits in the browser's cookie store.
//
// Each token is a grant: the sessions minted from it and the connections it let in end
// when it ends. Rotate replaces the run token: the old one, every code and every session
// minted from it are refused at once, and the WebSocket connections they authorised are
// closed. A named token removed from the file ends the same way, the moment parley sees
// the file change (Watch), and in any case at the next request that would use it, since
// every authorisation by a named token reads the file again.
type Auth struct {
	mu       sync.Mutex
	token    string
	run      *grant               // the run token's
	codes    map[string]time.Time // code → when it expires (codes are the run token's)
	sessions map[string]session
	lifetime time.Duration // of a code: CodeLifetime, unless SetCodeLifetime
	now      func() time.Time

	tokens   *Tokens           // the named tokens' file, or nil
	named    map[string]*grant // by the token's hash: the file as last read
	fileData []byte            // the file's bytes as last read
	fileErr  string            // why the file could not be read last time, or ""
	poll     time.Duration     // how often Watch reads the file besides: pollEvery, but in tests
	usedAt   map[string]time.Time
	logger   *slog.Logger
}

// grant is one token's authority: what it let in ends when revoked is closed.
type grant struct {
	name    string // RunTokenName, or the named token's name
	sum     string // the named token's hash ("" for the run token)
	revoked chan struct{}
	reason  string // why it ended: the close reason of its connections, set before revoked is closed
}

func newGrant(name, sum string) *grant {
	return &grant{name: name, sum: sum, revoked: make(chan struct{})}
}

type session struct {
	at time.Time // minted
	g  *grant
}

// usedEvery is how often at most a server writes a named token's "last used" to the file.
const usedEvery = time.Minute

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
	a := &Auth{now: time.Now, lifetime: CodeLifetime, sessions: map[string]session{}, logger: slog.New(slog.DiscardHandler), poll: pollEvery}
	a.newRunToken()
	return a
}

func (a *Auth) newRunToken() {
	a.token = newSecret()
	a.run = newGrant(RunTokenName, "")
	a.codes = map[string]time.Time{}
}

// UseTokens has a accept the named tokens of t besides the run token, and log to logger
// who was let in, refused or revoked. Call it before serving.
func (a *Auth) UseTokens(t *Tokens, logger *slog.Logger) {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.tokens = t
	a.named = map[string]*grant{}
	a.usedAt = map[string]time.Time{}
	if logger != nil {
		a.logger = logger
	}
	a.refreshLocked()
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

// Rotate replaces the run token and refuses everything the old one let in (codes,
// sessions, open connections); it returns the new token. What the named tokens let in
// goes on.
func (a *Auth) Rotate() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.endLocked(a.run, "the token was replaced: open the new address parley printed")
	a.newRunToken()
	return a.token
}

// endLocked ends g: its sessions are forgotten and its connections closed with reason.
func (a *Auth) endLocked(g *grant, reason string) {
	for s, v := range a.sessions {
		if v.g == g {
			delete(a.sessions, s)
		}
	}
	g.reason = reason
	close(g.revoked)
}

// refreshLocked reads the named tokens' file again and, if it changed, ends every grant
// whose token is no longer in it. A file that cannot be read or parsed lets no named
// token in (it fails closed), and says so in the log.
func (a *Auth) refreshLocked() {
	if a.tokens == nil {
		return
	}
	data, err := a.tokens.read()
	var f tokenFile
	if err == nil {
		if bytes.Equal(data, a.fileData) && a.fileData != nil {
			return
		}
		f, err = parseTokens(data)
	}
	if err != nil {
		if err.Error() != a.fileErr { // once per trouble, not at every read
			a.logger.Warn("web: the named tokens cannot be read; none is accepted until they can", "file", a.tokens.Path(), "error", err)
		}
		a.fileErr = err.Error()
		data = nil
	} else {
		a.fileErr = ""
	}
	a.fileData = append([]byte{}, data...)
	kept := map[string]string{} // hash → name
	for _, r := range f.Tokens {
		kept[r.SHA256] = r.Name
	}
	for sum, g := range a.named {
		if name, ok := kept[sum]; !ok || name != g.name {
			a.endLocked(g, fmt.Sprintf("the token %s was revoked: ask for a new one", g.name))
			delete(a.named, sum)
			delete(a.usedAt, sum)
			a.logger.Info("web: token revoked; its sessions and connections end", "token", g.name)
		}
	}
	for sum, name := range kept {
		if a.named[sum] == nil {
			a.named[sum] = newGrant(name, sum)
		}
	}
}

// Refresh reads the named tokens' file again now (Watch calls it when the file changes).
func (a *Auth) Refresh() {
	a.mu.Lock()
	defer a.mu.Unlock()
	a.refreshLocked()
}

// lookupLocked is the grant of tok: the run token's, or a named token's as the file has
// it now.
func (a *Auth) lookupLocked(tok string) (*grant, bool) {
	if subtle.ConstantTimeCompare([]byte(tok), []byte(a.token)) == 1 {
		return a.run, true
	}
	if a.tokens == nil || tok == "" {
		return nil, false
	}
	a.refreshLocked()
	// A map lookup by the hash tells a timing observer about the hash, not the token.
	g, ok := a.named[hashToken(tok)]
	return g, ok
}

// noteUse writes when g's named token was last used to the file, at most every usedEvery;
// with a.mu not held (the write takes the file's lock, and the watch then reads it).
func (a *Auth) noteUse(g *grant) {
	if g == nil || g.sum == "" {
		return
	}
	a.mu.Lock()
	now := a.now()
	due := now.Sub(a.usedAt[g.sum]) >= usedEvery
	if due {
		a.usedAt[g.sum] = now
	}
	t := a.tokens
	a.mu.Unlock()
	if due {
		if err := t.used(g.sum, now); err != nil {
			a.logger.Debug("web: a named token's last use was not recorded", "token", g.name, "error", err)
		}
	}
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

// tokenOK reports whether tok is the run token or a named one, and which.
func (a *Auth) tokenOK(tok string) (*grant, bool) {
	a.mu.Lock()
	g, ok := a.lookupLocked(tok)
	a.mu.Unlock()
	if ok {
		a.noteUse(g)
	}
	return g, ok
}

// sessionForToken mints a session if tok is the run token or a named one.
func (a *Auth) sessionForToken(tok string) (session string, g *grant, ok bool) {
	a.mu.Lock()
	g, ok = a.lookupLocked(tok)
	if ok {
		session = a.mintLocked(g)
	}
	a.mu.Unlock()
	if ok {
		a.noteUse(g)
	}
	return session, g, ok
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
	return a.mintLocked(a.run), true
}

// newSession mints a session under the current run token.
func (a *Auth) newSession() string {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.mintLocked(a.run)
}

func (a *Auth) mintLocked(g *grant) string {
	if len(a.sessions) >= maxSessions {
		var oldest string
		var at time.Time
		for k, v := range a.sessions {
			if oldest == "" || v.at.Before(at) {
				oldest, at = k, v.at
			}
		}
		delete(a.sessions, oldest)
	}
	s := newSecret()
	a.sessions[s] = session{at: a.now(), g: g}
	return s
}

// sessionOK reports whether s is a live session, and the grant it was minted under. A
// named token's session reads the file again first: a revocation the watch has not
// seen yet still ends it here.
func (a *Auth) sessionOK(s string) (*grant, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	v, ok := a.sessions[s]
	if !ok || s == "" {
		return nil, false
	}
	if v.g.sum != "" {
		a.refreshLocked()
		if _, ok = a.sessions[s]; !ok {
			return nil, false
		}
	}
	return v.g, true
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
