//go:build !linux

package changes

import "io/fs"

// statOf is what a snapshot compares of a file: its size, modification time and mode
// (where the change time and inode are not read, a content change that kept the size and
// the modification time goes unseen).
func statOf(info fs.FileInfo) fileStat {
	return fileStat{size: info.Size(), mtime: info.ModTime().UnixNano(), mode: uint32(info.Mode()), links: 1}
}
