package acpserver

import (
	"context"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/changesrpc"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/toolui"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// parley's extension methods (internal/parleyapi: their names, types and error codes).
// An unknown session is acp.ErrSessionNotFound, whose code is parleyapi.CodeUnknownSession.
var _ = [1]struct{}{}[parleyapi.CodeUnknownSession-acp.CodeResourceNotFound]

// AgentEntry is one agent in _parley/agents' answer.
type AgentEntry = parleyapi.AgentEntry

func (c *conn) HandleExtension(ctx context.Context, method string, params json.RawMessage, isNotification bool) (any, error) {
	switch method {
	case parleyapi.MethodFork, parleyapi.MethodHandoff, parleyapi.MethodRewind:
		return c.carry(ctx, method, params)
	case parleyapi.MethodCommands:
		return pageCommands(), nil
	case parleyapi.MethodAgents:
		return parleyapi.AgentsResult{Agents: c.srv.agentList(), Default: c.srv.opts.DefaultAgent}, nil
	case parleyapi.MethodFiles:
		var req parleyapi.FilesParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		limit := req.Limit
		if limit <= 0 || limit > 200 {
			limit = 50
		}
		files, truncated, err := ss.files.search(ctx, ss.roots.Dirs()[0], req.Query, limit)
		if err != nil {
			return nil, err
		}
		return parleyapi.FilesResult{Files: files, Truncated: truncated}, nil
	case parleyapi.MethodUnqueue:
		var req parleyapi.UnqueueParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		return parleyapi.UnqueueResult{Unqueued: ss.conv.Unqueue(req.PromptID)}, nil
	case parleyapi.MethodCancelSignIn:
		var req parleyapi.CancelSignInParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		ss.conv.CancelSignIn()
		return parleyapi.Empty{}, nil
	case parleyapi.MethodSignIn:
		var req parleyapi.SignInParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		// A web page runs no terminal: a terminal method fails with ErrNoTerminal, which
		// names the command to run instead.
		if err := ss.conv.SignIn(req.MethodID, conversation.SignInOptions{Vars: req.Vars}); err != nil {
			return nil, acp.Errorf(parleyapi.CodeInvalidParams, "%s", toolui.SafeText(err.Error()))
		}
		return parleyapi.Empty{}, nil
	case parleyapi.MethodSignedIn:
		var req parleyapi.SignedInParams
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		c.srv.renewAgent(req.Agent)
		return parleyapi.Empty{}, nil
	case parleyapi.MethodChanges:
		var req parleyapi.ChangesParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		return changesrpc.Changes(ctx, ss.conv)
	case parleyapi.MethodDiff:
		var req parleyapi.DiffParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		return changesrpc.Diff(ctx, ss.conv, ss.roots.Dirs()[0], changes.DiffRequest{Path: req.Path, Turn: req.Turn, Since: req.Since})
	case parleyapi.MethodUndo:
		var req parleyapi.UndoParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		return changesrpc.Undo(ctx, ss.conv, ss.roots.Dirs()[0], changes.UndoRequest{Turn: req.Turn, Paths: req.Paths, Rewind: req.Rewind})
	case parleyapi.MethodFile:
		var req parleyapi.FileParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		return ss.showFile(req.Path)
	case parleyapi.MethodKeep:
		var req parleyapi.KeepParams
		ss, err := c.sessionOf(params, &req, &req.SessionID)
		if err != nil {
			return nil, err
		}
		return changesrpc.Keep(ctx, ss.conv, ss.roots.Dirs()[0], changes.KeepRequest{Turn: req.Turn, Paths: req.Paths})
	}
	return nil, acp.ErrMethodNotFound
}

// sessionOf decodes params into v and returns the session *id (a field of v) names.
func (c *conn) sessionOf(params json.RawMessage, v any, id *acp.SessionID) (*session, error) {
	if err := decodeParams(params, v); err != nil {
		return nil, err
	}
	return c.srv.session(*id)
}

func decodeParams(params json.RawMessage, v any) error {
	if len(params) == 0 {
		return acp.ErrInvalidParams("missing params")
	}
	if err := json.Unmarshal(params, v); err != nil {
		return acp.ErrInvalidParams("%v", err)
	}
	return nil
}

func (s *Server) agentList() []AgentEntry {
	list := append([]AgentEntry{}, s.opts.Launcher.Agents()...) // never null on the wire
	for i := range list {
		list[i].Default = list[i].Name == s.opts.DefaultAgent
	}
	return list
}
