package agent

import (
	"github.com/parley-acp/parley/internal/agent/tools"
)

// safetyJudge is the approvals' judge. Until internal/safety is merged it knows nothing
// about commands, so it judges every one high (asked unless the user auto-approves
// commands) and remembers each exactly.
type safetyJudge struct{}

func (safetyJudge) command(c tools.Command, roots []string) verdict {
	line := c.Line
	if line == "" {
		line = shellJoin(c.Argv)
	}
	return verdict{risk: riskHigh, reason: "not judged", key: line, covers: "`" + line + "`"}
}

func (safetyJudge) sensitive(path string, roots []string) bool { return false }
