package vscodelm

import (
	"context"
	"errors"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
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

func (s *Server) changesOf(ctx context.Context, req *jsonrpc2.Request) (any, error) {
	var p ConversationRequest
	if err := jsonrpc2.DecodeParams(req, &p); err != nil {
		return nil, err
	}
	c, err := s.conversationOf(ctx, p.ConversationID)
	if err != nil {
		return nil, err
	}
	turns, err := c.Changes(ctx)
	if err != nil {
		return nil, changesError(err)
	}
	out := ChangesResult{Turns: []ChangedTurn{}}
	for _, t := range turns {
		out.Turns = append(out.Turns, changedTurn(t))
	}
	return out, nil
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
	d, err := c.Diff(ctx, changes.DiffRequest{Path: p.Path, Turn: p.Turn, Since: p.Since})
	if err != nil {
		return nil, changesError(err)
	}
	return DiffResult{
		Path: d.Change.Path, Rel: d.Change.Rel, Turn: d.Turn, Kind: string(d.Change.Kind), Unified: d.Unified, Note: d.Note,
		ChangedSince: d.ChangedSince, Before: d.Old, After: d.New,
	}, nil
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
	res, err := c.Undo(ctx, changes.UndoRequest{Turn: p.Turn, Paths: p.Paths, Rewind: p.Rewind})
	if err != nil {
		return nil, changesError(err)
	}
	return undoResult(res), nil
}

func undoResult(res changes.UndoResult) UndoResult {
	out := UndoResult{Turns: res.Turns, Files: []UndoneFile{}}
	if out.Turns == nil {
		out.Turns = []int{}
	}
	for _, f := range res.Files {
		out.Files = append(out.Files, UndoneFile{Path: f.Path, Rel: f.Rel, Did: f.Did})
	}
	if res.Record.Number != 0 {
		record := changedTurn(res.Record)
		out.Record = &record
	}
	return out
}

// changesError is the answer to a request the record of changes refused.
func changesError(err error) error {
	if ce, ok := errors.AsType[*changes.ConflictError](err); ok {
		data := ConflictData{}
		for _, c := range ce.Conflicts {
			data.Conflicts = append(data.Conflicts, ConflictWire{Path: c.Path, Rel: c.Rel, Turn: c.Turn, Reason: c.Reason, Since: c.Since})
		}
		if ce.Partial != nil {
			partial := undoResult(*ce.Partial)
			data.Partial = &partial
		}
		e := jsonrpc2.Errorf(CodeConflict, "%v", ce)
		e.Data, _ = json.Marshal(data)
		return e
	}
	if errors.Is(err, changes.ErrNoChange) {
		return jsonrpc2.Errorf(jsonrpc2.CodeInvalidParams, "%v", err)
	}
	return jsonrpc2.Errorf(codeAgentFailure, "%v", err)
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
