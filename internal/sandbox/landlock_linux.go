package sandbox

import (
	"fmt"
	"os"
	"os/exec"
	"slices"
	"strings"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	ll "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// ABI is the Landlock ABI version the kernel offers, 0 when it offers none (too old,
// or Landlock not enabled at boot).
func ABI() int {
	v, err := ll.LandlockGetABIVersion()
	if err != nil || v < 1 {
		return 0
	}
	return v
}

// devices are the device files any program may write (and use ioctl on): discarding
// output, reading zeros, its terminal.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/tty", "/dev/ptmx", "/dev/random", "/dev/urandom"}

// Exec confines this process to writing only in writable (and the devices every program
// needs), then replaces it with argv, found on PATH, with TMPDIR set to tmp (when not
// ""). It returns only on failure.
//
// Reading and running stay allowed everywhere. Writes include creating, deleting,
// renaming and truncating; moving files between the writable directories is allowed
// where the kernel can say so (Landlock ABI 2 and later).
func Exec(writable []string, tmp string, argv []string) error {
	abi := ABI()
	if abi == 0 {
		return ErrUnavailable
	}
	if len(argv) == 0 {
		return fmt.Errorf("sandbox: no command to run")
	}
	path, err := exec.LookPath(argv[0])
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	dirs := landlock.RWDirs(writable...).IgnoreIfMissing()
	if abi >= 2 {
		dirs = dirs.WithRefer() // a rule the kernel cannot express would turn confinement off
	}
	devs := landlock.RWFiles(devices...).IgnoreIfMissing()
	if abi >= 5 {
		devs = devs.WithIoctlDev()
	}
	rules := []landlock.Rule{
		landlock.RODirs("/"),
		dirs,
		devs,
		landlock.RWDirs("/dev/shm", "/dev/pts").IgnoreIfMissing(),
	}
	// V8's file-system rights, as many as this kernel knows. Later ABIs would also
	// restrict connecting to Unix sockets (ssh-agent, docker), which is not ours to stop.
	if err := landlock.V8.BestEffort().RestrictPaths(rules...); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	env := os.Environ()
	if tmp != "" {
		// getenv takes the first of duplicates, so the old value must go, not be shadowed.
		env = slices.DeleteFunc(env, func(kv string) bool { return strings.HasPrefix(kv, "TMPDIR=") })
		env = append(env, "TMPDIR="+tmp)
	}
	return syscall.Exec(path, argv, env)
}
