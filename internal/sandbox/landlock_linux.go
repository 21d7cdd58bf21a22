package sandbox

import (
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
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

// devices are the device files any program may read, write and use ioctl on. No
// terminal is among them: see fileRules.
var devices = []string{"null", "zero", "full", "random", "urandom"}

// Exec confines this process by r, then replaces it with argv, found on PATH, with TMPDIR
// set to r.Tmp (when not "") and without the variables that point at servers it cannot
// reach (see serverVariables). It returns only on failure.
//
// The confined process writes only in r.Write (and the devices every program needs); it
// reads and runs everything but r.DenyRead, the terminals and input devices (fileRules);
// it cannot connect to a Unix socket or signal a process outside its own sandbox, where
// the kernel can say so (abstract sockets and signals from Landlock ABI 6, sockets by
// path from ABI 9, and before that no Unix socket of its own at all: see
// refuseUnixSockets). With r.LimitNet it connects over TCP only to the ports of
// r.ConnectTCP (Landlock ABI 4; before, the network stays open: see AgentSpec.Notes).
//
// Writes include creating, deleting, renaming and truncating; moving files between the
// writable directories is allowed where the kernel can say so (ABI 2 and later).
func Exec(r Rules, argv []string) error {
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
	if err := restrictLandlock(abi, r); err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	if abi < abiResolveUnx && socketFilterWritten() {
		if err := refuseUnixSockets(); err != nil {
			return fmt.Errorf("sandbox: %w (run with --sandbox off to run commands unconfined)", err)
		}
	}
	return syscall.Exec(path, argv, confinedEnv(os.Environ(), r.Tmp))
}

// restrictLandlock is Exec's Landlock part: every file-system right and scope this
// go-landlock knows, of which BestEffort keeps those the kernel knows. Rights no rule
// grants are refused: on ABI 9, connecting to a Unix socket made outside the sandbox.
// TCP connections are handled only when r limits them; UDP never is (name resolution).
func restrictLandlock(abi int, r Rules) error {
	rules, err := fileRules(abi, r.Write, r.DenyRead, r.PTY)
	if err != nil {
		return err
	}
	config := landlock.V11
	config.HandledAccessNet = 0 // the network stays open (installs, fetches)
	if r.LimitNet && abi >= abiNet {
		config.HandledAccessNet = ll.AccessNetConnectTCP
		for _, port := range r.ConnectTCP {
			rules = append(rules, landlock.ConnectTCP(port))
		}
	}
	return config.BestEffort().Restrict(rules...)
}

// fileRules says what a confined command may do with files: read, list and run
// everything but what is in /dev and denied (see readGrants), write in writable; in
// /dev, use the ordinary devices, read the rest but for the terminals (/dev/pts,
// /dev/tty*, /dev/console, any character device not listed) and input devices
// (keyboards). A command could otherwise open the user's terminal by its name, read what
// the user types for parley, and write escape sequences there. Programs that need a
// pseudo-terminal of their own (script, expect) cannot have one.
//
// Landlock only grants, so the rules name every entry of / and of /dev but those:
// what appears there later (a new mount) is not readable.
func fileRules(abi int, writable, denied []string, pty bool) ([]landlock.Rule, error) {
	rules := []landlock.Rule{landlock.PathAccess(ll.AccessFSReadDir, "/")}
	grants, err := readGrants("/", func(name string, _ fs.FileMode) bool { return name == "dev" }, denied)
	if err != nil {
		return nil, err
	}
	for _, g := range grants {
		rules = append(rules, readRule(g.path, g.dir))
	}
	devEntries, err := os.ReadDir("/dev")
	if err != nil && !os.IsNotExist(err) {
		return nil, err
	}
	var devs []string
	writable = slices.Clone(writable)
	for _, e := range devEntries {
		name, typ := e.Name(), e.Type()
		switch {
		case slices.Contains(devices, name), pty && name == "ptmx":
			devs = append(devs, filepath.Join("/dev", name))
		case pty && name == "pts":
			ptys := landlock.RWDirs("/dev/pts").IgnoreIfMissing()
			if abi >= abiIoctlDev {
				ptys = ptys.WithIoctlDev()
			}
			rules = append(rules, ptys)
		case name == "pts" || name == "input" || typ&fs.ModeCharDevice != 0:
		case typ&fs.ModeSymlink != 0: // fd, stdin…: into /proc, which has its rule
		case name == "shm" || name == "mqueue":
			writable = append(writable, filepath.Join("/dev", name))
		default:
			rules = append(rules, readRule(filepath.Join("/dev", name), typ.IsDir()))
		}
	}
	dirs, files := splitDirs(writable)
	rw := landlock.RWDirs(dirs...).IgnoreIfMissing()
	if abi >= abiRefer {
		rw = rw.WithRefer() // a rule the kernel cannot express would turn confinement off
	}
	rules = append(rules, rw)
	if len(files) > 0 {
		rules = append(rules, landlock.RWFiles(files...).IgnoreIfMissing())
	}
	dev := landlock.RWFiles(devs...).IgnoreIfMissing()
	if abi >= abiIoctlDev {
		dev = dev.WithIoctlDev()
	}
	return append(rules, dev), nil
}

// splitDirs sorts writable paths into directories and the rest (files, such as
// ~/.claude.json): a directory rule on a file is an error to Landlock. A path missing
// yet counts as a directory (IgnoreIfMissing leaves it out).
func splitDirs(paths []string) (dirs, files []string) {
	for _, p := range paths {
		if st, err := os.Stat(p); err == nil && !st.IsDir() {
			files = append(files, p)
		} else {
			dirs = append(dirs, p)
		}
	}
	return dirs, files
}

// readRule lets a directory or a file be read (and run).
func readRule(path string, dir bool) landlock.Rule {
	if dir {
		return landlock.RODirs(path).IgnoreIfMissing()
	}
	return landlock.ROFiles(path).IgnoreIfMissing()
}
