package conversation

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/parley-acp/parley/acp"
)

// The session's settings: its config options of every type the schema has (select, with
// or without groups, and boolean), and, for agents that still send them instead, the
// legacy modes and models. A view lists them with Session.Settings (the values each
// takes, for completion) and changes one with SetConfig, which checks the value first.

// Setting is one setting of the session, as a view shows it.
type Setting struct {
	ID          string // what SetConfig takes
	Name        string
	Description string
	// Category is the agent's hint of what it is: mode, model, model_config,
	// thought_level, or another word (a custom one starts with _).
	Category acp.SessionConfigOptionCategory
	Kind     SettingKind
	Current  string // a select value's id, or "true"/"false"
	Values   []SettingValue
	// Legacy: the agent's older modes (ID "mode") or models (ID "model"), set through
	// session/set_mode or session/set_model.
	Legacy bool
}

// SettingKind is what a setting takes.
type SettingKind string

const (
	SettingSelect  SettingKind = "select"  // one of Values
	SettingBoolean SettingKind = "boolean" // true or false
)

// SettingValue is one value a select setting takes.
type SettingValue struct {
	ID          string
	Name        string
	Description string
	Group       string // the name of its group, when the agent groups them
}

// Settings lists the session's settings in the agent's order (earlier is more
// prominent); an option of a type parley does not know is left out (the agent keeps its
// value). The legacy modes and models follow, unless a config option of their category
// replaces them.
func (s Session) Settings() []Setting {
	var out []Setting
	hasCategory := map[acp.SessionConfigOptionCategory]bool{}
	for _, o := range s.Config {
		st := Setting{ID: string(o.ID), Name: o.Name, Description: o.Description, Category: o.Category}
		switch {
		case o.Select != nil:
			st.Kind, st.Current = SettingSelect, string(o.Select.CurrentValue)
			for _, v := range o.Select.Options.Ungrouped {
				st.Values = append(st.Values, SettingValue{ID: string(v.Value), Name: v.Name, Description: v.Description})
			}
			for _, g := range o.Select.Options.Grouped {
				for _, v := range g.Options {
					st.Values = append(st.Values, SettingValue{ID: string(v.Value), Name: v.Name, Description: v.Description, Group: g.Name})
				}
			}
		case o.Boolean != nil:
			st.Kind, st.Current = SettingBoolean, fmt.Sprint(o.Boolean.CurrentValue)
		default:
			continue
		}
		hasCategory[o.Category] = true
		out = append(out, st)
	}
	if m := s.Modes; m != nil && !hasCategory[acp.SessionConfigOptionCategoryMode] && !s.hasSetting(out, "mode") {
		st := Setting{ID: "mode", Name: "Mode", Category: acp.SessionConfigOptionCategoryMode, Kind: SettingSelect, Current: string(m.CurrentModeID), Legacy: true}
		for _, mode := range m.AvailableModes {
			st.Values = append(st.Values, SettingValue{ID: string(mode.ID), Name: mode.Name, Description: mode.Description})
		}
		out = append(out, st)
	}
	if m := s.Models; m != nil && !hasCategory[acp.SessionConfigOptionCategoryModel] && !s.hasSetting(out, "model") {
		st := Setting{ID: "model", Name: "Model", Category: acp.SessionConfigOptionCategoryModel, Kind: SettingSelect, Current: string(m.CurrentModelID), Legacy: true}
		for _, model := range m.AvailableModels {
			st.Values = append(st.Values, SettingValue{ID: string(model.ModelID), Name: model.Name, Description: model.Description})
		}
		out = append(out, st)
	}
	return out
}

func (s Session) hasSetting(list []Setting, id string) bool {
	return slices.ContainsFunc(list, func(st Setting) bool { return st.ID == id })
}

// Setting finds a setting by id.
func (s Session) Setting(id string) (Setting, bool) {
	for _, st := range s.Settings() {
		if st.ID == id {
			return st, true
		}
	}
	return Setting{}, false
}

// InvalidSettingError: SetConfig was given an id the session has no setting for, or a
// value the setting does not take. It lists what would do; nothing was sent.
type InvalidSettingError struct {
	ID, Value string
	Setting   *Setting // nil when the id is unknown
	Valid     []string // the ids of the settings, or the values of this one
}

func (e *InvalidSettingError) Error() string {
	if e.Setting == nil {
		if len(e.Valid) == 0 {
			return fmt.Sprintf("this agent has no setting %q (it offers none)", e.ID)
		}
		return fmt.Sprintf("this agent has no setting %q; its settings: %s", e.ID, strings.Join(e.Valid, ", "))
	}
	return fmt.Sprintf("%s (%s) takes no value %q; its values: %s", e.Setting.Name, e.ID, e.Value, strings.Join(e.Valid, ", "))
}

// CheckSetting checks that the session has setting id and that it takes value; it
// returns the setting and the value as SetConfig sends it.
func (s Session) CheckSetting(id, value string) (Setting, string, error) {
	st, ok := s.Setting(id)
	if !ok {
		var ids []string
		for _, st := range s.Settings() {
			ids = append(ids, st.ID)
		}
		return Setting{}, "", &InvalidSettingError{ID: id, Value: value, Valid: ids}
	}
	switch st.Kind {
	case SettingBoolean:
		switch strings.ToLower(value) {
		case "true", "on", "yes", "1":
			return st, "true", nil
		case "false", "off", "no", "0":
			return st, "false", nil
		}
		return st, "", &InvalidSettingError{ID: id, Value: value, Setting: &st, Valid: []string{"true", "false"}}
	default:
		var ids []string
		for _, v := range st.Values {
			if v.ID == value {
				return st, value, nil
			}
			ids = append(ids, v.ID)
		}
		return st, "", &InvalidSettingError{ID: id, Value: value, Setting: &st, Valid: ids}
	}
}

// SetConfig changes setting id to value (a select value's id; true or false for a
// boolean) after checking both against the session (an *InvalidSettingError, and
// nothing sent, when either is wrong), and returns the session as the agent then reports
// it: the agent decides what was set.
func (c *Conversation) SetConfig(ctx context.Context, id, value string) (Session, error) {
	s, err := c.Session(ctx)
	if err != nil {
		return s, err
	}
	st, value, err := s.CheckSetting(id, value)
	if err != nil {
		return s, err
	}
	switch {
	case st.Legacy && st.ID == "mode":
		return c.SetMode(ctx, value)
	case st.Legacy && st.ID == "model":
		return c.SetModel(ctx, value)
	case st.Kind == SettingBoolean:
		return c.setConfigValue(ctx, acp.SessionConfigID(id), acp.ConfigValueBoolean(value == "true"))
	}
	return c.SetConfigOption(ctx, acp.SessionConfigID(id), acp.SessionConfigValueID(value))
}

func (c *Conversation) setConfigValue(ctx context.Context, id acp.SessionConfigID, value acp.SessionConfigValue) (Session, error) {
	err := c.callSession(ctx, acp.MethodSetSessionConfigOption, func(ctx context.Context, conn *acp.ClientConn, s Session) (func(*Conversation), error) {
		resp, err := conn.SetSessionConfigOption(ctx, &acp.SetSessionConfigOptionRequest{SessionID: s.ID, ConfigID: id, Value: value})
		if err != nil {
			return nil, err
		}
		return func(c *Conversation) { c.changeSession(func(s *Session) { s.Config = resp.ConfigOptions }) }, nil
	})
	if err != nil {
		return Session{}, err
	}
	return c.Session(ctx)
}
