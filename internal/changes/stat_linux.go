//go:build linux

package changes

import (
	"io/fs"
	"syscall"
)

// statOf is what a snapshot compares of a file: a file whose size, times, inode and mode
// are the same as the last snapshot saw is not read again. The change time catches a
// content change that kept the modification time (touch -r, a restored archive).
func statOf(info fs.FileInfo) fileStat {
	s := fileStat{size: info.Size(), mtime: info.ModTime().UnixNano(), mode: uint32(info.Mode()), links: 1}
	if st, ok := info.Sys().(*syscall.Stat_t); ok {
		s.ctime = st.Ctim.Nano()
		s.inode = st.Ino
		s.links = uint64(st.Nlink)
	}
	return s
}
