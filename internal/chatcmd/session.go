package chatcmd

import (
	"context"
	"errors"
	"fmt"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/conversation"
)

// What /sessions, /load, /mode, /model and /config do to the conversation's session.

// Sessions is /sessions: the list (verb ""), or verb close or delete of session id. It
// says what it did ("closed", "deleted") when it ended one.
func Sessions(ctx context.Context, conv *conversation.Conversation, s conversation.Session, verb, id string) (list []acp.SessionInfo, did string, err error) {
	switch verb {
	case "":
		if s.Agent.Capabilities.SessionCapabilities.List == nil {
			return nil, "", errors.New("this agent cannot list its sessions")
		}
		list, err := conv.ListSessions(ctx)
		if err != nil {
			return nil, "", fmt.Errorf("listing sessions: %w", err)
		}
		return list, "", nil
	case "close":
		return nil, "closed", conv.CloseSession(ctx, acp.SessionID(id))
	case "delete":
		return nil, "deleted", conv.DeleteSession(ctx, acp.SessionID(id))
	}
	return nil, "", fmt.Errorf("/sessions takes close ID or delete ID, not %q", verb)
}

// Load is /load ID: session/load replays the session, session/resume does not.
func Load(ctx context.Context, conv *conversation.Conversation, s conversation.Session, id string) (conversation.Session, error) {
	caps := s.Agent.Capabilities
	if !caps.LoadSession && caps.SessionCapabilities.Resume == nil {
		return s, errors.New("this agent cannot reopen sessions")
	}
	return conv.LoadSession(ctx, acp.SessionID(id))
}

// Choice is one value of a mode, a model or a setting.
type Choice struct {
	ID, Name, Description string
	Current               bool
}

// Choices are what /mode or /model offer. Option is the setting they are the values of,
// where the agent has a setting of that category (nil for its legacy modes or models).
type Choices struct {
	Title  string
	Items  []Choice
	Option *acp.SessionConfigOption
}

// Modes are the session's modes.
func Modes(s conversation.Session) (Choices, error) {
	if o, ok := s.ConfigOption(acp.SessionConfigOptionCategoryMode); ok {
		return optionChoices(o), nil
	}
	if s.Modes == nil || len(s.Modes.AvailableModes) == 0 {
		return Choices{}, errors.New("this agent has no modes")
	}
	c := Choices{Title: "modes"}
	for _, m := range s.Modes.AvailableModes {
		c.Items = append(c.Items, Choice{ID: string(m.ID), Name: m.Name, Description: m.Description, Current: m.ID == s.Modes.CurrentModeID})
	}
	return c, nil
}

// Models are the agent's models.
func Models(s conversation.Session) (Choices, error) {
	if o, ok := s.ConfigOption(acp.SessionConfigOptionCategoryModel); ok {
		return optionChoices(o), nil
	}
	if s.Models == nil || len(s.Models.AvailableModels) == 0 {
		return Choices{}, errors.New("this agent offers no choice of model")
	}
	c := Choices{Title: "models"}
	for _, m := range s.Models.AvailableModels {
		c.Items = append(c.Items, Choice{ID: string(m.ModelID), Name: m.Name, Description: m.Description, Current: m.ModelID == s.Models.CurrentModelID})
	}
	return c, nil
}

func optionChoices(o acp.SessionConfigOption) Choices {
	c := Choices{Title: o.Name, Option: &o}
	for _, v := range SelectValues(o) {
		c.Items = append(c.Items, Choice{ID: string(v.Value), Name: v.Name, Description: v.Description, Current: v.Value == o.Select.CurrentValue})
	}
	return c
}

// SelectValues are a select setting's values, grouped or not (a new slice: the
// session's stays as it is).
func SelectValues(o acp.SessionConfigOption) []acp.SessionConfigSelectOption {
	vals := append([]acp.SessionConfigSelectOption(nil), o.Select.Options.Ungrouped...)
	for _, g := range o.Select.Options.Grouped {
		vals = append(vals, g.Options...)
	}
	return vals
}

// Set is what setting a mode, a model or a setting left: the session, and the setting
// as the agent reports it now (the agent decides what was set; nil for a legacy mode or
// model).
type Set struct {
	Session conversation.Session
	Option  *acp.SessionConfigOption
}

// Choose is /mode ID or /model ID: c are the choices Modes or Models gave, model says
// which.
func Choose(ctx context.Context, conv *conversation.Conversation, c Choices, model bool, id string) (Set, error) {
	if c.Option != nil {
		return SetOption(ctx, conv, *c.Option, id)
	}
	what, set := "the mode", conv.SetMode
	if model {
		what, set = "the model", conv.SetModel
	}
	s, err := set(ctx, id)
	if err != nil {
		return Set{}, fmt.Errorf("setting %s: %w", what, err)
	}
	return Set{Session: s}, nil
}

// SetOption sets a select setting to value.
func SetOption(ctx context.Context, conv *conversation.Conversation, o acp.SessionConfigOption, value string) (Set, error) {
	s, err := conv.SetConfigOption(ctx, o.ID, acp.SessionConfigValueID(value))
	if err != nil {
		return Set{}, fmt.Errorf("setting %s: %w", o.Name, err)
	}
	out := Set{Session: s}
	for _, n := range s.Config {
		if n.ID == o.ID && n.Select != nil {
			out.Option = &n
		}
	}
	return out, nil
}

// Config is /config ID VALUE: a setting of any type, checked before it is set; it
// returns the setting as the agent reports it afterwards (ok false if it no longer has it).
func Config(ctx context.Context, conv *conversation.Conversation, id, value string) (conversation.Session, conversation.Setting, bool, error) {
	s, err := conv.SetConfig(ctx, id, value)
	if err != nil {
		return s, conversation.Setting{}, false, err
	}
	st, ok := s.Setting(id)
	return s, st, ok, nil
}
