//go:build !linux

package proc

import "os"

// leftovers finds nothing outside Linux: processes that left their group are not tracked.
func leftovers(marker string, session int) []int { return nil }

// isTerminal is false outside Linux until a port says how to ask (TIOCGETA on the BSDs
// and macOS, GetConsoleMode on Windows).
func isTerminal(f *os.File) bool { return false }

// closeInheritedTerminalsOnExec does nothing outside Linux yet: a port lists its open
// files its own way.
func closeInheritedTerminalsOnExec() {}
