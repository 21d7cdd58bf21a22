package conversation

import (
	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

// Session updates parley advertises and shows beyond the turn's own (text, tool calls,
// plan, usage: toolui's): the agent's notices and its context compactions, which the
// acp package keeps undecoded.

// AgentNotice: the agent tells the user something outside the reply (a "notice" update):
// a warning about its quota, a degraded service. Its text is the agent's: the view makes
// it safe to print.
type AgentNotice struct {
	Severity    acp.NoticeSeverity // info, warning, error, or another word
	Title       string
	Description string
}

// Compaction: the agent is compacting its context, or has (a "compaction_update").
type Compaction struct {
	ID      acp.CompactionID
	Status  acp.CompactionStatus // in_progress, completed, failed, cancelled, or another word
	Summary string               // the summary's text, when it came with the update
	Error   string
}

func (AgentNotice) event() {}
func (Compaction) event()  {}

// applyOther shows the updates that change neither the session's settings nor the turn.
func (c *Conversation) applyOther(u acp.SessionUpdate) {
	switch u.Kind() {
	case "notice":
		var n acp.Notice
		if json.Unmarshal(u.Unknown, &n) == nil && n.Title != "" {
			c.emit(AgentNotice{Severity: n.Severity, Title: n.Title, Description: n.Description})
		}
	case "compaction_update":
		var cu acp.CompactionUpdate
		if json.Unmarshal(u.Unknown, &cu) == nil {
			ev := Compaction{ID: cu.CompactionID, Status: cu.Status, Error: cu.Error}
			for _, b := range cu.Summary {
				if t, ok := b.AsText(); ok {
					ev.Summary += t
				}
			}
			c.emit(ev)
		}
	}
}

func copyUsage(u *acp.Usage) *acp.Usage {
	if u == nil {
		return nil
	}
	cp := *u
	return &cp
}
