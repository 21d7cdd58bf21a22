package acpserver

import (
	"context"
	"errors"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/changes"
	"github.com/parley-acp/parley/internal/changesrpc"
	"github.com/parley-acp/parley/internal/conversation"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
	"github.com/parley-acp/parley/internal/store"
	"github.com/parley-acp/parley/internal/toolui"
)

// _parley/fork, _parley/handoff and _parley/rewind (internal/conversation/carry.go): the
// conversation goes on in a new session parley holds like any other, which the client
// then attaches to with session/load. The old session stays as it was (session/list).
//
// The turns carried on are those the conversation shows (its Snapshot's transcript, as a
// late view gets it: bounded, the oldest dropped), so a seed is built from what the page
// could show; the agent's session/fork, where offered, carries everything it kept.

// carry answers one of the three methods.
func (c *conn) carry(ctx context.Context, method string, params json.RawMessage) (any, error) {
	var req parleyapi.CarryParams
	ss, err := c.sessionOf(params, &req, &req.SessionID)
	if err != nil {
		return nil, err
	}
	state, _, err := ss.waitStarted(ctx)
	if err != nil && state.ID == "" {
		return nil, startError(ss.agentName, err)
	}
	turns := ss.shownTurns()
	agent := ss.agentName
	var res parleyapi.CarryResult
	var carry conversation.Carry
	switch method {
	case parleyapi.MethodFork:
		if req.Turn > 0 {
			turns = ss.numbered(ctx, turns)
			turns = conversation.TurnsBefore(turns, req.Turn) // a fork at a turn cannot be the agent's
		} else {
			carry.Fork = state.ID
		}
	case parleyapi.MethodHandoff:
		if strings.TrimSpace(req.Agent) == "" {
			return nil, acp.Errorf(parleyapi.CodeInvalidParams, "_parley/handoff needs the agent to hand the conversation to")
		}
		agent = req.Agent
	case parleyapi.MethodRewind:
		if req.Turn < 1 {
			return nil, acp.Errorf(parleyapi.CodeInvalidParams, "_parley/rewind needs the turn to go back to before (1 or more)")
		}
		turns = conversation.TurnsBefore(ss.numbered(ctx, turns), req.Turn)
		undo, err := ss.rewindFiles(ctx, req.Turn)
		if err != nil {
			return nil, err
		}
		res.Undo = undo
	}
	seed := conversation.MakeSeed(turns, conversation.SeedOptions{Agent: ss.agentName})
	carry.Seed, carry.Summarised = seed.Blocks(), seed.Summarised
	next, err := c.srv.openCarried(newSessionID(), agent, ss, carry, c.elicits())
	if err != nil {
		return nil, err
	}
	opened, _, err := next.waitStarted(ctx)
	if err != nil && opened.ID == "" {
		next.close()
		return nil, startError(agent, err)
	}
	res.SessionID, res.Agent, res.How = next.id, agent, opened.Carried
	if opened.Carried == conversation.CarriedSummarised {
		res.Summary = seed.Text
	}
	return res, nil
}

// openCarried is openSession for a session that carries from's conversation on.
func (s *Server) openCarried(id acp.SessionID, name string, from *session, carry conversation.Carry, elicit bool) (*session, error) {
	agent, err := s.acquireAgent(name, from.roots)
	if err != nil {
		return nil, err
	}
	conv := conversation.New(conversation.Options{
		Agent: agent, Roots: from.roots, Policy: s.opts.Launcher.Policy(name, from.roots), Interactive: true, Elicit: elicit,
		Changes: s.opts.Launcher.Changes(name, from.roots), Carry: &carry,
	})
	ss := newSession(s, id, name, from.roots, agent, conv)
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		ss.close()
		return nil, errServerClosed
	}
	s.sessions[id] = ss
	s.mu.Unlock()
	return ss, nil
}

// shownTurns are the turns the conversation shows now.
func (ss *session) shownTurns() []store.TranscriptTurn {
	sub := ss.conv.Subscribe()
	defer sub.Close()
	for _, ev := range sub.Take() {
		if snap, ok := ev.(conversation.Snapshot); ok {
			return conversation.TurnsOfTranscript(snap.Transcript)
		}
	}
	return nil
}

// numbered gives the turns their numbers in the record of changes: the record's turns (not
// its undos), in order, are matched to the prompts they were labelled with.
func (ss *session) numbered(ctx context.Context, turns []store.TranscriptTurn) []store.TranscriptTurn {
	if !ss.conv.Recorded() {
		return turns
	}
	record, err := ss.conv.Changes(ctx)
	if err != nil {
		return turns
	}
	i := 0
	for _, r := range record {
		if r.Undo {
			continue
		}
		for j := i; j < len(turns); j++ {
			if p := strings.TrimSpace(turns[j].Prompt); p == strings.TrimSpace(r.Label) || (r.Label != "" && strings.HasPrefix(p, strings.TrimSpace(r.Label))) {
				turns[j].ChangeTurn, i = r.Number, j+1
				break
			}
		}
	}
	return turns
}

// rewindFiles undoes every turn from turn on (as _parley/undo with rewind), when some
// change of them waits to be undone.
func (ss *session) rewindFiles(ctx context.Context, turn int) (*parleyapi.UndoResult, error) {
	if !ss.conv.Recorded() {
		return nil, nil
	}
	record, err := ss.conv.Changes(ctx)
	if err != nil {
		return nil, changesrpc.Error(err)
	}
	pending := false
	for _, t := range record {
		pending = pending || (t.Number >= turn && !t.Undo && t.Pending())
	}
	if !pending {
		return nil, nil
	}
	res, err := changesrpc.Undo(ctx, ss.conv, ss.roots.Dirs()[0], changes.UndoRequest{Turn: turn, Rewind: true})
	if err != nil {
		var ae *acp.Error
		if errors.As(err, &ae) {
			return nil, err
		}
		return nil, acp.Errorf(parleyapi.CodeInternal, "%s", toolui.SafeText(err.Error()))
	}
	return &res, nil
}
