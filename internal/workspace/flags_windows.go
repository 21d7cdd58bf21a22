package workspace

import "os"

// readFlags open for reading. Windows needs no O_NONBLOCK: there are no FIFOs in a
// directory tree (named pipes live in their own namespace, \\.\pipe\, which
// checkWindowsPath refuses), and device names are refused by it and by os.Root.
const readFlags = os.O_RDONLY

// dirFlags open a directory to list it; ReadDir fails on what is not one.
const dirFlags = os.O_RDONLY
