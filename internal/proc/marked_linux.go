package proc

import (
	"os"
	"strconv"
)

// marked returns the processes whose environment carries marker, found through /proc.
// A process that replaced its environment (env -i) escapes: its own group is still ended.
func marked(marker string) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		env, err := os.ReadFile("/proc/" + e.Name() + "/environ")
		if err != nil {
			continue // gone, or not ours to read
		}
		if carries(env, marker) {
			pids = append(pids, pid)
		}
	}
	return pids
}
