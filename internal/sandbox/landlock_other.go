//go:build !linux

package sandbox

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

// Exec fails: Landlock is Linux's.
func Exec(writable []string, tmp string, argv []string) error { return ErrUnavailable }

// socketFilterWritten is false: the filter is Linux's.
func socketFilterWritten() bool { return false }

// restrictLandlock fails: Landlock is Linux's.
func restrictLandlock(abi int, writable []string) error { return ErrUnavailable }
