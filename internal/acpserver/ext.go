package acpserver

import (
	"context"
	"path/filepath"

	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/toolui"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// parley's extension methods and notifications.
const (
	methodAgents         = "_parley/agents"           // request: the agents parley knows
	methodFiles          = "_parley/files"            // request: files of a session's workspace matching a query
	methodUnqueue        = "_parley/unqueue"          // request: take a queued prompt back
	methodQueue          = "_parley/queue"            // notification: the running prompt and the queue
	methodTerminalOutput = "_parley/terminal_output"  // notification: a terminal's output so far
	methodNotice         = "_parley/notice"           // notification: what parley has to say
	methodStatus         = "_parley/status"           // notification: the agent starting, ready, failed; the session closed
	methodSignIn         = "_parley/sign_in"          // request: sign in with one of the agent's methods
	methodCancelSignIn   = "_parley/cancel_sign_in"   // request: give up the sign-in under way
	methodSignInRequired = "_parley/sign_in_required" // notification: the agent wants a sign-in, with its methods
	methodSignInEnded    = "_parley/sign_in_ended"    // notification: a sign-in is over
	methodChanges        = "_parley/changes"          // notification: what a turn changed; request: every turn's changes
	methodChangesChanged = "_parley/changes_changed"  // notification: changes were undone or kept
	methodDiff           = "_parley/diff"             // request: a changed file's diff
	methodUndo           = "_parley/undo"             // request: undo a turn's changes (or some files of it)
	methodKeep           = "_parley/keep"             // request: keep changes (they can no longer be undone)
)

type queueNotification struct {
	SessionID acp.SessionID  `json:"sessionId"`
	Running   *int           `json:"running"` // the prompt whose turn runs, null between turns
	Queued    []queuedPrompt `json:"queued"`
}

type queuedPrompt struct {
	PromptID int    `json:"promptId"`
	Text     string `json:"text"`
}

type noticeNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	Text      string        `json:"text"`
}

type statusNotification struct {
	SessionID acp.SessionID `json:"sessionId"`
	State     string        `json:"state"` // starting, ready, failed, closed
	Text      string        `json:"text,omitempty"`
}

type filesRequest struct {
	SessionID acp.SessionID `json:"sessionId"`
	Query     string        `json:"query"`
	Limit     int           `json:"limit,omitempty"`
}

type filesResponse struct {
	Files     []fileMatch `json:"files"`
	Truncated bool        `json:"truncated,omitempty"` // the workspace has more files than were searched
}

type unqueueRequest struct {
	SessionID acp.SessionID `json:"sessionId"`
	PromptID  int           `json:"promptId"`
}

func (c *conn) HandleExtension(ctx context.Context, method string, params json.RawMessage, isNotification bool) (any, error) {
	switch method {
	case methodCommands:
		return pageCommands(), nil
	case methodAgents:
		return struct {
			Agents  []AgentEntry `json:"agents"`
			Default string       `json:"default"`
		}{c.srv.agentList(), c.srv.opts.DefaultAgent}, nil
	case methodFiles:
		var req filesRequest
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		ss, err := c.srv.session(req.SessionID)
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
		return filesResponse{Files: files, Truncated: truncated}, nil
	case methodUnqueue:
		var req unqueueRequest
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		ss, err := c.srv.session(req.SessionID)
		if err != nil {
			return nil, err
		}
		return struct {
			Unqueued bool `json:"unqueued"`
		}{ss.conv.Unqueue(req.PromptID)}, nil
	case methodSignIn, methodCancelSignIn:
		var req signInRequest
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		ss, err := c.srv.session(req.SessionID)
		if err != nil {
			return nil, err
		}
		if method == methodCancelSignIn {
			ss.conv.CancelSignIn()
			return struct{}{}, nil
		}
		// A web page runs no terminal: a terminal method fails with ErrNoTerminal, which
		// names the command to run instead.
		if err := ss.conv.SignIn(req.MethodID, conversation.SignInOptions{Vars: req.Vars}); err != nil {
			return nil, acp.Errorf(acp.CodeInvalidParams, "%s", toolui.SafeText(err.Error()))
		}
		return struct{}{}, nil
	case methodChanges, methodDiff, methodUndo, methodKeep:
		var req changesRequest
		if err := decodeParams(params, &req); err != nil {
			return nil, err
		}
		ss, err := c.srv.session(req.SessionID)
		if err != nil {
			return nil, err
		}
		return ss.changes(ctx, method, req)
	}
	return nil, acp.ErrMethodNotFound
}

// changes answers the requests about what the agent changed.
func (ss *session) changes(ctx context.Context, method string, req changesRequest) (any, error) {
	fail := func(err error) error { return acp.Errorf(acp.CodeInvalidParams, "%s", toolui.SafeText(err.Error())) }
	abs := func(p string) string {
		if p == "" || filepath.IsAbs(p) {
			return p
		}
		return filepath.Join(ss.roots.Dirs()[0], p)
	}
	switch method {
	case methodChanges:
		turns, err := ss.conv.Changes(ctx)
		if err != nil {
			return nil, fail(err)
		}
		out := struct {
			Turns []turnWire `json:"turns"`
		}{[]turnWire{}}
		for _, t := range turns {
			out.Turns = append(out.Turns, wireTurn(t))
		}
		return out, nil
	case methodDiff:
		d, err := ss.conv.Diff(ctx, changes.DiffRequest{Path: abs(req.Path), Turn: req.Turn, Since: req.Since})
		if err != nil {
			return nil, fail(err)
		}
		return diffWire{Turn: d.Turn, Path: d.Change.Rel, Unified: d.Unified, Note: d.Note, ChangedSince: d.ChangedSince, Old: d.Old, New: d.New}, nil
	case methodUndo:
		var paths []string
		for _, p := range req.Paths {
			paths = append(paths, abs(p))
		}
		res, err := ss.conv.Undo(ctx, changes.UndoRequest{Turn: req.Turn, Paths: paths, Rewind: req.Rewind})
		if err != nil {
			return nil, fail(err)
		}
		return struct {
			Turns []int `json:"turns"`
		}{res.Turns}, nil
	default:
		var paths []string
		for _, p := range req.Paths {
			paths = append(paths, abs(p))
		}
		kept, err := ss.conv.Keep(ctx, changes.KeepRequest{Turn: req.Turn, Paths: paths})
		if err != nil {
			return nil, fail(err)
		}
		return struct {
			Kept int `json:"kept"`
		}{len(kept)}, nil
	}
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
	list := s.opts.Launcher.Agents()
	for i := range list {
		list[i].Default = list[i].Name == s.opts.DefaultAgent
	}
	return list
}
