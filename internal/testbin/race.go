//go:build race

package testbin

// raceEnabled: a test built with -race builds the binary it drives with -race too, so the
// black-box tests check the real process for data races, not only the test's own code.
const raceEnabled = true
