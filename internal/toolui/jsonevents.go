package toolui

import (
	"fmt"
	"io"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/toolstate"
)

// JSONEncoder writes each event as one JSON object on a line, for scripts (--json). The
// objects and their members are listed in the package documentation; they are a stable
// interface: members may be added, never renamed or removed.
type JSONEncoder struct {
	w   io.Writer
	buf []byte
	err error
}

// NewJSONEncoder returns a JSONEncoder writing to w, one write per line.
func NewJSONEncoder(w io.Writer) *JSONEncoder { return &JSONEncoder{w: w} }

type jsonText struct {
	Type      string        `json:"type"`
	Text      string        `json:"text"`
	MessageID acp.MessageID `json:"messageId,omitempty"`
}

type jsonPlanEntry struct {
	Content  string                `json:"content"`
	Priority acp.PlanEntryPriority `json:"priority,omitempty"`
	Status   acp.PlanEntryStatus   `json:"status"`
}

type jsonPlan struct {
	Type    string          `json:"type"`
	Entries []jsonPlanEntry `json:"entries"`
}

type jsonUsage struct {
	Type string    `json:"type"`
	Used uint64    `json:"used"`
	Size uint64    `json:"size"`
	Cost *jsonCost `json:"cost,omitempty"`
}

type jsonCost struct {
	Amount   float64 `json:"amount"`
	Currency string  `json:"currency"`
}

type jsonUpdate struct {
	Type   string          `json:"type"`
	Kind   string          `json:"kind"`
	Update json.RawMessage `json:"update"`
}

type jsonStop struct {
	Type       string         `json:"type"`
	StopReason acp.StopReason `json:"stopReason"`
	Usage      *jsonTurnUsage `json:"usage,omitempty"`
}

// jsonTurnUsage is the agent's end-of-turn usage, as it reported it.
type jsonTurnUsage struct {
	TotalTokens       uint64  `json:"totalTokens"`
	InputTokens       uint64  `json:"inputTokens"`
	OutputTokens      uint64  `json:"outputTokens"`
	ThoughtTokens     *uint64 `json:"thoughtTokens,omitempty"`
	CachedReadTokens  *uint64 `json:"cachedReadTokens,omitempty"`
	CachedWriteTokens *uint64 `json:"cachedWriteTokens,omitempty"`
}

type jsonToolCall struct {
	Type         string                 `json:"type"`
	ID           acp.ToolCallID         `json:"id,omitempty"`         // in JSON events
	ToolCallID   acp.ToolCallID         `json:"toolCallId,omitempty"` // in ToolCallPart
	State        string                 `json:"state"`
	IsError      bool                   `json:"isError,omitempty"`
	Outcome      toolstate.Outcome      `json:"outcome,omitempty"`     // how it ended: toolstate.Outcome
	OutcomeText  string                 `json:"outcomeText,omitempty"` // the outcome in words
	Title        string                 `json:"title"`
	ToolName     string                 `json:"toolName,omitempty"`
	Kind         acp.ToolKind           `json:"kind"`
	RawKind      acp.ToolKind           `json:"rawKind,omitempty"`
	Status       acp.ToolCallStatus     `json:"status,omitempty"`
	Invocation   string                 `json:"invocationMessage,omitempty"`
	PastTense    string                 `json:"pastTenseMessage,omitempty"`
	ErrorMessage string                 `json:"errorMessage,omitempty"`
	Command      string                 `json:"terminalCommand,omitempty"`
	Terminals    []acp.TerminalID       `json:"terminals,omitempty"`
	Diffs        []jsonDiff             `json:"diffs,omitempty"`
	Locations    []jsonLocation         `json:"locations,omitempty"`
	Content      string                 `json:"content,omitempty"`
	ParentID     acp.ToolCallID         `json:"parentId,omitempty"`
	Presentation toolstate.Presentation `json:"presentation,omitempty"`
	Confirmation *jsonConfirmation      `json:"confirmation,omitempty"`
}

type jsonDiff struct {
	Path    string `json:"path"`
	Added   int    `json:"added"`
	Removed int    `json:"removed"`
	New     bool   `json:"new,omitempty"`
}

type jsonLocation struct {
	Path string `json:"path"`
	Line uint32 `json:"line,omitempty"`
}

type jsonConfirmation struct {
	Title   string       `json:"title"`
	Message string       `json:"message,omitempty"`
	Options []jsonOption `json:"options"`
	Outcome string       `json:"outcome,omitempty"`
	By      string       `json:"decidedBy,omitempty"`
}

type jsonOption struct {
	OptionID acp.PermissionOptionID   `json:"optionId"`
	Name     string                   `json:"name"`
	Kind     acp.PermissionOptionKind `json:"kind"`
}

// Render writes the event's line; an event with nothing to say (NoEvent) writes none.
func (e *JSONEncoder) Render(ev toolstate.Event) error {
	var v any
	switch ev.Kind {
	case toolstate.TextDelta:
		v = jsonText{"text", ev.Text, ev.MessageID}
	case toolstate.ThoughtDelta:
		v = jsonText{"thought", ev.Text, ev.MessageID}
	case toolstate.PlanChanged:
		p := jsonPlan{Type: "plan", Entries: make([]jsonPlanEntry, len(ev.Plan))}
		for i, en := range ev.Plan {
			p.Entries[i] = jsonPlanEntry{en.Content, en.Priority, en.Status}
		}
		v = p
	case toolstate.ToolStarted, toolstate.ToolUpdated:
		v = toolJSON("tool_call", ev.Tool)
	case toolstate.PermissionRequested, toolstate.PermissionDecided:
		v = toolJSON("permission", ev.Tool)
	case toolstate.UsageChanged:
		u := jsonUsage{Type: "usage", Used: ev.Usage.Used, Size: ev.Usage.Size}
		if c := ev.Usage.Cost; c != nil {
			u.Cost = &jsonCost{c.Amount, c.Currency}
		}
		v = u
	case toolstate.Other, toolstate.Unknown:
		raw, err := json.Marshal(ev.Update)
		if err != nil {
			raw = []byte("null")
		}
		typ := "other"
		if ev.Kind == toolstate.Unknown {
			typ = "unknown"
		}
		v = jsonUpdate{typ, ev.UpdateKind, raw}
	default:
		return e.err
	}
	return e.write(v)
}

// EndTurn writes the stop line: {"type":"stop","stopReason":"end_turn"}.
func (e *JSONEncoder) EndTurn(reason acp.StopReason) error {
	return e.EndTurnUsage(reason, nil)
}

// EndTurnUsage writes the stop line with the turn's usage as the agent reported it at
// its end, if it did: {"type":"stop","stopReason":"end_turn","usage":{"totalTokens":…}}.
func (e *JSONEncoder) EndTurnUsage(reason acp.StopReason, u *acp.Usage) error {
	stop := jsonStop{Type: "stop", StopReason: reason}
	if u != nil {
		stop.Usage = &jsonTurnUsage{u.TotalTokens, u.InputTokens, u.OutputTokens, u.ThoughtTokens, u.CachedReadTokens, u.CachedWriteTokens}
	}
	return e.write(stop)
}

// ToolCallPart is a tool call's whole current state as a JSON part of type typ, keyed by
// "toolCallId": the members of the tool_call JSON event. The VS Code bridge sends it to
// clients that render tool invocations themselves.
func ToolCallPart(typ string, tc *toolstate.ToolCall) ([]byte, error) {
	j := toolJSON(typ, tc)
	j.ID, j.ToolCallID = "", tc.ID
	out, err := json.Marshal(j)
	if err != nil {
		return nil, err
	}
	return EscapeHidden(nil, out), nil
}

// EscapeHidden appends the JSON text js to dst with every character SafeText would show
// by its code point (see Invisible and SafeText: C1 controls, bidirectional controls,
// invisible format characters, tag characters, a joiner or variation selector out of
// place…) and DEL written as a \u escape. JSON can only hold them inside strings, where
// the escape decodes to the same character: the data is unchanged, but a terminal or a
// log viewer shown the line sees no raw U+202E. (The encoder already escapes the C0
// controls.) Every --json output goes through it (MarshalJSON, MarshalIndentJSON).
func EscapeHidden(dst, js []byte) []byte {
	if !hasNonASCII(js) {
		return append(dst, js...)
	}
	s := string(js)
	start := 0
	var prev rune
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == 0x7f {
				dst = append(append(dst, s[start:i]...), `\u007f`...)
				start = i + 1
			}
			prev = rune(c)
			i++
			continue
		}
		r, n, hide := judge(s, i, prev, false)
		prev = r
		if hide {
			dst = append(dst, s[start:i]...)
			if r1, r2 := utf16.EncodeRune(r); r1 != utf8.RuneError {
				dst = fmt.Appendf(dst, `\u%04x\u%04x`, r1, r2)
			} else {
				dst = fmt.Appendf(dst, `\u%04x`, r)
			}
			start = i + n
			prev = 0
		}
		i += n
	}
	return append(dst, s[start:]...)
}

// MarshalJSON is json.Marshal for output meant for scripts: its hidden characters
// written as \u escapes (EscapeHidden).
func MarshalJSON(v any) ([]byte, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return EscapeHidden(nil, b), nil
}

// MarshalIndentJSON is json.MarshalIndent for output meant for scripts and people: its
// hidden characters written as \u escapes (EscapeHidden).
func MarshalIndentJSON(v any, prefix, indent string) ([]byte, error) {
	b, err := json.MarshalIndent(v, prefix, indent)
	if err != nil {
		return nil, err
	}
	return EscapeHidden(nil, b), nil
}

func toolJSON(typ string, tc *toolstate.ToolCall) jsonToolCall {
	j := jsonToolCall{
		Type: typ, ID: tc.ID, State: tc.State.String(), IsError: tc.IsError, Outcome: tc.Outcome(), OutcomeText: tc.Outcome().Words(),
		Title: tc.Title, ToolName: tc.ToolName, Kind: tc.Kind, Status: tc.RawStatus,
		// The messages are for showing (VS Code shows them as they are): made safe. The
		// agent's own fields (title, command, content) are data and stay lossless.
		Invocation: SafeText(tc.InvocationMessage), PastTense: SafeText(tc.PastTenseMessage), ErrorMessage: SafeText(tc.ErrorMessage),
		Command: tc.TerminalCommand, Terminals: tc.Terminals, Content: tc.Content,
		ParentID: tc.ParentID, Presentation: tc.Presentation,
	}
	if tc.RawKind != tc.Kind && tc.RawKind != "" {
		j.RawKind = tc.RawKind
	}
	for _, d := range tc.Diffs {
		j.Diffs = append(j.Diffs, jsonDiff{d.Path, d.Added, d.Removed, d.IsNew})
	}
	for _, l := range tc.Locations {
		j.Locations = append(j.Locations, jsonLocation{l.Path, l.Line})
	}
	if c := tc.Confirmation; c != nil {
		jc := &jsonConfirmation{Title: c.Title, Message: c.Message, Outcome: c.Outcome, By: c.DecidedBy, Options: []jsonOption{}}
		for _, o := range c.Options {
			jc.Options = append(jc.Options, jsonOption{o.OptionID, o.Name, o.Kind})
		}
		j.Confirmation = jc
	}
	return j
}

// Event writes one event of the caller's own (a value with a "type" member) as a line.
func (e *JSONEncoder) Event(v any) error { return e.write(v) }

func (e *JSONEncoder) write(v any) error {
	if e.err != nil {
		return e.err
	}
	line, err := json.Marshal(v)
	if err != nil {
		return err // a bug in this file, not the writer's: later lines may still go out
	}
	e.buf = append(EscapeHidden(e.buf[:0], line), '\n')
	if _, err := e.w.Write(e.buf); err != nil {
		e.err = err
	}
	return e.err
}

// hasNonASCII reports whether js has a byte EscapeHidden may change.
func hasNonASCII(js []byte) bool {
	for _, c := range js {
		if c >= 0x7f {
			return true
		}
	}
	return false
}
