package proc

import (
	"bytes"
	"errors"
	"io/fs"
	"os"
	"strconv"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// leftovers returns the processes, found through /proc, whose environment carries marker
// or that are in session (0: none). A process that replaced its environment (env -i)
// and started a session of its own escapes: its own group is still ended.
func leftovers(marker string, session int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		if session != 0 && pid != session && sessionOf(e.Name()) == session {
			// Not the leader itself: a process with the session's id is a new one (see
			// killLeftovers), and the leader is dealt with through its group.
			pids = append(pids, pid)
			continue
		}
		if carriesMarker(e.Name(), marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// carriesMarker reports whether the environment of process pid holds marker. A process
// in the middle of execve shows an empty environment (or none) for a moment: a process
// we may read that shows none is read again a few times, a millisecond apart, before it
// is taken for one without the marker (a daemon caught exec'ing would escape Stop).
func carriesMarker(pid, marker string) bool {
	for try := 0; ; try++ {
		env, err := os.ReadFile("/proc/" + pid + "/environ")
		switch {
		case err == nil && len(env) > 0:
			return carries(env, marker)
		case err != nil && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, syscall.ESRCH) || errors.Is(err, fs.ErrPermission)):
			return false // gone, or not ours to read
		case try == 4 || !mayBeExecing(pid):
			return false
		}
		time.Sleep(time.Millisecond)
	}
}

// mayBeExecing reports whether process pid, which shows no environment, can be one in the
// middle of execve: not a kernel thread (kthreadd, 2, and its children have none) and not
// a zombie or dead process (its memory is gone).
func mayBeExecing(pid string) bool {
	fields := statFields(pid)
	if len(fields) < 2 {
		return false
	}
	state, ppid := string(fields[0]), string(fields[1])
	return pid != "2" && ppid != "2" && state != "Z" && state != "X"
}

// sessionOf is the session id of the process pid (a decimal string), 0 when it cannot be
// read.
func sessionOf(pid string) int {
	fields := statFields(pid)
	if len(fields) < 4 {
		return 0
	}
	sid, _ := strconv.Atoi(string(fields[3]))
	return sid
}

// statFields are the fields of /proc/PID/stat after "pid (comm)" (state, ppid, pgrp,
// session, …), none when it cannot be read. comm may hold spaces and parentheses: the
// fields are counted from the last ')'.
func statFields(pid string) [][]byte {
	stat, err := os.ReadFile("/proc/" + pid + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return nil
	}
	return bytes.Fields(stat[i+1:])
}

// closeInheritedTerminalsOnExec marks close-on-exec every terminal this process holds
// beyond its stdio: only one it inherited can lack the mark. Other files it inherited
// (a make jobserver's pipes) still pass on.
func closeInheritedTerminalsOnExec() {
	entries, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return
	}
	for _, e := range entries {
		fd, err := strconv.Atoi(e.Name())
		if err != nil || fd <= 2 {
			continue
		}
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			unix.CloseOnExec(fd)
		}
	}
}
