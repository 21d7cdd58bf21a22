//go:build !linux && !darwin

package sandbox

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

// Exec fails: Landlock is Linux's.
func Exec(r Rules, argv []string) error { return ErrUnavailable }

// socketFilterWritten is false: the filter is Linux's.
func socketFilterWritten() bool { return false }

// restrictLandlock fails: Landlock is Linux's.
func restrictLandlock(abi int, r Rules) error { return ErrUnavailable }
