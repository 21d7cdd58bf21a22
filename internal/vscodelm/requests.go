package vscodelm

import (
	"context"
	"errors"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/changesrpc"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/jsonrpc2"
)

// The requests about a conversation (wire_features.go): its settings, the record of its
// changes, the answer to the agent's question. The router says which conversation an id
// names; the handler then asks the conversation itself on its own goroutine (the core's
// Conversation is safe for concurrent use, and its record of changes has its own lock),
// so a slow undo holds up neither the router nor the worker.

// requestHandlers are the methods of this file.
var requestHandlers = map[string]func(s *Server, ctx context.Context, req *jsonrpc2.Request) (any, error){
	"lm/settings":          (*Server).settings,
	"lm/setConfig":         (*Server).setConfig,
	"lm/changes":           (*Server).changesOf,
	"lm/diff":              (*Server).diff,
	"lm/undo":              (*Server).undo,
	"lm/answerElicitation": (*Server).answerElicitation,
}

// conversationOf returns the conversation id names.
func (s *Server) conversationOf(ctx context.Context, id string) (*conversation.Conversation, error) {
	reply := make(chan *worker, 1)
	if !s.post(ctx, routeLookup{conv: id, reply: reply}) {
		return nil, errCancelled
	}
	var w *worker
	select {
	case w = <-reply:
	case <-ctx.Done():
		return nil, errCancelled
	case <-s.stopped: // the router ended with the lookup unhandled in its inbox
		return nil, errCancelled
	}
	if w == nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "there is no conversation %q: parley closes a conversation idle for long, and forgets them all when it restarts (the changes stay recorded: `parley changes` in the workspace lists them)", id)
	}
	c := w.published.Load()
	if c == nil {
		return nil, jsonrpc2.Errorf(codeAgentFailure, "the conversation %q has no session with its agent yet: send it a message first", id)
	}
	return c, nil
}

func (s *Server) settings(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p ConversationRequest
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	c, err := s.conversationOf(ctx, p.ConversationID)
	if err != nil {
		return nil, err
	}
	sess, err := c.Session(ctx)
	if err != nil {
		return nil, jsonrpc2.Errorf(codeAgentFailure, "%v", err)
	}
	return settingsResult(sess), nil
}

func (s *Server) setConfig(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p SetConfigParams
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	c, err := s.conversationOf(ctx, p.ConversationID)
	if err != nil {
		return nil, err
	}
	sess, err := c.SetConfig(ctx, p.ID, p.Value)
	if _, invalid := errors.AsType[*conversation.InvalidSettingError](err); invalid {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
	}
	if err != nil {
		return nil, jsonrpc2.Errorf(codeAgentFailure, "setting %s: %v", p.ID, err)
	}
	return settingsResult(sess), nil
}

func settingsResult(sess conversation.Session) SettingsResult {
	out := SettingsResult{Settings: []SettingWire{}}
	for _, st := range sess.Settings() {
		w := SettingWire{ID: st.ID, Name: st.Name, Description: st.Description, Category: string(st.Category), Kind: string(st.Kind), Current: st.Current}
		for _, v := range st.Values {
			w.Values = append(w.Values, SettingValue{ID: v.ID, Name: v.Name, Description: v.Description, Group: v.Group})
		}
		out.Settings = append(out.Settings, w)
	}
	return out
}

// changesOf, diff and undo are the record of changes' requests (internal/changesrpc, as
// acpserver's _parley/* ones): the conversation the params name, then the record.
func (s *Server) changesOf(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p ConversationRequest
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	c, err := s.conversationOf(ctx, p.ConversationID)
	if err != nil {
		return nil, err
	}
	return changesrpc.Changes(ctx, c)
}

func (s *Server) diff(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p DiffParams
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	c, err := s.conversationOf(ctx, p.ConversationID)
	if err != nil {
		return nil, err
	}
	return changesrpc.Diff(ctx, c, "", changes.DiffRequest{Path: p.Path, Turn: p.Turn, Since: p.Since})
}

func (s *Server) undo(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p UndoParams
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	c, err := s.conversationOf(ctx, p.ConversationID)
	if err != nil {
		return nil, err
	}
	return changesrpc.Undo(ctx, c, "", changes.UndoRequest{Turn: p.Turn, Paths: p.Paths, Rewind: p.Rewind})
}

func (s *Server) answerElicitation(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p AnswerElicitationParams
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	c, err := s.conversationOf(ctx, p.ConversationID)
	if err != nil {
		return nil, err
	}
	// The answer is checked against the form before anything reaches the agent; an error
	// names the field, never the value (which may be a secret), and is never logged.
	if err := c.AnswerElicitation(p.ID, conversation.ElicitationAnswer{Action: acp.ElicitationAction(p.Action), Content: p.Content}); err != nil {
		return nil, jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
	}
	return struct{}{}, nil
}

// signedIn is lm/signedIn: the next conversation with the agent starts a new process.
func (s *Server) signedIn(req *jsonrpc2.Request) error {
	var p SignedInParams
	if err := json.Unmarshal(req.Params, &p); err != nil {
		return err
	}
	def, err := ParseAgent(p.Agent)
	if err != nil {
		return err
	}
	s.logger.Info("the user signed in: the agent's next conversation starts a new process", "agent", def.Label())
	s.pool.renew(def.Key)
	return nil
}
