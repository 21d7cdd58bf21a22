//go:build !linux

package workspace

// ChdirPath is what to give exec.Cmd.Dir to start a command in this directory. Outside
// Linux it is the checked name: a symlink swapped in between the check and the command's
// chdir is not caught (there is no portable way to start a process in an open directory).
func (d *Dir) ChdirPath() string { return d.path }
