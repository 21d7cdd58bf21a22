package tools

import (
	"context"
	_ "embed"
	"errors"
	"io/fs"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

//go:embed write_file.md
var writeFileDescription string

type writeFileParams struct {
	pathArg
	Content *string `json:"content"`
}

type writeFile struct{}

func (writeFile) Name() string        { return "write_file" }
func (writeFile) Description() string { return writeFileDescription }
func (writeFile) Kind() acp.ToolKind  { return acp.ToolKindEdit }
func (writeFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string"},` +
		`"content":{"type":"string"}},` +
		`"required":["path","content"]}`)
}

func (writeFile) Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error) {
	var p writeFileParams
	if err := decodeArgs(args, &p); err != nil {
		return modelError("Write", "%v", err), nil
	}
	if p.value() == "" || p.Content == nil {
		return modelError("Write", "path and content are required"), nil
	}
	title := "Write " + p.value()
	abs, err := s.resolveForWrite(p.value())
	if err != nil {
		return modelError(title, "%v", err), nil
	}
	name := s.display(abs)
	title = "Write " + name
	if info, err := s.Roots.Stat(abs); err == nil && info.IsDir() {
		return modelError(title, "%s is a directory", name), nil
	}
	var old *string
	if prev, err := s.Env.ReadFile(ctx, abs); err == nil {
		old = &prev
	} else if !errors.Is(err, fs.ErrNotExist) {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return modelError(title, "reading %s: %v", name, err), nil
	}
	refused, err := s.write(ctx, Change{Path: abs, Old: old, New: *p.Content})
	if refused != "" {
		return modelError(title, "%s", refused), nil
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return modelError(title, "writing %s: %v", name, err), nil
	}
	verb := "Created "
	if old != nil {
		verb = "Wrote "
	}
	return Result{
		Output:    verb + name,
		Title:     title,
		Locations: []acp.ToolCallLocation{{Path: abs}},
		Diff:      &Diff{Path: abs, OldText: old, NewText: *p.Content},
	}, nil
}
