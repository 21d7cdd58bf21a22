package proc

import (
	"os"

	"golang.org/x/sys/unix"
)

// marked returns the processes whose environment carries marker. macOS has no /proc:
// this lists the user's processes through sysctl (kern.proc.uid, the kinfo_proc table
// ps reads) and reads each one's arguments and environment through kern.procargs2, which
// the kernel gives for any process of the same user (it is what `ps -E` shows). A
// process that replaced its environment (env -i) escapes: its own group is still ended.
func marked(marker string) []int {
	procs, err := unix.SysctlKinfoProcSlice("kern.proc.uid", os.Getuid())
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, kp := range procs {
		pid := int(kp.Proc.P_pid)
		if pid <= 1 || pid == self {
			continue
		}
		buf, err := unix.SysctlRaw("kern.procargs2", pid)
		if err != nil {
			continue // gone, a zombie, or not ours to read
		}
		if carries(procArgsEnviron(buf), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// leftovers is what carries marker; macOS is not asked about sessions (a process that left
// the group but kept the session, and dropped its marker, escapes here).
func leftovers(marker string, session int) []int { return marked(marker) }

// closeInheritedTerminalsOnExec marks close-on-exec every terminal this process holds
// beyond its stdio (only one it inherited can lack the mark), looking at the first
// descriptors: macOS lists them nowhere parley can read cheaply.
func closeInheritedTerminalsOnExec() {
	for fd := 3; fd < 256; fd++ {
		if _, err := unix.IoctlGetTermios(fd, unix.TIOCGETA); err == nil {
			unix.CloseOnExec(fd)
		}
	}
}
