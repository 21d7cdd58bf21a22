//go:build unix && !linux && !darwin

package proc

// leftovers finds nothing where parley has no way to list processes' environments (the
// BSDs): processes that left their group are not tracked.
func leftovers(marker string, session int) []int { return nil }

// closeInheritedTerminalsOnExec does nothing here: there is no portable way to list a
// process's open files (a terminal inherited beyond stdio would pass to children).
func closeInheritedTerminalsOnExec() {}
