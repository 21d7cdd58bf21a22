package agent

import (
	"github.com/parley-acp/parley/internal/agent/tools"
	"github.com/parley-acp/parley/internal/safety"
)

// verdict is what the approvals need to know about one command, in the words of
// internal/permission's vocabulary (shared with the client host).
type verdict struct {
	tier   safety.Tier
	reason string // for the user: why it asks
	key    string // what an "always" answer about it remembers (permission.CommandKey)
	covers string // the same in words (permission.CommandCovers)
	// noAlways names the code, in files the agent can change, that the command runs
	// ("build.sh"): "" when there is none. An "always allow" cannot bind it.
	noAlways string
}

// judge is the approvals' view of internal/safety, the one judge of commands and of
// sensitive files.
type judge interface {
	command(c tools.Command, roots []string) verdict
	// sensitive reports whether editing path (absolute, inside roots) must ask.
	sensitive(path string, roots []string) bool
}
