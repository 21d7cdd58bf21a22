//go:build unix

package workspace

import (
	"os"
	"syscall"
)

// readFlags open for reading without blocking: opening a FIFO waits for a writer, and a
// device may do anything; what is opened is checked before a byte is read.
const readFlags = os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY

// dirFlags open a directory to list it, and nothing else.
const dirFlags = readFlags | syscall.O_DIRECTORY
