package tools

import (
	"bufio"
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"runtime"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
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

// searchWorkspace uses ripgrep when it is on PATH and Go's regexp otherwise.
type searchWorkspace struct {
	forceGo bool   // tests and benchmarks: never use rg
	rg      string // path to rg; looked up on first use when empty
	once    sync.Once
}

func (*searchWorkspace) Name() string        { return "search_workspace" }
func (*searchWorkspace) Description() string { return searchWorkspaceDescription }
func (*searchWorkspace) Kind() acp.ToolKind  { return acp.ToolKindSearch }
func (*searchWorkspace) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"pattern":{"type":"string","description":"Regular expression (RE2 syntax)"},` +
		`"path":{"type":"string","description":"Directory to search; the workspace root when omitted"},` +
		`"glob":{"type":"string","description":"Only files matching this glob, e.g. *.go"},` +
		`"max_results":{"type":"integer","minimum":1,"description":"Most matching lines to return (default 100)"},` +
		`"case_insensitive":{"type":"boolean","description":"Ignore case"}},` +
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
	var matches []searchMatch
	if rg := t.ripgrep(); rg != "" {
		matches, err = searchRipgrep(ctx, rg, dir, p, limit)
	} else {
		matches, err = searchGo(ctx, s, base, dir, re, match, limit)
	}
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, ctx.Err()
		}
		return modelError(title, "searching %s: %v", s.display(dir), err), nil
	}
	return Result{Output: formatMatches(s, dir, matches, limit), Title: title, Locations: []acp.ToolCallLocation{{Path: dir}}}, nil
}

func (t *searchWorkspace) ripgrep() string {
	if t.forceGo {
		return ""
	}
	t.once.Do(func() {
		if t.rg == "" {
			t.rg, _ = exec.LookPath("rg")
		}
	})
	return t.rg
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

// searchGo searches the files listTree gives with GOMAXPROCS workers. Each file keeps at
// most limit+1 matches, enough to fill the answer and say that more exist.
func searchGo(ctx context.Context, s *Session, base, dir string, re *regexp.Regexp, match func(string) bool, limit int) ([]searchMatch, error) {
	files, err := listTree(ctx, base, dir)
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
				perFile[i] = searchFile(s, dir, files[i], re, limit+1)
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

func searchFile(s *Session, dir string, f treeFile, re *regexp.Regexp, limit int) []searchMatch {
	path := filepath.Join(dir, filepath.FromSlash(f.rel))
	if f.symlink {
		resolved, err := s.Roots.Resolve(path)
		if err != nil {
			return nil // pointing outside the workspace, or nowhere
		}
		path = resolved
	}
	file, err := os.Open(path)
	if err != nil {
		return nil
	}
	defer file.Close()
	info, err := file.Stat()
	if err != nil || !info.Mode().IsRegular() || info.Size() > searchMaxFile {
		return nil
	}
	data := make([]byte, info.Size()+1)
	n, _ := readFull(file, data)
	data = data[:n]
	if n > searchMaxFile || bytes.IndexByte(data[:min(n, binarySniff)], 0) >= 0 {
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

func readFull(f *os.File, buf []byte) (int, error) {
	n := 0
	for n < len(buf) {
		k, err := f.Read(buf[n:])
		n += k
		if err != nil {
			return n, err
		}
	}
	return n, nil
}

// searchRipgrep runs rg with the same rules: ignore files honoured with or without git,
// hidden files searched, .git skipped, large and binary files skipped.
func searchRipgrep(ctx context.Context, rg, dir string, p searchWorkspaceParams, limit int) ([]searchMatch, error) {
	args := []string{"--line-number", "--no-heading", "--color", "never", "--hidden", "--no-require-git",
		"--no-messages", "--max-filesize", "1M", "--max-count", strconv.Itoa(limit + 1),
		"--max-columns", strconv.Itoa(searchMaxText + 100), "--glob", "!.git"}
	if p.CaseInsensitive {
		args = append(args, "--ignore-case")
	}
	if p.Glob != "" {
		args = append(args, "--glob", p.Glob)
	}
	args = append(args, "--regexp", p.Pattern)
	cmd := exec.CommandContext(ctx, rg, args...)
	cmd.Dir = dir
	out, err := cmd.Output()
	if ee, ok := err.(*exec.ExitError); ok && (ee.ExitCode() == 1 || ee.ExitCode() == 2 && len(out) > 0) {
		err = nil // 1: no match; 2 with output: some file was unreadable
	}
	if err != nil {
		return nil, fmt.Errorf("rg: %w", err)
	}
	var matches []searchMatch
	sc := bufio.NewScanner(bytes.NewReader(out))
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		rel, rest, ok1 := strings.Cut(sc.Text(), ":")
		num, text, ok2 := strings.Cut(rest, ":")
		line, err := strconv.Atoi(num)
		if !ok1 || !ok2 || err != nil {
			continue
		}
		matches = append(matches, searchMatch{rel: filepath.ToSlash(strings.TrimPrefix(rel, "./")), line: line, text: text})
	}
	return matches, nil
}
