package eliza

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/lazy"
)

// Sessions that outlive the process: with Options.SessionDir set, each session's
// conversation is kept there (one JSON file a session, written as each turn ends), so
// that session/load, session/resume and session/fork reach a session an earlier process
// opened, as a real agent's do. Options.NoReopen offers none of the three, to test how
// a client carries a conversation on without them.

// savedSession is a session's file.
type savedSession struct {
	Cwd     string      `json:"cwd"`
	History []savedTurn `json:"history"`
}

type savedTurn struct {
	User  string `json:"user"`
	Agent string `json:"agent"`
}

var sessionIDPattern = lazy.Regexp(`^eliza-[0-9]+$`)

// sessionPath is the file of session id, or "" when sessions are not kept or id is not
// one of Eliza's (nothing from a request names a path of its own).
func (a *agent) sessionPath(id acp.SessionID) string {
	if a.opts.SessionDir == "" || !sessionIDPattern().MatchString(string(id)) {
		return ""
	}
	return filepath.Join(a.opts.SessionDir, string(id)+".json")
}

// newID picks the next session id that neither this process nor an earlier one used.
// a.mu is held.
func (a *agent) newID() acp.SessionID {
	for {
		a.next++
		id := acp.SessionID("eliza-" + strconv.Itoa(a.next))
		if a.sessions[id] != nil {
			continue
		}
		path := a.sessionPath(id)
		if path == "" {
			return id
		}
		if err := os.MkdirAll(a.opts.SessionDir, 0o700); err != nil {
			return id // not kept, then: save says so in the log
		}
		f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err == nil {
			f.WriteString(`{"cwd":"","history":[]}`)
			f.Close()
		}
		return id
	}
}

// save writes the session's conversation to its file. s.mu is held.
func (a *agent) save(s *session) {
	path := a.sessionPath(s.id)
	if path == "" {
		return
	}
	saved := savedSession{Cwd: s.cwd, History: []savedTurn{}}
	for _, h := range s.history {
		saved.History = append(saved.History, savedTurn{User: h.user, Agent: h.agent})
	}
	b, err := json.Marshal(saved)
	if err == nil {
		tmp := path + ".tmp"
		if err = os.WriteFile(tmp, b, 0o600); err == nil {
			err = os.Rename(tmp, path)
		}
	}
	if err != nil {
		a.logger.Warn("eliza: the session is not kept", "session", s.id, "error", err)
	}
}

// reopen finds session id: in this process, or kept by an earlier one.
func (a *agent) reopen(id acp.SessionID) *session {
	a.mu.Lock()
	defer a.mu.Unlock()
	if s := a.sessions[id]; s != nil {
		return s
	}
	path := a.sessionPath(id)
	if path == "" {
		return nil
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil
	}
	var saved savedSession
	if err := json.Unmarshal(b, &saved); err != nil {
		a.logger.Warn("eliza: a kept session cannot be read", "session", id, "error", err)
		return nil
	}
	s := newSession(id, saved.Cwd, nil, NewTherapist(TherapistOptions{Deterministic: a.opts.Deterministic}))
	for _, h := range saved.History {
		s.history = append(s.history, exchange{user: h.User, agent: h.Agent})
	}
	a.sessions[id] = s
	return s
}

// ResumeSession reopens a session without replaying it.
func (a *agent) ResumeSession(ctx context.Context, req *acp.ResumeSessionRequest) (*acp.ResumeSessionResponse, error) {
	if a.opts.NoReopen || a.opts.NoResume {
		return nil, acp.ErrMethodNotFound
	}
	s, err := a.reopenIn(req.SessionID, req.Cwd, req.MCPServers)
	if err != nil {
		return nil, err
	}
	s.mu.Unlock()
	return &acp.ResumeSessionResponse{}, nil
}

// reopenIn reopens session id (of this process or a kept one) in cwd with its MCP servers,
// and returns it locked.
func (a *agent) reopenIn(id acp.SessionID, cwd string, servers []acp.MCPServer) (*session, error) {
	if err := checkCwd(cwd); err != nil {
		return nil, err
	}
	s := a.reopen(id)
	if s == nil {
		return nil, acp.ErrSessionNotFound(id)
	}
	s.mu.Lock()
	s.cwd, s.servers = cwd, servers
	s.closeMCP()
	return s, nil
}

// ForkSession opens a new session that starts with the conversation of another.
func (a *agent) ForkSession(ctx context.Context, req *acp.ForkSessionRequest) (*acp.ForkSessionResponse, error) {
	if a.opts.NoReopen {
		return nil, acp.ErrMethodNotFound
	}
	if err := checkCwd(req.Cwd); err != nil {
		return nil, err
	}
	if fi, err := os.Stat(req.Cwd); err == nil && !fi.IsDir() {
		return nil, acp.ErrInvalidParams("cwd must be a directory, got the file %q", req.Cwd)
	}
	from := a.reopen(req.SessionID)
	if from == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	from.mu.Lock()
	history := append([]exchange(nil), from.history...)
	from.mu.Unlock()
	a.mu.Lock()
	id := a.newID()
	s := newSession(id, req.Cwd, req.MCPServers, NewTherapist(TherapistOptions{Deterministic: a.opts.Deterministic}))
	s.history = history
	a.sessions[id] = s
	a.mu.Unlock()
	s.mu.Lock()
	a.save(s)
	s.mu.Unlock()
	acp.AfterResponse(ctx, func(ctx context.Context) {
		a.conn.Update(ctx, id, acp.SessionUpdate{AvailableCommandsUpdate: &acp.AvailableCommandsUpdate{AvailableCommands: availableCommands()}})
	})
	return &acp.ForkSessionResponse{SessionID: id}, nil
}

// recall says every prompt of the session, this one included, each line after "| ":
// what the session holds, for tests of how a conversation is carried on.
func (t *turn) recall() {
	var b strings.Builder
	prompts := len(t.session.history) + 1
	fmt.Fprintf(&b, "I remember %d prompts in session %s:", prompts, t.session.id)
	for i, h := range append(t.session.history, exchange{user: t.text}) {
		fmt.Fprintf(&b, "\n%d.", i+1)
		for _, line := range strings.Split(h.user, "\n") {
			b.WriteString("\n| " + line)
		}
	}
	t.say(b.String())
}
