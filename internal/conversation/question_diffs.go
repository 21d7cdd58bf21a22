package conversation

import (
	"path/filepath"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/textdiff"
	"github.com/parley-acp/parley/internal/toolstate"
)

// An edit the agent asks permission for shows its diff in the question, in every view:
// the diffs its tool call carries (the request's own content, else what earlier updates
// of the call carried), or, when it carries none, a diff computed from the content it
// proposes (its rawInput: a whole new content, or old text replaced by new) against the
// file as it is now.

// maxProposedFile bounds the file read to compute a proposed edit's diff.
const maxProposedFile = 4 << 20

// editDiffs are the diffs of the tool call a permission request is about. It runs on the
// agent's request goroutine (it may read a file).
func (c *Conversation) editDiffs(tc acp.ToolCallUpdate) []toolstate.Diff {
	var out []toolstate.Diff
	for _, content := range tc.Content {
		if d := content.Diff; d != nil {
			old := d.OldText
			if old == nil {
				// The agent says the file is new; parley looks: a file that exists is
				// edited, and its diff is against what it holds.
				old = c.currentText(d.Path)
			}
			out = append(out, newDiff(d.Path, old, d.NewText))
		}
	}
	if len(out) > 0 || len(tc.RawInput) == 0 {
		return out
	}
	if d, ok := c.proposedDiff(tc.RawInput); ok {
		out = append(out, d)
	}
	return out
}

// proposed are the shapes agents give an edit's input: a path, then either the whole
// new content or a replacement (claude's Write and Edit, gemini's and qwen's write_file
// and replace, opencode's write and edit).
type proposed struct {
	FilePath    string  `json:"file_path"`
	FilePath2   string  `json:"filePath"`
	Path        string  `json:"path"`
	Content     *string `json:"content"`
	NewContent  *string `json:"new_content"`
	OldString   *string `json:"old_string"`
	NewString   *string `json:"new_string"`
	OldString2  *string `json:"oldString"`
	NewString2  *string `json:"newString"`
	ReplaceAll  bool    `json:"replace_all"`
	ReplaceAll2 bool    `json:"replaceAll"`
}

func (c *Conversation) proposedDiff(raw json.RawMessage) (toolstate.Diff, bool) {
	var p proposed
	if json.Unmarshal(raw, &p) != nil {
		return toolstate.Diff{}, false
	}
	path := firstOf(p.FilePath, p.FilePath2, p.Path)
	if path == "" {
		return toolstate.Diff{}, false
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.opts.Roots.Dirs()[0], path)
	}
	old := c.currentText(path)
	switch {
	case p.Content != nil:
		return newDiff(path, old, *p.Content), true
	case p.NewContent != nil:
		return newDiff(path, old, *p.NewContent), true
	}
	from, to := p.OldString, p.NewString
	if from == nil {
		from, to = p.OldString2, p.NewString2
	}
	if from == nil || to == nil || old == nil || *from == "" || !strings.Contains(*old, *from) {
		return toolstate.Diff{}, false // nothing to replace in the file as it is: no diff to show
	}
	n := 1
	if p.ReplaceAll || p.ReplaceAll2 {
		n = -1
	}
	return newDiff(path, old, strings.Replace(*old, *from, *to, n)), true
}

// currentText is what the workspace file at path (relative to the first root) holds
// now; nil when there is none parley may read.
func (c *Conversation) currentText(path string) *string {
	if !filepath.IsAbs(path) {
		path = filepath.Join(c.opts.Roots.Dirs()[0], path)
	}
	if b, err := c.opts.Roots.ReadFile(path, maxProposedFile); err == nil {
		return new(string(b))
	}
	return nil
}

func newDiff(path string, old *string, newText string) toolstate.Diff {
	d := toolstate.Diff{Path: path, NewText: newText, IsNew: old == nil}
	if old != nil {
		d.OldText = *old
	}
	d.Added, d.Removed = textdiff.Counts(d.OldText, d.NewText)
	return d
}

func firstOf(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
