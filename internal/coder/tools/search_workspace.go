package tools

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/workspace"
)

//go:embed search_workspace.md
var searchWorkspaceDescription string

const (
	searchDefaultMax = 100
	searchMaxFile    = 1 << 20 // bytes; larger files are skipped
	searchMaxText    = 500     // characters of a matching line shown
	binarySniff      = 8000    // bytes checked for NUL, as git does
)

type searchWorkspaceParams struct {
	Pattern         string `json:"pattern"`
	Path            string `json:"path"`
	Glob            string `json:"glob"`
	MaxResults      int    `json:"max_results"`
	CaseInsensitive bool   `json:"case_insensitive"`
}

// searchWorkspace searches with Go's regexp, reading every file through the workspace's
// confined access (an external searcher would open files by name, outside that check).
type searchWorkspace struct{}

func (*searchWorkspace) Name() string        { return "search_workspace" }
func (*searchWorkspace) Description() string { return searchWorkspaceDescription }
func (*searchWorkspace) Kind() acp.ToolKind  { return acp.ToolKindSearch }
func (*searchWorkspace) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string"},` +
		`"path":{"type":"string","description":"default: the workspace root"},` +
		`"glob":{"type":"string","description":"e.g. *.go"},` +
		`"max_results":{"type":"integer","description":"default 100"},` +
		`"case_insensitive":{"type":"boolean"}},` +
		`"required":["pattern"]}`)
}

type searchMatch struct {
	rel  string // relative to the searched directory, slashes
	line int
	text string
}

func (t *searchWorkspace) Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error) {
	var p searchWorkspaceParams
	if err := decodeArgs(args, &p); err != nil {
		return modelError("Search", "%v", err), nil
	}
	if p.Pattern == "" {
		return modelError("Search", "pattern is required"), nil
	}
	title := fmt.Sprintf("Search for `%s`", p.Pattern)
	expr := p.Pattern
	if p.CaseInsensitive {
		expr = "(?i)" + expr
	}
	re, err := regexp.Compile(expr)
	if err != nil {
		return modelError(title, "invalid regular expression: %v", err), nil
	}
	dir, base, msg := s.resolveDir(p.Path)
	if msg != "" {
		return modelError(title, "%s", msg), nil
	}
	match, err := globMatcher(p.Glob)
	if err != nil {
		return modelError(title, "%v", err), nil
	}
	limit := p.MaxResults
	if limit <= 0 {
		limit = searchDefaultMax
	}
	tree, err := s.Roots.OpenTree(dir)
	if err != nil {
		return modelError(title, "searching %s: %v", s.display(dir), err), nil
	}
	defer tree.Close()
	matches, err := searchTree(ctx, s, base, tree, re, match, limit)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return modelError(title, "searching %s: %v", s.display(dir), err), nil
	}
	return Result{Output: formatMatches(s, dir, matches, limit), Title: title, Locations: []acp.ToolCallLocation{{Path: dir}}}, nil
}

func formatMatches(s *Session, dir string, matches []searchMatch, limit int) string {
	if len(matches) == 0 {
		return "No matches found.\n"
	}
	sort.Slice(matches, func(i, j int) bool {
		if matches[i].rel != matches[j].rel {
			return matches[i].rel < matches[j].rel
		}
		return matches[i].line < matches[j].line
	})
	var b strings.Builder
	for i, m := range matches {
		if i == limit {
			fmt.Fprintf(&b, "[%d more matches not shown; narrow the pattern, path or glob, or raise max_results]\n", len(matches)-limit)
			break
		}
		text := m.text
		if len(text) > searchMaxText {
			text = text[:searchMaxText] + " ..."
		}
		fmt.Fprintf(&b, "%s:%d: %s\n", s.display(filepath.Join(dir, filepath.FromSlash(m.rel))), m.line, text)
	}
	return b.String()
}

// searchTree searches the files listTree gives with GOMAXPROCS workers. Each file keeps at
// most limit+1 matches, enough to fill the answer and say that more exist.
func searchTree(ctx context.Context, s *Session, base string, tree *workspace.Tree, re *regexp.Regexp, match func(string) bool, limit int) ([]searchMatch, error) {
	files, err := listTree(ctx, s, base, tree)
	if err != nil {
		return nil, err
	}
	files = filterFiles(files, match)
	perFile := make([][]searchMatch, len(files))
	var next atomic.Int64
	var wg sync.WaitGroup
	for range runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for ctx.Err() == nil {
				i := int(next.Add(1) - 1)
				if i >= len(files) {
					return
				}
				perFile[i] = searchFile(s, tree, files[i], re, limit+1)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, err
	}
	var all []searchMatch
	for _, ms := range perFile {
		all = append(all, ms...)
	}
	return all, nil
}

func filterFiles(files []treeFile, match func(string) bool) []treeFile {
	kept := files[:0]
	for _, f := range files {
		if match(f.rel) {
			kept = append(kept, f)
		}
	}
	return kept
}

// searchFile searches one file; one that cannot be read (outside, not a regular file,
// hard-linked, too large, binary) is skipped.
func searchFile(s *Session, tree *workspace.Tree, f treeFile, re *regexp.Regexp, limit int) []searchMatch {
	var data []byte
	var err error
	if f.symlink { // it may point anywhere in the workspace: resolved and checked
		data, err = s.Roots.ReadFile(filepath.Join(tree.Path(), filepath.FromSlash(f.rel)), searchMaxFile)
	} else {
		data, err = tree.ReadFile(f.rel, searchMaxFile)
	}
	if err != nil {
		return nil
	}
	n := len(data)
	if bytes.IndexByte(data[:min(n, binarySniff)], 0) >= 0 {
		return nil
	}
	if !re.Match(data) { // one pass over the whole file rejects most files cheaply
		return nil
	}
	var out []searchMatch
	line := 0
	for len(data) > 0 && len(out) < limit {
		line++
		end := bytes.IndexByte(data, '\n')
		var text []byte
		if end < 0 {
			text, data = data, nil
		} else {
			text, data = data[:end], data[end+1:]
		}
		text = bytes.TrimSuffix(text, []byte("\r"))
		if re.Match(text) {
			out = append(out, searchMatch{rel: f.rel, line: line, text: string(text)})
		}
	}
	return out
}
