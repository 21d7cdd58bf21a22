package toolstate

import (
	"maps"

	"github.com/parley-acp/parley/acp"
)

// MergeToolCall applies a tool_call_update to the call it is about, as a client does: a
// field the update sets replaces the call's (Content and Locations when non-nil: an empty
// list clears them), and its _meta keys and unknown members go over the call's. The
// call's maps are replaced, never changed in place, so a copy of the call taken before
// (a shallow one does) keeps what it had.
func MergeToolCall(c *acp.ToolCall, u *acp.ToolCallUpdate) {
	if u.Title != "" {
		c.Title = u.Title
	}
	if u.Name != "" {
		c.Name = u.Name
	}
	if u.Kind != "" {
		c.Kind = u.Kind
	}
	if u.Status != "" {
		c.Status = u.Status
	}
	if u.Content != nil {
		c.Content = u.Content
	}
	if u.Locations != nil {
		c.Locations = u.Locations
	}
	if u.RawInput != nil {
		c.RawInput = u.RawInput
	}
	if u.RawOutput != nil {
		c.RawOutput = u.RawOutput
	}
	if len(u.Meta) > 0 {
		m := make(acp.Meta, len(c.Meta)+len(u.Meta))
		maps.Copy(m, c.Meta)
		maps.Copy(m, u.Meta)
		c.Meta = m
	}
	if len(u.Extra) > 0 {
		x := make(acp.Extra, len(c.Extra)+len(u.Extra))
		maps.Copy(x, c.Extra)
		maps.Copy(x, u.Extra)
		c.Extra = x
	}
}
