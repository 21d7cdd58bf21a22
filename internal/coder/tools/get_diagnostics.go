package tools

import (
	"context"
	_ "embed"
	"os/exec"
	"path/filepath"
	"strings"
	"time"

	"github.com/parley-acp/parley/acp"
	"github.com/parley-acp/parley/internal/json"
)

//go:embed get_diagnostics.md
var getDiagnosticsDescription string

const diagnosticsTimeout = 300 * time.Second

type getDiagnosticsParams struct {
	pathArg
}

type getDiagnostics struct{}

func (getDiagnostics) Name() string        { return "get_diagnostics" }
func (getDiagnostics) Description() string { return getDiagnosticsDescription }
func (getDiagnostics) Kind() acp.ToolKind  { return acp.ToolKindExecute }
func (getDiagnostics) Schema() json.RawMessage {
	return json.RawMessage(`{"type":"object","properties":{` +
		`"path":{"type":"string","description":"a file or directory of the project; default: the workspace root"}}}`)
}

// checker is a workspace's checker: the marker file that reveals the project, and the
// command that checks it (nil when the tool it needs is not installed).
type checker struct {
	marker  string
	command func() []string
}

var checkers = []checker{
	{"go.mod", func() []string { return []string{"go", "vet", "./..."} }},
	{"tsconfig.json", func() []string { return []string{"npx", "--no-install", "tsc", "--noEmit"} }},
	{"Cargo.toml", func() []string { return []string{"cargo", "check", "--message-format", "short"} }},
	{"pyproject.toml", pythonChecker},
	{"setup.py", pythonChecker},
}

func pythonChecker() []string {
	if _, err := exec.LookPath("ruff"); err == nil {
		return []string{"ruff", "check", "--output-format", "concise", "."}
	}
	if _, err := exec.LookPath("mypy"); err == nil {
		return []string{"mypy", "."}
	}
	return nil
}

func (getDiagnostics) Run(ctx context.Context, s *Session, args json.RawMessage) (Result, error) {
	var p getDiagnosticsParams
	if err := decodeArgs(args, &p); err != nil {
		return modelError("Diagnostics", "%v", err), nil
	}
	start, err := s.resolve(p.value())
	if err != nil {
		return modelError("Diagnostics", "%v", err), nil
	}
	if info, err := s.Roots.Stat(start); err == nil && !info.IsDir() {
		start = filepath.Dir(start)
	}
	dir, argv := findChecker(s, start)
	if argv == nil {
		return Result{
			Output: "No checker found for " + s.display(start) + " (looked for go.mod, tsconfig.json, Cargo.toml, and pyproject.toml or setup.py with ruff or mypy installed). " +
				"Run the project's own build or test command with run_terminal_command instead.",
			Title: "Diagnostics: no checker",
		}, nil
	}
	line := strings.Join(argv, " ")
	if refused, err := s.checkCommand(ctx, Command{Argv: argv, Dir: dir}); refused != "" || err != nil {
		r := modelError("Diagnostics: "+line, "%s", refused)
		r.Command = line
		return r, err
	}
	r, err := runChecked(ctx, s, argv[0], argv[1:], dir, diagnosticsTimeout)
	r.Title, r.Command = "Diagnostics: "+line, line
	r.Output = "Ran `" + line + "` in " + s.display(dir) + "\n" + r.Output
	return r, err
}

// findChecker looks for a project marker in start and its parents, staying inside the root.
func findChecker(s *Session, start string) (string, []string) {
	for dir := start; ; dir = filepath.Dir(dir) {
		if _, err := s.Roots.Resolve(dir); err != nil {
			return "", nil
		}
		for _, c := range checkers {
			if _, err := s.Roots.Stat(filepath.Join(dir, c.marker)); err == nil {
				if argv := c.command(); argv != nil {
					return dir, argv
				}
			}
		}
		if filepath.Dir(dir) == dir {
			return "", nil
		}
	}
}
