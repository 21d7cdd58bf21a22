package agent

import (
	"github.com/parley-acp/parley/internal/agent/tools"
)

// risk is how risky a command is, in internal/safety's tiers.
type risk int

const (
	riskNone risk = iota
	riskMedium
	riskHigh
	riskCritical
)

// verdict is what the approvals need to know about one command.
type verdict struct {
	risk   risk
	reason string // for the user: why it asks
	key    string // what an "always" answer about it remembers
	covers string // the same in words: "`rm -f build.log`, exactly"
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
