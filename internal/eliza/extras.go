package eliza

import (
	"context"
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parley-acp/parley/acp"
)

// Test commands for what a client shows besides the reply (issues 19 and 20): a question
// for the user (a form elicitation), the session's settings (config options), a file
// written through the client (fs/write_text_file, for a record of changes), and usage.
// They use only what the client advertised in initialize, and say so otherwise.

// askMe asks the user a form (elicitation/create) and says what came back.
func (t *turn) askMe(topic string) {
	if caps := t.agent.clientCaps(); caps.Elicitation == nil || caps.Elicitation.Form == nil {
		t.say("I would ask you something, but this client cannot answer questions.")
		return
	}
	topic = strings.TrimPrefix(topic, "about ")
	if topic == "" {
		topic = "you"
	}
	colors := []acp.EnumOption{{Const: "red", Title: "Red"}, {Const: "green", Title: "Green"}, {Const: "blue", Title: "Blue"}}
	resp, err := t.agent.conn.CreateElicitation(t.ctx, &acp.CreateElicitationRequest{
		Message: "A few questions about " + topic,
		Mode:    acp.ElicitationModeForm,
		ElicitationFormMode: acp.ElicitationFormMode{RequestedSchema: &acp.ElicitationSchema{
			Type: "object",
			Properties: map[string]acp.ElicitationPropertySchema{
				"name":      {String: &acp.StringPropertySchema{Title: "Your name", MinLength: ptr(uint32(1))}},
				"color":     {String: &acp.StringPropertySchema{Title: "Favourite colour", OneOf: colors}},
				"subscribe": {Boolean: &acp.BooleanPropertySchema{Title: "Subscribe to the newsletter"}},
			},
			Order:    []string{"name", "color", "subscribe"},
			Required: []string{"name", "color"},
		}},
		ElicitationSessionScope: acp.ElicitationSessionScope{SessionID: t.session.id},
	})
	switch {
	case err != nil:
		t.say("the question failed: " + err.Error())
	case resp.Action != acp.ElicitationActionAccept:
		t.say("you chose to " + string(resp.Action))
	default:
		var keys []string
		for k := range resp.Content {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		var parts []string
		for _, k := range keys {
			parts = append(parts, k+"="+string(resp.Content[k]))
		}
		t.say("you answered: " + strings.Join(parts, ", "))
	}
}

func ptr[T any](v T) *T { return &v }

// offerSettings gives the session its settings (config_option_update): a mood to choose
// and a boolean.
func (t *turn) offerSettings() {
	t.session.config = defaultSettings()
	if caps := t.agent.clientCaps().Session; caps == nil || caps.ConfigOptions == nil || caps.ConfigOptions.Boolean == nil {
		t.session.config = t.session.config[:1] // a boolean only for a client that takes them
	}
	t.send(acp.SessionUpdate{ConfigOptionUpdate: &acp.ConfigOptionUpdate{ConfigOptions: t.session.config}})
	t.say(fmt.Sprintf("I offer you %d settings.", len(t.session.config)))
}

func defaultSettings() []acp.SessionConfigOption {
	return []acp.SessionConfigOption{
		{ID: "mood", Name: "Mood", Description: "How the therapist sounds", Category: "_mood", Select: &acp.SessionConfigSelect{
			CurrentValue: "calm",
			Options: acp.SessionConfigSelectOptions{Ungrouped: []acp.SessionConfigSelectOption{
				{Value: "calm", Name: "Calm"}, {Value: "cheerful", Name: "Cheerful"}, {Value: "gloomy", Name: "Gloomy"},
			}},
		}},
		{ID: "verbose", Name: "Verbose", Description: "Say more", Boolean: &acp.SessionConfigBoolean{}},
	}
}

// showSettings says the settings' values.
func (t *turn) showSettings() {
	if len(t.session.config) == 0 {
		t.say("no settings yet (say \"offer settings\")")
		return
	}
	var parts []string
	for _, o := range t.session.config {
		switch {
		case o.Select != nil:
			parts = append(parts, fmt.Sprintf("%s=%s", o.ID, o.Select.CurrentValue))
		case o.Boolean != nil:
			parts = append(parts, fmt.Sprintf("%s=%t", o.ID, o.Boolean.CurrentValue))
		}
	}
	t.say("settings: " + strings.Join(parts, ", "))
}

// SetSessionConfigOption sets one of the settings offerSettings gave.
func (a *agent) SetSessionConfigOption(ctx context.Context, req *acp.SetSessionConfigOptionRequest) (*acp.SetSessionConfigOptionResponse, error) {
	s := a.session(req.SessionID)
	if s == nil {
		return nil, acp.ErrSessionNotFound(req.SessionID)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	i := slices.IndexFunc(s.config, func(o acp.SessionConfigOption) bool { return o.ID == req.ConfigID })
	if i < 0 {
		return nil, acp.ErrInvalidParams("no setting %q", req.ConfigID)
	}
	o := s.config[i]
	switch {
	case o.Select != nil && req.Value.Type == "":
		if !slices.ContainsFunc(o.Select.Options.Ungrouped, func(v acp.SessionConfigSelectOption) bool { return v.Value == req.Value.ID }) {
			return nil, acp.ErrInvalidParams("%s takes no value %q", o.ID, req.Value.ID)
		}
		sel := *o.Select
		sel.CurrentValue = req.Value.ID
		o.Select = &sel
	case o.Boolean != nil && req.Value.Type == "boolean":
		o.Boolean = &acp.SessionConfigBoolean{CurrentValue: req.Value.Boolean}
	default:
		return nil, acp.ErrInvalidParams("%s takes no such value", o.ID)
	}
	s.config = slices.Clone(s.config)
	s.config[i] = o
	return &acp.SetSessionConfigOptionResponse{ConfigOptions: s.config}, nil
}

// writeFile writes a file in the session's directory through the client
// (fs/write_text_file): `write file NAME with TEXT`.
func (t *turn) writeFile(spec string) {
	if !t.agent.clientCaps().FS.WriteTextFile {
		t.say("I would write a file, but this client cannot write files.")
		return
	}
	name, text, _ := strings.Cut(spec, " with ")
	name = strings.TrimSpace(name)
	if name == "" {
		t.say("write file NAME with TEXT")
		return
	}
	path := name
	if !filepath.IsAbs(path) {
		path = filepath.Join(t.session.cwd, path)
	}
	if _, err := t.agent.conn.WriteTextFile(t.ctx, &acp.WriteTextFileRequest{SessionID: t.session.id, Path: path, Content: text + "\n"}); err != nil {
		t.say("writing " + name + " failed: " + err.Error())
		return
	}
	t.say("wrote " + name)
}

// reportUsage reports the context window's use and a cost (usage_update), and has the
// turn end with its usage.
func (t *turn) reportUsage() {
	t.send(acp.SessionUpdate{UsageUpdate: &acp.UsageUpdate{Used: 1200, Size: 200000, Cost: &acp.Cost{Amount: 0.02, Currency: "USD"}}})
	t.usage = &acp.Usage{InputTokens: 1000, OutputTokens: 200, TotalTokens: 1200}
	t.say("that cost a little")
}

// clientCaps is what the client advertised.
func (a *agent) clientCaps() acp.ClientCapabilities {
	if c := a.client.Load(); c != nil {
		return *c
	}
	return acp.ClientCapabilities{}
}
