//go:build !linux

package bench

import "time"

// Elsewhere the benchmarks report no CPU times.

func cpuTime(pid int) (time.Duration, bool) { return 0, false }
func selfCPU() (time.Duration, bool)        { return 0, false }
func childrenOf(pid int) []int              { return nil }
