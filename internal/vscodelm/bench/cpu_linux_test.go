//go:build linux

package bench

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// clockTick is the unit of /proc/PID/stat's times (USER_HZ, 100 on every Linux).
const clockTick = 10 * time.Millisecond

// cpuTime is the CPU time, user and system over every thread, that process pid has used
// (/proc/PID/stat), and false when it cannot be read.
func cpuTime(pid int) (time.Duration, bool) {
	fields := statFields(strconv.Itoa(pid))
	if len(fields) < 13 {
		return 0, false
	}
	utime, err1 := strconv.ParseInt(fields[11], 10, 64)
	stime, err2 := strconv.ParseInt(fields[12], 10, 64)
	if err1 != nil || err2 != nil {
		return 0, false
	}
	return time.Duration(utime+stime) * clockTick, true
}

// selfCPU is the CPU time this process has used.
func selfCPU() (time.Duration, bool) {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0, false
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), true
}

// childrenOf lists the processes whose parent is pid.
func childrenOf(pid int) []int {
	entries, _ := os.ReadDir("/proc")
	parent := strconv.Itoa(pid)
	var kids []int
	for _, e := range entries {
		child, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if fields := statFields(e.Name()); len(fields) > 1 && fields[1] == parent {
			kids = append(kids, child)
		}
	}
	return kids
}

// statFields is /proc/PID/stat's fields after the command name (state, ppid, …), or nil.
func statFields(pid string) []string {
	b, err := os.ReadFile(filepath.Join("/proc", pid, "stat"))
	if err != nil {
		return nil
	}
	// The command name, in parentheses, may hold spaces: the fields start after its end.
	s := string(b)
	return strings.Fields(s[strings.LastIndexByte(s, ')')+1:])
}
