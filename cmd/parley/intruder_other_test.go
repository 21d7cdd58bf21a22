//go:build !linux

package main

// runIntruder is Linux's (TIOCSTI, pidfds): its tests run there only.
func runIntruder(args []string) int { return 2 }
