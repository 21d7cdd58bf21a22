//go:build unix

package workspace

import (
	"os"

	"golang.org/x/sys/unix"
)

// maxDepth bounds the walk up from a directory (PATH_MAX allows about 2,048 levels).
const maxDepth = 4096

// ancestorIn walks up from the directory dir through "..", opened relative to each
// directory's descriptor rather than by name, and returns the name of the first one (dir
// itself included) whose identity is in ids, or "" once the file system's root is reached.
func ancestorIn(dir *os.File, ids map[fileID]string) (string, error) {
	raw, err := dir.SyscallConn()
	if err != nil {
		return "", err
	}
	var holder string
	var walkErr error
	err = raw.Control(func(fd uintptr) {
		holder, walkErr = walkUp(int(fd), ids)
	})
	if err != nil {
		return "", err
	}
	return holder, walkErr
}

func walkUp(start int, ids map[fileID]string) (string, error) {
	cur := start
	defer func() {
		if cur != start {
			unix.Close(cur)
		}
	}()
	var st unix.Stat_t
	if err := unix.Fstat(cur, &st); err != nil {
		return "", err
	}
	for range maxDepth {
		id := fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}
		if name, ok := ids[id]; ok {
			return name, nil
		}
		parent, err := unix.Openat(cur, "..", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC|oPath, 0)
		if err != nil {
			return "", err
		}
		var pst unix.Stat_t
		if err := unix.Fstat(parent, &pst); err != nil {
			unix.Close(parent)
			return "", err
		}
		if pst.Dev == st.Dev && pst.Ino == st.Ino { // ".." of the root is the root
			unix.Close(parent)
			return "", nil
		}
		if cur != start {
			unix.Close(cur)
		}
		cur, st = parent, pst
	}
	return "", unix.ELOOP
}
