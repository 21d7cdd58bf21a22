package proc

import (
	"os/exec"
	"syscall"

	"golang.org/x/sys/windows"
)

// detach has cmd leave its parent's console and process group, as far as Windows lets a
// process go: it stays in its parent's job, which is what Stop relies on.
func detach(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{CreationFlags: windows.DETACHED_PROCESS | windows.CREATE_NEW_PROCESS_GROUP}
}

// sharesConsole reports whether the test has a console its children share, which
// Ctrl-Break needs: GetConsoleCP fails without one.
func sharesConsole() bool {
	_, err := windows.GetConsoleCP()
	return err == nil
}
