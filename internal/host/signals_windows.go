package host

import "syscall"

// signalNames is empty: a Windows process ends with an exit code, never a signal, so a
// terminal's exit status on Windows always has one (syscall.WaitStatus.Signaled is false).
var signalNames = map[syscall.Signal]string{}
