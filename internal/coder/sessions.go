package coder

import (
	"context"
	"errors"
	"path/filepath"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/llm"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/workspace"
)

// Sessions outlive the agent's process: each turn's new messages (what the model sees
// next time) and what the client was shown (replayed by session/load) are appended to
// the store when the turn ends, so session/list, session/load and session/resume work
// after a restart.

func storedSession(id acp.SessionID, roots *workspace.Roots, title string) store.AgentSession {
	dirs := roots.Dirs()
	return store.AgentSession{ID: string(id), Cwd: dirs[0], ExtraRoots: dirs[1:], Title: title}
}

// persist appends the turn to the store. A failure is logged: the turn happened, and the
// session goes on in memory.
func (a *agent) persist(ctx context.Context, s *session, rec *transcript) {
	if a.opts.Store == nil {
		return
	}
	var entries []store.Entry
	from := s.conv.saved
	if s.conv.rewrote {
		// Compaction replaced messages the store holds: a marker says that what
		// follows is the whole conversation from now on (the store only appends).
		from = 0
		body, _ := json.Marshal(keptMessage{Restart: true})
		entries = append(entries, store.Entry{Kind: store.EntryMessage, Body: body})
	}
	for _, m := range s.conv.messages[from:] {
		body, err := json.Marshal(keptMessage{Message: m})
		if err != nil {
			a.opts.Logger.Warn("a message cannot be kept", "session", s.id, "error", err)
			continue
		}
		entries = append(entries, store.Entry{Kind: store.EntryMessage, Body: body})
	}
	for _, u := range rec.take() {
		body, err := json.Marshal(compact(u))
		if err != nil {
			continue
		}
		entries = append(entries, store.Entry{Kind: store.EntryUpdate, Body: body})
	}
	err := a.opts.Store.SaveSession(ctx, storedSession(s.id, s.roots, s.title))
	if err == nil {
		err = a.opts.Store.AppendEntries(ctx, string(s.id), entries)
	}
	if err != nil {
		a.opts.Logger.Warn("the turn was not kept", "session", s.id, "error", err)
		return
	}
	s.conv.saved, s.conv.rewrote = len(s.conv.messages), false
}

// keptMessage is a message of the model's history as the store keeps it. An entry with
// Restart set holds no message: the conversation starts afresh after it (compaction).
type keptMessage struct {
	llm.Message
	Restart bool `json:",omitempty"`
}

// stored returns the session as kept in the store.
func (a *agent) stored(ctx context.Context, id acp.SessionID) (store.AgentSession, bool, error) {
	if a.opts.Store == nil {
		return store.AgentSession{}, false, nil
	}
	return a.opts.Store.Session(ctx, string(id))
}

func (a *agent) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	s, err := a.reopen(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.MCPServers)
	if err != nil {
		return nil, err
	}
	// The replay goes out before the response, as session/load requires.
	updates, err := a.opts.Store.Entries(ctx, string(s.id), store.EntryUpdate)
	if err != nil {
		return nil, acp.Errorf(acp.CodeInternalError, "%v", err)
	}
	for _, e := range updates {
		var u acp.SessionUpdate
		if err := json.Unmarshal(e.Body, &u); err != nil {
			a.opts.Logger.Warn("a kept update cannot be replayed", "session", s.id, "error", err)
			continue
		}
		if err := a.conn.Update(ctx, s.id, u); err != nil {
			return nil, err
		}
	}
	a.announce(ctx, s)
	return &acp.LoadSessionResponse{}, nil
}

func (a *agent) ResumeSession(ctx context.Context, req *acp.ResumeSessionRequest) (*acp.ResumeSessionResponse, error) {
	s, err := a.reopen(ctx, req.SessionID, req.Cwd, req.AdditionalDirectories, req.MCPServers)
	if err != nil {
		return nil, err
	}
	a.announce(ctx, s)
	return &acp.ResumeSessionResponse{}, nil
}

// reopen makes a kept session live again in the workspace the client gives now, with
// the model's history as it was.
func (a *agent) reopen(ctx context.Context, id acp.SessionID, cwd string, extra []string, servers []acp.MCPServer) (*session, error) {
	kept, ok, err := a.stored(ctx, id)
	if err != nil {
		return nil, acp.Errorf(acp.CodeInternalError, "%v", err)
	}
	if !ok {
		return nil, acp.ErrSessionNotFound(id)
	}
	roots, err := workspace.NewRoots(append([]string{cwd}, extra...)...)
	if err != nil {
		return nil, acp.ErrInvalidParams("workspace: %v", err)
	}
	if _, err := a.modelInfo(ctx); err != nil {
		return nil, err
	}
	entries, err := a.opts.Store.Entries(ctx, string(id), store.EntryMessage)
	if err != nil {
		return nil, acp.Errorf(acp.CodeInternalError, "%v", err)
	}
	history := make([]llm.Message, 0, len(entries))
	for _, e := range entries {
		var m keptMessage
		if err := json.Unmarshal(e.Body, &m); err != nil {
			return nil, acp.Errorf(acp.CodeInternalError, "session %s: a kept message is damaged: %v", id, err)
		}
		if m.Restart {
			history = history[:0]
			continue
		}
		history = append(history, m.Message)
	}
	if err := a.opts.Store.SaveSession(ctx, storedSession(id, roots, "")); err != nil {
		return nil, acp.Errorf(acp.CodeInternalError, "%v", err)
	}
	return a.openSession(ctx, id, roots, servers, history, kept.Title), nil
}

func (a *agent) ListSessions(ctx context.Context, req *acp.ListSessionsRequest) (*acp.ListSessionsResponse, error) {
	if a.opts.Store == nil {
		return &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}}, nil
	}
	cwd := req.Cwd
	if real, err := filepath.EvalSymlinks(cwd); cwd != "" && err == nil {
		cwd = real // sessions are kept under their resolved workspace
	}
	page, next, err := a.opts.Store.ListSessions(ctx, store.SessionPage{Cwd: cwd, Cursor: req.Cursor})
	if errors.Is(err, store.ErrBadCursor) {
		return nil, acp.ErrInvalidParams("cursor: %v", err)
	}
	if err != nil {
		return nil, acp.Errorf(acp.CodeInternalError, "%v", err)
	}
	out := &acp.ListSessionsResponse{Sessions: []acp.SessionInfo{}, NextCursor: next}
	for _, k := range page {
		out.Sessions = append(out.Sessions, acp.SessionInfo{
			SessionID:             acp.SessionID(k.ID),
			Cwd:                   k.Cwd,
			AdditionalDirectories: k.ExtraRoots,
			Title:                 k.Title,
			UpdatedAt:             k.UpdatedAt.UTC().Format(time.RFC3339),
		})
	}
	return out, nil
}
