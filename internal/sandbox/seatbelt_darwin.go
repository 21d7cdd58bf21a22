package sandbox

import (
	"fmt"
	"path/filepath"
)

// sandboxExec is macOS's command that runs a program under a Seatbelt profile. Apple
// marks it deprecated but ships it, and its own tools and other agents' hosts use it.
const sandboxExec = "/usr/bin/sandbox-exec"

// SeatbeltWrap returns the command line that runs argv (the agent's command and its
// arguments) confined by policy: `/usr/bin/sandbox-exec -p PROFILE -- argv...`. The
// policy's paths are taken with their links resolved as well as they are given (see
// SeatbeltProfile). Everything argv starts inherits the profile, and cannot leave it.
func SeatbeltWrap(policy SeatbeltPolicy, argv []string) ([]string, error) {
	if len(argv) == 0 {
		return nil, fmt.Errorf("confining an agent with Seatbelt: no command")
	}
	profile, err := SeatbeltProfile(policy.withResolved(filepath.EvalSymlinks))
	if err != nil {
		return nil, fmt.Errorf("confining %s with Seatbelt: %w", argv[0], err)
	}
	return append([]string{sandboxExec, "-p", profile, "--"}, argv...), nil
}
