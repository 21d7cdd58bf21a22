package safety

import (
	"fmt"
	"path/filepath"
	"strings"
	"sync"

	"github.com/bmatcuk/doublestar/v4"
)

// FileAction is what a file rule asks for when an agent edits a matching file.
type FileAction string

const (
	Ask   FileAction = "ask"   // the file is sensitive: editing it needs the user's yes
	Allow FileAction = "allow" // the file is not sensitive
)

// FileRule is one sensitive-file rule as a user writes it in the configuration:
// {"pattern": "**/.env*", "action": "ask"}.
type FileRule struct {
	Pattern string     `json:"pattern"`
	Action  FileAction `json:"action"`
}

// FileRules decides which files are sensitive: the last rule whose pattern matches a
// path wins; no match means Allow. Patterns are doublestar globs (** crosses
// directories, {a,b} alternates), matched case-insensitively against the path relative
// to the workspace root (the absolute path without its leading slash for a file outside
// it), with dotfiles matched like any other file. A FileRules is immutable and safe for
// concurrent use.
type FileRules struct {
	rules []compiledRule
}

type compiledRule struct {
	FileRule
	pattern string // lower-cased
}

// DefaultFileRules are the rules parley starts from: environment files, keys and
// certificates, credentials, lockfiles and manifests, build and container files that
// run code, CI workflows, editor, agent and git settings, and git's internals all ask.
func DefaultFileRules() []FileRule {
	ask := func(patterns ...string) []FileRule {
		out := make([]FileRule, len(patterns))
		for i, p := range patterns {
			out[i] = FileRule{Pattern: p, Action: Ask}
		}
		return out
	}
	var rules []FileRule
	for _, group := range [][]FileRule{
		// Secrets.
		ask("**/.env*", "**/*.env", "**/*.secrets.*", "**/secrets.*", "**/*.secret", "**/.netrc", "**/_netrc", "**/.pgpass",
			"**/credentials*", "**/.npmrc", "**/.yarnrc", "**/.yarnrc.yml", "**/.pypirc", "**/.gem/credentials",
			"**/.aws/**", "**/.ssh/**", "**/.gnupg/**", "**/.docker/config.json", "**/.kube/config", "**/.git-credentials"),
		// Keys and certificates.
		ask("**/*.pem", "**/*.key", "**/*.pfx", "**/*.p12", "**/*.crt", "**/*.cer", "**/*.der", "**/*.jks",
			"**/*.keystore", "**/*.p8", "**/*.ppk", "**/id_rsa*", "**/id_dsa*", "**/id_ecdsa*", "**/id_ed25519*", "**/*.gpg", "**/*.asc"),
		// Manifests and lockfiles: they decide what gets installed and run.
		ask("**/package.json", "**/package-lock.json", "**/npm-shrinkwrap.json", "**/yarn.lock", "**/pnpm-lock.yaml",
			"**/pnpm-workspace.yaml", "**/bun.lock", "**/bun.lockb", "**/go.mod", "**/go.sum", "**/go.work", "**/Cargo.toml",
			"**/Cargo.lock", "**/pyproject.toml", "**/poetry.lock", "**/uv.lock", "**/Pipfile", "**/Pipfile.lock",
			"**/requirements*.txt", "**/setup.py", "**/setup.cfg", "**/Gemfile", "**/Gemfile.lock", "**/*.gemspec",
			"**/composer.json", "**/composer.lock", "**/pom.xml", "**/build.gradle", "**/build.gradle.kts",
			"**/settings.gradle", "**/settings.gradle.kts", "**/gradle.properties", "**/gradle/wrapper/**", "**/mix.exs", "**/mix.lock",
			"**/Package.swift", "**/Package.resolved", "**/*.csproj", "**/Directory.Build.props", "**/flake.nix", "**/flake.lock"),
		// Configuration that runs code.
		ask("**/tsconfig.json", "**/jsconfig.json", "**/Dockerfile", "**/Dockerfile.*", "**/*.dockerfile", "**/docker-compose*.yml",
			"**/docker-compose*.yaml", "**/compose.yml", "**/compose.yaml", "**/Makefile", "**/GNUmakefile", "**/*.mk",
			"**/.envrc", "**/.pre-commit-config.yaml", "**/.husky/**", "**/.lefthook.yml", "**/lefthook.yml"),
		// CI.
		ask("**/.github/workflows/**", "**/.github/actions/**", "**/.gitlab-ci.yml", "**/.circleci/**", "**/Jenkinsfile",
			"**/azure-pipelines.yml", "**/.buildkite/**", "**/.travis.yml", "**/bitbucket-pipelines.yml", "**/.drone.yml", "**/CODEOWNERS"),
		// Editor, agent and git settings.
		ask("**/.vscode/**", "**/*.code-workspace", "**/.idea/**", "**/.zed/**", "**/.devcontainer/**",
			"**/AGENTS.md", "**/AGENT.md", "**/CLAUDE.md", "**/GEMINI.md", "**/.cursorrules", "**/.cursor/**",
			"**/.github/copilot-instructions.md", "**/.claude/**", "**/.gemini/**",
			"**/.git/**", "**/.gitmodules", "**/.gitattributes", "**/.gitconfig",
			// A .git file points git at another directory, and HEAD is what makes a
			// directory a repository: either way git would read a configuration (which
			// can name programs: core.fsmonitor, core.pager) from files that are not
			// under .git/.
			"**/.git", "**/HEAD", "**/.cargo/config", "**/.cargo/config.toml",
			"**/.bashrc", "**/.bash_profile", "**/.profile", "**/.zshrc", "**/.zprofile"),
	} {
		rules = append(rules, group...)
	}
	return rules
}

var defaultFiles = sync.OnceValue(func() *FileRules {
	f, err := NewFileRules(DefaultFileRules())
	if err != nil {
		panic(err) // the defaults are constants: a bad one is a bug caught by any test
	}
	return f
})

// NewFileRules checks rules (a valid pattern, the action "ask" or "allow") and returns
// them ready to match, in the given order.
func NewFileRules(rules []FileRule) (*FileRules, error) {
	out := &FileRules{rules: make([]compiledRule, 0, len(rules))}
	for i, r := range rules {
		if r.Pattern == "" {
			return nil, fmt.Errorf("sensitive file rule %d: the pattern is empty", i+1)
		}
		lower := strings.ToLower(filepath.ToSlash(r.Pattern))
		if !doublestar.ValidatePattern(lower) {
			return nil, fmt.Errorf("sensitive file rule %d: %q is not a valid glob pattern", i+1, r.Pattern)
		}
		switch r.Action {
		case Ask, Allow:
		default:
			return nil, fmt.Errorf("sensitive file rule %d (%s): the action is %q; write \"ask\" or \"allow\"", i+1, r.Pattern, r.Action)
		}
		out.rules = append(out.rules, compiledRule{FileRule: r, pattern: lower})
	}
	return out, nil
}

// WithDefaults returns the default rules followed by the user's, so the user's win
// where both match.
func WithDefaults(user []FileRule) (*FileRules, error) {
	return NewFileRules(append(DefaultFileRules(), user...))
}

// Rules returns the rules in order.
func (f *FileRules) Rules() []FileRule {
	out := make([]FileRule, len(f.rules))
	for i, r := range f.rules {
		out[i] = r.FileRule
	}
	return out
}

// Match returns the last rule whose pattern matches path, and whether one does. path
// is relative to the workspace root, with / or the system's separator.
func (f *FileRules) Match(path string) (FileRule, bool) {
	name := strings.ToLower(strings.TrimPrefix(filepath.ToSlash(path), "./"))
	for i := len(f.rules) - 1; i >= 0; i-- {
		if doublestar.MatchUnvalidated(f.rules[i].pattern, name) {
			return f.rules[i].FileRule, true
		}
	}
	return FileRule{}, false
}

// Sensitive reports whether editing the file at path needs a question, and the rule
// that says so (the zero rule when none matches).
func (f *FileRules) Sensitive(path string) (bool, FileRule) {
	r, ok := f.Match(path)
	return ok && r.Action == Ask, r
}

// SensitivePath is Sensitive for an absolute path, made relative to the first of roots
// that holds it (an absolute path outside every root is matched without its leading
// slash).
func (f *FileRules) SensitivePath(abs string, roots []string) (bool, FileRule) {
	for _, root := range roots {
		if rel := relativeTo(filepath.Clean(root), filepath.Clean(abs)); rel != "" && rel != "." {
			return f.Sensitive(rel)
		}
	}
	return f.Sensitive(strings.TrimPrefix(filepath.ToSlash(filepath.Clean(abs)), "/"))
}
