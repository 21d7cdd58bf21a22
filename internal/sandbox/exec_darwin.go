package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"syscall"
)

// ABI is 0: Landlock is Linux's; macOS confines with Seatbelt (see Mechanism).
func ABI() int { return 0 }

// socketFilterWritten is false: the filter is Linux's.
func socketFilterWritten() bool { return false }

// restrictLandlock fails: Landlock is Linux's.
func restrictLandlock(abi int, r Rules) error { return ErrUnavailable }

// Exec replaces this process with argv, found on PATH, run by /usr/bin/sandbox-exec
// under the Seatbelt profile of r (SeatbeltPolicyOf, SeatbeltProfile), with TMPDIR set to
// r.Tmp (when not "") and without the variables that point at servers it cannot reach
// (see serverVariables). It returns only on failure. The profile binds argv and
// everything it starts.
func Exec(r Rules, argv []string) error {
	if len(argv) == 0 {
		return fmt.Errorf("sandbox: no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	wrapped, err := SeatbeltWrap(SeatbeltPolicyOf(r), append([]string{path}, argv[1:]...))
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if err := syscall.Exec(sandboxExec, wrapped, confinedEnv(os.Environ(), r.Tmp)); err != nil {
		return fmt.Errorf("sandbox: running %s: %w (run with --sandbox off to run it unconfined)", sandboxExec, err)
	}
	return nil
}
