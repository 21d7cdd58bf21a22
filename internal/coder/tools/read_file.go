package tools

import (
	"context"
	_ "embed"
	"fmt"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

//go:embed read_file.md
var readFileDescription string

const (
	readMaxLines = 2000
	readMaxBytes = 100_000
)

type readFileParams struct {
	pathArg
	StartLine int `json:"start_line"`
	EndLine   int `json:"end_line"`
}

type readFile struct{}

func (readFile) Name() string        { return "read_file" }
func (readFile) Description() string { return readFileDescription }
func (readFile) Kind() acp.ToolKind  { return acp.ToolKindRead }
func (readFile) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string"},` +
		`"start_line":{"type":"integer"},` +
		`"end_line":{"type":"integer","description":"inclusive"}},` +
		`"required":["path"]}`)
}

func (readFile) Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error) {
	var p readFileParams
	if err := decodeArgs(args, &p); err != nil {
		return modelError("Read", "%v", err), nil
	}
	if p.value() == "" {
		return modelError("Read", "path is required"), nil
	}
	title := "Read " + p.value()
	abs, err := s.resolve(p.value())
	if err != nil {
		return modelError(title, "%v", err), nil
	}
	title = "Read " + s.display(abs)
	content, err := s.Env.ReadFile(ctx, abs)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return modelError(title, "reading %s: %v", s.display(abs), err), nil
	}
	s.Reads.Record(abs, content)

	lines := strings.Split(strings.TrimSuffix(content, "\n"), "\n")
	if content == "" {
		lines = nil
	}
	start, end := max(p.StartLine, 1), p.EndLine
	if end <= 0 || end > len(lines) {
		end = len(lines)
	}
	if start > len(lines) && len(lines) > 0 {
		return modelError(title, "start_line %d is past the end of %s (%d lines)", start, s.display(abs), len(lines)), nil
	}
	if start > end {
		return modelError(title, "start_line %d is after end_line %d", start, end), nil
	}
	var b strings.Builder
	last := start - 1
	for i := start; i <= end; i++ {
		if i-start >= readMaxLines || b.Len() >= readMaxBytes {
			break
		}
		line := lines[i-1]
		if len(line) > maxLineLen {
			line = line[:maxLineLen] + " ... [line truncated]"
		}
		fmt.Fprintf(&b, "%6d\t%s\n", i, line)
		last = i
	}
	switch {
	case len(lines) == 0:
		b.WriteString("(empty file)\n")
	case last < end:
		fmt.Fprintf(&b, "[showing lines %d-%d of %d; pass start_line=%d to read on]\n", start, last, len(lines), last+1)
	case start > 1 || end < len(lines):
		fmt.Fprintf(&b, "[lines %d-%d of %d]\n", start, end, len(lines))
	}
	return Result{
		Output:    b.String(),
		Title:     title,
		Locations: []acp.ToolCallLocation{{Path: abs, Line: uint32(start)}},
	}, nil
}
