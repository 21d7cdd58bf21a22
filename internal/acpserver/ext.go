package acpserver

import (
	"context"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// parley's extension methods and notifications.
const (
	methodAgents         = "_parley/agents"          // request: the agents parley knows
	methodFiles          = "_parley/files"           // request: files of a session's workspace matching a query
	methodUnqueue        = "_parley/unqueue"         // request: take a queued prompt back
	methodQueue          = "_parley/queue"           // notification: the running prompt and the queue
	methodTerminalOutput = "_parley/terminal_output" // notification: a terminal's output so far
	methodNotice         = "_parley/notice"          // notification: what parley has to say
	methodStatus         = "_parley/status"          // notification: the agent starting, ready, failed; the session closed
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
	}
	return nil, acp.ErrMethodNotFound
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
