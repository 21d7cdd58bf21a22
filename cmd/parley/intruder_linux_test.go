package main

// The intruder: a command an agent runs that goes for the user's terminal and the servers
// around parley, and says how far it got.

import (
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"unsafe"

	"golang.org/x/sys/unix"
)

// oscClipboard and oscTitle are escape sequences a command could write to the terminal
// behind the text filter's back: set the clipboard ("rm -rf ~", for the next paste) and
// the window title.
const (
	oscClipboard = "\x1b]52;c;cm0gLXJmIH4K\x07"
	oscTitle     = "\x1b]0;parley-intruder\x07"
)

// runIntruder does what its arguments say, and prints one line of what happened:
//
//	tty TEXT              look for a terminal on stdin, stdout and stderr, then open
//	                      /dev/tty, push TEXT and a newline into its input (TIOCSTI)
//	                      and write oscClipboard and oscTitle to it
//	leave DIR             start `linger PARENT DIR` out of its group, without parley's
//	                      marker (an empty environment), write its pid to DIR/linger.pid
//	                      and exit
//	linger PID DIR        wait for PID to exit, then do `tty typed-after-exit` and write
//	                      what happened to DIR/linger.result
//	dial ADDRESS...       connect to each Unix socket (@NAME: abstract)
//	signal PID            signal 0 to PID
//	env NAME...           the variables' values
func runIntruder(args []string) int {
	if len(args) == 0 {
		return 2
	}
	switch args[0] {
	case "tty":
		fmt.Println(intrude(args[1]))
	case "leave":
		cmd := exec.Command(os.Args[0], "linger", strconv.Itoa(os.Getppid()), args[1])
		cmd.Env = []string{"PARLEY_TEST_ROLE=intruder"}
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		if err := cmd.Start(); err != nil {
			fmt.Println("leave:", err)
			return 1
		}
		os.WriteFile(filepath.Join(args[1], "linger.pid"), []byte(strconv.Itoa(cmd.Process.Pid)), 0o644)
		fmt.Println("left", cmd.Process.Pid)
	case "linger":
		pid, _ := strconv.Atoi(args[1])
		if fd, err := unix.PidfdOpen(pid, 0); err == nil {
			unix.Poll([]unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}}, -1)
		}
		os.WriteFile(filepath.Join(args[2], "linger.result"), []byte(intrude("typed-after-exit")), 0o644)
	case "dial":
		var said []string
		for _, addr := range args[1:] {
			c, err := net.Dial("unix", addr)
			if err == nil {
				c.Close()
				said = append(said, "dial "+addr+": connected")
			} else {
				said = append(said, "dial "+addr+": "+err.Error())
			}
		}
		fmt.Println(strings.Join(said, "; "))
	case "signal":
		pid, _ := strconv.Atoi(args[1])
		if err := syscall.Kill(pid, 0); err != nil {
			fmt.Println("signal:", err)
		} else {
			fmt.Println("signal: delivered")
		}
	case "env":
		var said []string
		for _, name := range args[1:] {
			said = append(said, name+"="+os.Getenv(name))
		}
		fmt.Println(strings.Join(said, " "))
	default:
		return 2
	}
	return 0
}

// intrude tries the terminal, and says how it went: "stdio=… devtty=…".
func intrude(text string) string {
	var said []string
	for fd := range 3 {
		if _, err := unix.IoctlGetTermios(fd, unix.TCGETS); err == nil {
			said = append(said, fmt.Sprintf("fd%d=terminal", fd))
			if pushed := push(fd, text+"\n"); pushed == nil {
				said = append(said, fmt.Sprintf("fd%d-tiocsti=ok", fd))
			}
		}
	}
	f, err := os.OpenFile("/dev/tty", os.O_RDWR, 0)
	if err != nil {
		return strings.Join(append(said, "devtty=refused("+err.Error()+")"), " ")
	}
	defer f.Close()
	said = append(said, "devtty=opened")
	if err := push(int(f.Fd()), text+"\n"); err != nil {
		said = append(said, "tiocsti="+err.Error())
	} else {
		said = append(said, "tiocsti=ok")
	}
	if _, err := f.WriteString(oscClipboard + oscTitle); err != nil {
		said = append(said, "escapes="+err.Error())
	} else {
		said = append(said, "escapes=written")
	}
	return strings.Join(said, " ")
}

// push types text into the terminal fd, as if from its keyboard (TIOCSTI).
func push(fd int, text string) error {
	for i := range len(text) {
		c := text[i]
		if _, _, errno := unix.Syscall(unix.SYS_IOCTL, uintptr(fd), unix.TIOCSTI, uintptr(unsafe.Pointer(&c))); errno != 0 {
			return errno
		}
	}
	return nil
}
