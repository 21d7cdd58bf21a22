package tools

import (
	"context"
	_ "embed"
	"fmt"
	"path"
	"path/filepath"
	"regexp"
	"sort"
	"strings"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

//go:embed list_files.md
var listFilesDescription string

const listDefaultMax = 1000

type listFilesParams struct {
	pathArg
	Pattern string `json:"pattern"`
	Max     int    `json:"max"`
}

type listFiles struct{}

func (listFiles) Name() string        { return "list_files" }
func (listFiles) Description() string { return listFilesDescription }
func (listFiles) Kind() acp.ToolKind  { return acp.ToolKindSearch }
func (listFiles) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"default: the workspace root"},` +
		`"pattern":{"type":"string","description":"glob, e.g. *.go or src/**/*.ts"},` +
		`"max":{"type":"integer","description":"default 1000"}}}`)
}

func (listFiles) Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error) {
	var p listFilesParams
	if err := decodeArgs(args, &p); err != nil {
		return modelError("List files", "%v", err), nil
	}
	dir, base, msg := s.resolveDir(p.value())
	if msg != "" {
		return modelError("List files", "%s", msg), nil
	}
	title := "List " + s.display(dir)
	match, err := globMatcher(p.Pattern)
	if err != nil {
		return modelError(title, "%v", err), nil
	}
	tree, err := s.Roots.OpenTree(dir)
	if err != nil {
		return modelError(title, "listing %s: %v", s.display(dir), err), nil
	}
	defer tree.Close()
	files, err := listTree(ctx, s, base, tree)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return modelError(title, "listing %s: %v", s.display(dir), err), nil
	}
	var names []string
	for _, f := range files {
		if match(f.rel) {
			names = append(names, s.display(filepath.Join(dir, filepath.FromSlash(f.rel))))
		}
	}
	sort.Strings(names)
	limit := p.Max
	if limit <= 0 {
		limit = listDefaultMax
	}
	var b strings.Builder
	for i, n := range names {
		if i == limit {
			fmt.Fprintf(&b, "[%d more files not shown; narrow path or pattern, or raise max]\n", len(names)-limit)
			break
		}
		b.WriteString(n + "\n")
	}
	if len(names) == 0 {
		b.WriteString("No files found.\n")
	}
	return Result{Output: b.String(), Title: title, Locations: []acp.ToolCallLocation{{Path: dir}}}, nil
}

// resolveDir confines a directory argument; base is the root holding it. msg is for the model.
func (s *Session) resolveDir(p string) (dir, base, msg string) {
	dir, err := s.resolve(p)
	if err != nil {
		return "", "", err.Error()
	}
	if info, err := s.Roots.Stat(dir); err != nil || !info.IsDir() {
		return "", "", fmt.Sprintf("%s is not a directory", p)
	}
	for _, r := range s.Roots.Dirs() {
		if dir == r || strings.HasPrefix(dir, r+string(filepath.Separator)) {
			return dir, r, ""
		}
	}
	return dir, dir, ""
}

// globMatcher returns a matcher for a model's glob: without a slash it applies to the file
// name, with one to the whole relative path; `**` spans directories. Empty matches all.
func globMatcher(glob string) (func(rel string) bool, error) {
	if glob == "" {
		return func(string) bool { return true }, nil
	}
	glob = strings.TrimPrefix(filepath.ToSlash(glob), "./")
	if !strings.Contains(glob, "**") {
		if _, err := path.Match(glob, ""); err != nil {
			return nil, fmt.Errorf("bad glob %q: %v", glob, err)
		}
		if !strings.Contains(glob, "/") {
			return func(rel string) bool { ok, _ := path.Match(glob, path.Base(rel)); return ok }, nil
		}
		return func(rel string) bool { ok, _ := path.Match(glob, rel); return ok }, nil
	}
	re, err := regexp.Compile(globToRegexp(glob))
	if err != nil {
		return nil, fmt.Errorf("bad glob %q: %v", glob, err)
	}
	return re.MatchString, nil
}

func globToRegexp(glob string) string {
	var b strings.Builder
	b.WriteString("^")
	if !strings.Contains(glob, "/") {
		b.WriteString("(?:.*/)?")
	}
	for i := 0; i < len(glob); i++ {
		c := glob[i]
		switch {
		case strings.HasPrefix(glob[i:], "**/"):
			b.WriteString("(?:.*/)?")
			i += 2
		case strings.HasPrefix(glob[i:], "**"):
			b.WriteString(".*")
			i++
		case c == '*':
			b.WriteString("[^/]*")
		case c == '?':
			b.WriteString("[^/]")
		default:
			b.WriteString(regexp.QuoteMeta(string(c)))
		}
	}
	b.WriteString("$")
	return b.String()
}
