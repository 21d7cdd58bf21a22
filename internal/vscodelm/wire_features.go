package vscodelm

import (
	"slices"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/parleyapi"
)

// The wire types of parley's additions for a client that shows more than a model's reply
// (@parley): the conversation's usage, the files its turns changed (to review and undo),
// the agent's questions, its settings, and sign-in. A client declares the notifications
// it handles in capabilities.notifications; the requests need no declaration. See the
// package comment.

// The notifications parley sends about an open chat request, to a client that declared
// them.
const (
	NotifyConversation   = "lm/conversation"   // which conversation the request continues
	NotifyUsage          = "lm/usage"          // usage after a turn
	NotifyChanges        = "lm/changes"        // the files a turn changed
	NotifyElicitation    = "lm/elicitation"    // a question of the agent's for the user
	NotifySignInRequired = "lm/signInRequired" // the agent needs the user to sign in
)

// Handles reports whether the client declared it handles the notification method.
func (c *ClientCapabilities) Handles(method string) bool {
	return c != nil && slices.Contains(c.Notifications, method)
}

// ConversationParams is the params of lm/conversation: the conversation (its id names
// it in the requests below) that the request continues, sent first for every request.
type ConversationParams struct {
	RequestID      json.RawMessage `json:"requestId"`
	ConversationID string          `json:"conversationId"`
}

// UsageParams is the params of lm/usage, sent before the request completes when the
// agent reported usage: Usage is the context window's use and the cost so far
// (usage_update), Turn the usage of the turn that ended (the prompt response's), each as
// the agent gave it and absent when it gave none.
type UsageParams struct {
	RequestID      json.RawMessage  `json:"requestId"`
	ConversationID string           `json:"conversationId"`
	Usage          *acp.UsageUpdate `json:"usage,omitempty"`
	Turn           *acp.Usage       `json:"turn,omitempty"`
}

// ChangesParams is the params of the notification lm/changes: a turn of the conversation changed files
// (the turn that just ended, or one cancelled earlier whose record came after its
// request was answered).
type ChangesParams struct {
	RequestID      json.RawMessage       `json:"requestId"`
	ConversationID string                `json:"conversationId"`
	Turn           parleyapi.ChangedTurn `json:"turn"`
}

// ElicitationParams is the params of lm/elicitation: the agent asks the user something.
// The client answers with lm/answerElicitation; until then the request stays open (the
// agent waits).
type ElicitationParams struct {
	RequestID      json.RawMessage `json:"requestId"`
	ConversationID string          `json:"conversationId"`
	Elicitation    ElicitationWire `json:"elicitation"`
}

// ElicitationWire is what the agent asks: a form to fill in, field by field, or a web
// page to open (mode url: accepting says the user agreed to open it).
type ElicitationWire struct {
	ID          int         `json:"id"`
	Agent       string      `json:"agent"`
	Message     string      `json:"message"`
	Mode        string      `json:"mode"` // form or url
	Title       string      `json:"title,omitempty"`
	Description string      `json:"description,omitempty"`
	Fields      []FieldWire `json:"fields,omitempty"`
	// Answerable is false when a required field is of a kind parley does not know: the
	// only answers are then decline and cancel.
	Answerable bool     `json:"answerable"`
	URL        *URLWire `json:"url,omitempty"`
}

// FieldWire is one field of a form: kind text, number, integer, boolean, choice,
// multi_choice (or unknown). A secret field's answer must not be shown as it is typed.
type FieldWire struct {
	Name        string       `json:"name"`
	Title       string       `json:"title"` // the label to show: the title, else the name
	Description string       `json:"description,omitempty"`
	Kind        string       `json:"kind"`
	Required    bool         `json:"required,omitempty"`
	Secret      bool         `json:"secret,omitempty"`
	Default     any          `json:"default,omitempty"`
	Choices     []ChoiceWire `json:"choices,omitempty"`
	MinLength   *int         `json:"minLength,omitempty"`
	MaxLength   *int         `json:"maxLength,omitempty"`
	Pattern     string       `json:"pattern,omitempty"`
	Format      string       `json:"format,omitempty"`
	Min         *float64     `json:"min,omitempty"`
	Max         *float64     `json:"max,omitempty"`
	MinItems    *int         `json:"minItems,omitempty"`
	MaxItems    *int         `json:"maxItems,omitempty"`
}

// ChoiceWire is one value of a choice field.
type ChoiceWire struct {
	Value       string `json:"value"`
	Title       string `json:"title"`
	Description string `json:"description,omitempty"`
}

// URLWire is the page a URL elicitation asks the user to open: always an http or https
// page (parley declines any other address before it asks); warn of a Punycode host
// before the user agrees.
type URLWire struct {
	URL      string `json:"url"`
	Host     string `json:"host"`
	Punycode bool   `json:"punycode,omitempty"`
}

// AnswerElicitationParams is the params of the request lm/answerElicitation: accept (with
// the form's values by field name: strings, numbers, booleans, lists of choices), decline
// or cancel. An answer the form refuses is an error -32602 naming the field; the question
// stays open.
type AnswerElicitationParams struct {
	ConversationID string         `json:"conversationId"`
	ID             int            `json:"id"`
	Action         string         `json:"action"`
	Content        map[string]any `json:"content,omitempty"`
}

// SignInRequiredParams is the params of lm/signInRequired: the agent needs the user to
// sign in before it answers. Each method comes with the parley command that signs in with
// it (Command: parley's arguments, to run in a terminal: `parley login …`); once it
// succeeded, the client sends lm/signedIn and the request again.
type SignInRequiredParams struct {
	RequestID json.RawMessage          `json:"requestId"`
	Agent     string                   `json:"agent"`
	ModelID   string                   `json:"modelId"`
	Methods   []parleyapi.SignInMethod `json:"methods"`
}

// SignedInParams is the params of the notification lm/signedIn: the user signed in to
// the agent (with `parley login`); its next conversation starts a new process, which
// knows it.
type SignedInParams struct {
	ModelID string          `json:"modelId"`
	Agent   json.RawMessage `json:"agent"`
}

// ConversationRequest is the params of the requests about a conversation (lm/settings,
// lm/changes): which one.
type ConversationRequest struct {
	ConversationID string `json:"conversationId"`
}

// SettingsResult is the result of lm/settings and lm/setConfig: the session's settings.
type SettingsResult struct {
	Settings []SettingWire `json:"settings"`
}

// SettingWire is one setting of the session: kind select (one of Values) or boolean.
// Category is the agent's hint: mode, model, model_config, thought_level, or its own.
type SettingWire struct {
	ID          string         `json:"id"`
	Name        string         `json:"name"`
	Description string         `json:"description,omitempty"`
	Category    string         `json:"category,omitempty"`
	Kind        string         `json:"kind"`
	Current     string         `json:"current"`
	Values      []SettingValue `json:"values,omitempty"`
}

// SettingValue is one value of a select setting.
type SettingValue struct {
	ID          string `json:"id"`
	Name        string `json:"name"`
	Description string `json:"description,omitempty"`
	Group       string `json:"group,omitempty"`
}

// SetConfigParams is the params of lm/setConfig: a select value's id, or "true"/"false".
// A setting or value the session has not is an error -32602 listing those it has.
type SetConfigParams struct {
	ConversationID string `json:"conversationId"`
	ID             string `json:"id"`
	Value          string `json:"value"`
}

// DiffParams is the params of lm/diff: the diff of a file a turn changed (Turn 0: the
// last turn that changed it), or, with Since, how it changed after the turn. The result
// is a parleyapi.DiffResult, as _parley/diff's.
type DiffParams struct {
	ConversationID string `json:"conversationId"`
	Path           string `json:"path"`
	Turn           int    `json:"turn,omitempty"`
	Since          bool   `json:"since,omitempty"`
}

// UndoParams is the params of lm/undo: a turn (0: the last with something to undo), some
// of its files (absolute paths), or every turn back to one (Rewind). The result is a
// parleyapi.UndoResult; an undo that would overwrite a later change is the error
// parleyapi.CodeUndoConflict with a parleyapi.ConflictData, as on _parley/undo.
type UndoParams struct {
	ConversationID string   `json:"conversationId"`
	Turn           int      `json:"turn,omitempty"`
	Paths          []string `json:"paths,omitempty"`
	Rewind         bool     `json:"rewind,omitempty"`
}
