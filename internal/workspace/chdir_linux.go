package workspace

import (
	"os"
	"strconv"
	"sync"
)

// procFD tells whether /proc/self/fd works here (it does wherever procfs is mounted).
var procFD = sync.OnceValue(func() bool {
	info, err := os.Stat("/proc/self/fd")
	return err == nil && info.IsDir()
})

// ChdirPath is what to give exec.Cmd.Dir to start a command in exactly this directory.
// It is /proc/self/fd/N: the child's chdir happens after fork and before exec, while it
// still holds a copy of the descriptor, and procfs resolves that name to the open
// directory itself, not to whatever its name means by then. Keep the Dir open until the
// command has started. Without procfs it is the checked name (the swap race is open then).
func (d *Dir) ChdirPath() string {
	if !procFD() {
		return d.path
	}
	return "/proc/self/fd/" + strconv.Itoa(int(d.f.Fd()))
}
