package workspace

import (
	"io/fs"
	"os"
	"path/filepath"

	"golang.org/x/sys/windows"
)

// A file's identity on Windows is its volume's serial number and its file index, which
// GetFileInformationByHandle gives for an open handle (Microsoft documents the pair as
// identifying a file on a computer, as os.SameFile also uses it); its NumberOfLinks is the
// count of hard links. Opening a directory by name through os.Open works: Go passes
// FILE_FLAG_BACKUP_SEMANTICS, which CreateFile needs to open one.

func handleInfo(f *os.File) (windows.ByHandleFileInformation, error) {
	var info windows.ByHandleFileInformation
	err := windows.GetFileInformationByHandle(windows.Handle(f.Fd()), &info)
	return info, err
}

func idOfHandle(f *os.File) (fileID, bool) {
	info, err := handleInfo(f)
	if err != nil {
		return fileID{}, false
	}
	return fileID{dev: uint64(info.VolumeSerialNumber), ino: uint64(info.FileIndexHigh)<<32 | uint64(info.FileIndexLow)}, true
}

// idOfPath is the identity of the file path names (symlinks followed).
func idOfPath(path string) (fileID, bool) {
	f, err := os.Open(path)
	if err != nil {
		return fileID{}, false
	}
	defer f.Close()
	return idOfHandle(f)
}

// linkCount is how many names (hard links) the open file f has.
func linkCount(f *os.File, _ fs.FileInfo) uint64 {
	info, err := handleInfo(f)
	if err != nil {
		return 1
	}
	return uint64(info.NumberOfLinks)
}

// ancestorIn returns the name of the first directory in ids among the open directory dir
// and its ancestors, or "". Windows cannot open ".." relative to a handle, so the
// ancestors are found from the directory's current full name, which
// GetFinalPathNameByHandle gives for the handle itself (after every link, in the form
// \\?\C:\dir or \\?\UNC\server\share\dir), and each is then identified by name: dir is
// what was opened, and a rename of one of its ancestors in the meantime is the one change
// this does not follow.
func ancestorIn(dir *os.File, ids map[fileID]string) (string, error) {
	if id, ok := idOfHandle(dir); ok {
		if name, ok := ids[id]; ok {
			return name, nil
		}
	}
	full, err := finalPath(dir)
	if err != nil {
		return "", err
	}
	for p := filepath.Dir(full); ; p = filepath.Dir(p) {
		if id, ok := idOfPath(p); ok {
			if name, ok := ids[id]; ok {
				return name, nil
			}
		}
		if filepath.Dir(p) == p {
			return "", nil
		}
	}
}

// finalPath is the full name of the open file f, in plain form (C:\dir, \\server\share).
func finalPath(f *os.File) (string, error) {
	buf := make([]uint16, windows.MAX_LONG_PATH)
	for {
		// Flags 0: FILE_NAME_NORMALIZED | VOLUME_NAME_DOS, a drive letter or UNC name.
		n, err := windows.GetFinalPathNameByHandle(windows.Handle(f.Fd()), &buf[0], uint32(len(buf)), 0)
		if err != nil {
			return "", err
		}
		if int(n) < len(buf) {
			return checkWindowsPath(windows.UTF16ToString(buf[:n]))
		}
		buf = make([]uint16, n) // n is the size needed, its NUL included
	}
}
