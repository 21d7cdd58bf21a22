package tools

import (
	"context"
	_ "embed"
	"errors"
	"fmt"
	"io/fs"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

//go:embed edit_file.md
var editFileDescription string

type editFileParams struct {
	pathArg
	OldString  string `json:"old_string"`
	NewString  string `json:"new_string"`
	ReplaceAll bool   `json:"replace_all"`
}

type editFile struct{}

func (editFile) Name() string        { return "edit_file" }
func (editFile) Description() string { return editFileDescription }
func (editFile) Kind() acp.ToolKind  { return acp.ToolKindEdit }
func (editFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string"},` +
		`"old_string":{"type":"string"},` +
		`"new_string":{"type":"string"},` +
		`"replace_all":{"type":"boolean"}},` +
		`"required":["path","old_string","new_string"]}`)
}

func (editFile) Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error) {
	var p editFileParams
	if err := decodeArgs(args, &p); err != nil {
		return modelError("Edit", "%v", err), nil
	}
	if p.value() == "" {
		return modelError("Edit", "path is required"), nil
	}
	title := "Edit " + p.value()
	abs, err := s.resolveForWrite(p.value())
	if err != nil {
		return modelError(title, "%v", err), nil
	}
	name := s.display(abs)
	title = "Edit " + name
	if p.OldString == p.NewString {
		return modelError(title, "old_string and new_string are the same; nothing to change"), nil
	}
	content, err := s.Env.ReadFile(ctx, abs)
	missing := errors.Is(err, fs.ErrNotExist)
	if err != nil && !missing {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return modelError(title, "reading %s: %v", name, err), nil
	}
	var old *string
	var updated string
	switch {
	case missing && p.OldString == "":
		updated = p.NewString // create
	case missing:
		return modelError(title, "%s does not exist; to create it, give an empty old_string or use write_file", name), nil
	case p.OldString == "":
		return modelError(title, "old_string is empty but %s already exists; give the text to replace, or use write_file to replace the whole file", name), nil
	default:
		read, unchanged := s.Reads.State(abs, content)
		if !read {
			return modelError(title, "you must read %s with read_file before editing it", name), nil
		}
		if !unchanged {
			return modelError(title, "%s has changed since you last read it; read it again with read_file, then edit", name), nil
		}
		var msg string
		updated, msg = replace(content, p.OldString, p.NewString, p.ReplaceAll)
		if msg != "" {
			return modelError(title, "%s in %s", msg, name), nil
		}
		old = &content
	}
	refused, err := s.write(ctx, Change{Path: abs, Old: old, New: updated})
	if refused != "" {
		return modelError(title, "%s", refused), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return modelError(title, "writing %s: %v", name, err), nil
	}
	line := 0
	if old != nil {
		line = strings.Count((*old)[:commonPrefix(*old, updated)], "\n") + 1
	}
	out := "Edited " + name
	if old == nil {
		out = "Created " + name
	}
	return Result{
		Output:    out,
		Title:     title,
		Locations: []acp.ToolCallLocation{{Path: abs, Line: uint32(line)}},
		Diff:      &Diff{Path: abs, OldText: old, NewText: updated},
	}, nil
}

// replace applies one edit; msg explains to the model why it could not. A file with CRLF
// line endings keeps them when the model wrote plain newlines.
func replace(content, oldS, newS string, all bool) (updated, msg string) {
	if strings.Contains(content, "\r\n") && !strings.Contains(oldS, "\r\n") {
		oldS = strings.ReplaceAll(oldS, "\n", "\r\n")
		newS = strings.ReplaceAll(strings.ReplaceAll(newS, "\r\n", "\n"), "\n", "\r\n")
	}
	n := strings.Count(content, oldS)
	switch {
	case n == 0:
		return "", "old_string was not found" + nearMatchHint(content, oldS)
	case n > 1 && !all:
		return "", fmt.Sprintf("old_string occurs %d times; include more surrounding lines to make it unique, or set replace_all to replace every occurrence", n)
	case all:
		return strings.ReplaceAll(content, oldS, newS), ""
	}
	return strings.Replace(content, oldS, newS, 1), ""
}

// nearMatchHint names the lines whose text equals old's first line but for indentation:
// the commonest reason an exact match fails.
func nearMatchHint(content, old string) string {
	first := ""
	for l := range strings.SplitSeq(old, "\n") {
		if t := strings.TrimSpace(l); t != "" {
			first = t
			break
		}
	}
	if first == "" {
		return ""
	}
	var at []string
	for i, l := range strings.Split(content, "\n") {
		if strings.TrimSpace(l) == first {
			at = append(at, fmt.Sprint(i+1))
			if len(at) == 5 {
				break
			}
		}
	}
	if len(at) == 0 {
		return "; check the exact text with read_file (whitespace, indentation and line numbers matter)"
	}
	return fmt.Sprintf("; its first line appears, with different whitespace or different following lines, at line %s: copy the text exactly from read_file output (without line numbers)", strings.Join(at, ", "))
}

func commonPrefix(a, b string) int {
	n := min(len(a), len(b))
	for i := range n {
		if a[i] != b[i] {
			return i
		}
	}
	return n
}
