// Package tools holds the coding agent's tools: one file per tool, its model-facing
// description in the .md file beside it. A tool reports what the model did wrong (bad
// arguments, a path outside the workspace, a stale edit) as a Result with IsError set, so
// the model can correct itself; a Go error means the agent's machinery failed.
package tools

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"sort"
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
	"github.com/parley-acp/parley/internal/workspace"
)

// Env is where tools act. The agent gives either the ACP client's fs/* and terminal/*
// (when advertised) or the local machine (LocalEnv). Paths given to Env are absolute and
// already confined. ReadFile reports a missing file with an error matching fs.ErrNotExist;
// WriteFile creates missing parent directories.
//
// list_files and search_workspace read the local disk directly: neither ACP offers a way
// to list or search, and the workspace lives there.
type Env interface {
	ReadFile(ctx context.Context, path string) (string, error)
	WriteFile(ctx context.Context, path, content string) error
	// Remove deletes a file (an undo of a file the agent created). A missing file is no
	// error.
	Remove(ctx context.Context, path string) error
	// Run runs a command (no shell unless the caller passes sh -c) in cwd and returns its
	// combined output and exit code. A command that outlives timeout is killed and
	// reported with an error matching ErrTimeout, along with the output it gave.
	Run(ctx context.Context, command string, args []string, cwd string, timeout time.Duration) (output string, exitCode int, err error)
}

// ErrTimeout is what Env.Run reports when the command ran out of time.
var ErrTimeout = errors.New("command timed out")

// Session is what one agent session's tools share.
type Session struct {
	Env   Env
	Roots *workspace.Roots
	Reads *ReadTracker // what was read, for edit_file's "read it first and it must be unchanged"
	Guard Guard        // asked before commands and writes; nil lets everything through
}

// NewSession returns a session acting through env inside roots.
func NewSession(env Env, roots *workspace.Roots) *Session {
	return &Session{Env: env, Roots: roots, Reads: NewReadTracker()}
}

// Result is what a tool call produced.
type Result struct {
	Output    string // what the model sees
	IsError   bool   // a model-facing failure (bad args, file changed, no match...)
	Title     string // for people: "Read main.go", "Edit a.go", "Run `go test ./...`"
	Locations []acp.ToolCallLocation
	Diff      *Diff  // edits
	Command   string // run_terminal_command: the command line
}

// Diff is a file edit: OldText is nil for a new file.
type Diff struct {
	Path    string
	OldText *string
	NewText string
}

// Tool is one tool offered to the model.
type Tool interface {
	Name() string
	Description() string     // from the embedded .md
	Schema() json.RawMessage // JSON Schema of the parameters, type object
	Kind() acp.ToolKind
	// Run executes a call. The error is only for infrastructure failures; everything
	// the model should see, failures included, is in the Result.
	Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error)
}

// Registry is the set of tools offered to the model, found by name or alias.
type Registry struct {
	tools   []Tool
	byName  map[string]Tool
	aliases map[string]string
}

// DefaultRegistry returns the seven built-in tools.
func DefaultRegistry() *Registry {
	r := &Registry{byName: map[string]Tool{}, aliases: map[string]string{}}
	for _, t := range []Tool{
		readFile{}, writeFile{}, editFile{}, listFiles{},
		&searchWorkspace{}, runTerminalCommand{}, getDiagnostics{},
	} {
		r.tools = append(r.tools, t)
		r.byName[t.Name()] = t
	}
	for alias, name := range map[string]string{
		"read": "read_file", "write": "write_file", "edit": "edit_file",
		"ls": "list_files", "grep": "search_workspace",
		"bash": "run_terminal_command", "shell": "run_terminal_command",
		"diagnostics": "get_diagnostics",
	} {
		r.aliases[alias] = name
	}
	return r
}

// Canonical returns the tool name that name (a canonical name or an alias, in any case)
// stands for.
func (r *Registry) Canonical(name string) (string, bool) {
	for _, n := range []string{name, strings.ToLower(strings.TrimSpace(name))} {
		if _, ok := r.byName[n]; ok {
			return n, true
		}
		if c, ok := r.aliases[n]; ok {
			return c, true
		}
	}
	return "", false
}

// Lookup returns the tool for a canonical name or an alias.
func (r *Registry) Lookup(name string) (Tool, bool) {
	c, ok := r.Canonical(name)
	if !ok {
		return nil, false
	}
	return r.byName[c], true
}

// All returns the tools in a stable order.
func (r *Registry) All() []Tool { return append([]Tool(nil), r.tools...) }

// Names returns the canonical names, sorted, for "unknown tool" messages.
func (r *Registry) Names() []string {
	names := make([]string, 0, len(r.tools))
	for _, t := range r.tools {
		names = append(names, t.Name())
	}
	sort.Strings(names)
	return names
}

// modelError is a Result reporting a mistake the model can correct.
func modelError(title, format string, args ...any) Result {
	return Result{Output: "Error: " + fmt.Sprintf(format, args...), IsError: true, Title: title}
}

// decodeArgs decodes a call's arguments into params; null or empty means {}.
func decodeArgs(args json.RawMessage, params any) error {
	if len(strings.TrimSpace(string(args))) == 0 || string(args) == "null" {
		return nil
	}
	if err := json.Unmarshal(args, params); err != nil {
		return fmt.Errorf("invalid arguments: %v", err)
	}
	return nil
}

// pathArg is embedded in parameter structs to accept the path aliases models use.
type pathArg struct {
	Path      string `json:"path"`
	File      string `json:"file"`
	FilePath  string `json:"filePath"`
	FilePath_ string `json:"file_path"`
}

func (p pathArg) value() string {
	for _, v := range []string{p.Path, p.FilePath, p.FilePath_, p.File} {
		if v != "" {
			return v
		}
	}
	return ""
}

// absolute makes a model's path absolute: models give relative paths, and those are
// relative to the first root (the session's cwd). Empty means the first root.
func (s *Session) absolute(path string) string {
	root := s.Roots.Dirs()[0]
	if path == "" {
		return root
	}
	if strings.HasPrefix(path, "~") {
		return path // never expanded: Resolve reports it outside or missing
	}
	if !filepath.IsAbs(path) {
		return filepath.Join(root, path)
	}
	return path
}

// resolve confines an existing path; the message of the error is for the model.
func (s *Session) resolve(path string) (string, error) {
	resolved, err := s.Roots.Resolve(s.absolute(path))
	if errors.Is(err, fs.ErrNotExist) {
		return "", fmt.Errorf("%s does not exist", path)
	}
	return resolved, err
}

// resolveForWrite confines a path that may not exist yet.
func (s *Session) resolveForWrite(path string) (string, error) {
	return s.Roots.ResolveForWrite(s.absolute(path))
}

// display is how a path is shown to the model and in titles: relative to the first root
// when inside it (the form the model may pass back), absolute otherwise.
func (s *Session) display(abs string) string {
	root := s.Roots.Dirs()[0]
	if rel, err := filepath.Rel(root, abs); err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) {
		return filepath.ToSlash(rel)
	}
	return abs
}
