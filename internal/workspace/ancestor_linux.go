package workspace

import "golang.org/x/sys/unix"

// oPath opens a directory only to walk from it: no read permission is needed.
const oPath = unix.O_PATH
