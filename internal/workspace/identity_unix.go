//go:build unix

package workspace

import (
	"io/fs"
	"os"
	"syscall"
)

// idOfPath is the identity of the file path names (symlinks followed).
func idOfPath(path string) (fileID, bool) {
	info, err := os.Stat(path)
	if err != nil {
		return fileID{}, false
	}
	st, ok := info.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{dev: uint64(st.Dev), ino: uint64(st.Ino)}, true
}

// linkCount is how many names (hard links) the open file f has.
func linkCount(_ *os.File, info fs.FileInfo) uint64 {
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}
