package agentproc

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"

	"github.com/parley-acp/parley/internal/lazy"
	"github.com/parley-acp/parley/internal/sandbox"
)

// An agent the sandbox refused a write (or a read of a secret) usually dies saying so on
// stderr, in its own words: Node's "EACCES: permission denied, open '/home/u/.x/y'",
// Rust's "Permission denied (os error 13)", "Read-only file system", "EPERM". The path in
// that line tells the user what to grant.

// refusal matches a line that says a file operation was refused.
var refusal = lazy.Regexp(`(?i)eacces|eperm|permission denied|operation not permitted|read-only file system`)

// absPath matches an absolute path in such a line, quoted or not.
var absPath = lazy.Regexp(`(?:^|[\s'"(=:])(/[^\s'"(),:;]+)`)

// refusedWriteHint explains the first refused path the agent's stderr tail names outside
// what spec lets it write, or inside what it may not read: what was refused and how to
// grant it. "" when the tail names none.
func refusedWriteHint(tail string, spec *sandbox.AgentSpec) string {
	for _, line := range strings.Split(tail, "\n") {
		if !refusal().MatchString(line) {
			continue
		}
		for _, m := range absPath().FindAllStringSubmatch(line, -1) {
			path := filepath.Clean(m[1])
			if slices.ContainsFunc(spec.DenyRead, func(d string) bool { return sandbox.Within(path, d) }) {
				return fmt.Sprintf("parley's sandbox keeps the agent from reading %s (one of your secrets): to let it, run with --sandbox-read %s, or add it to \"read_secret\" of the agent's \"sandbox\" in parley's config.json (--sandbox off turns confinement off)", path, path)
			}
			if !slices.ContainsFunc(spec.Write, func(w string) bool { return sandbox.Within(path, w) }) && !sandbox.Within(path, "/dev") {
				return fmt.Sprintf("parley's sandbox may have refused the agent a write to %s: the agent may write only in its workspace, its TMPDIR and %s; to let it, run with --sandbox-write %s, or add it to \"write\" of the agent's \"sandbox\" in parley's config.json (--sandbox off turns confinement off)", path, strings.Join(spec.Write, ", "), filepath.Dir(path))
			}
		}
	}
	return ""
}
