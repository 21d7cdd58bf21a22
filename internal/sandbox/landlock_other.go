//go:build !linux

package sandbox

// ABI is 0: Landlock is Linux's.
func ABI() int { return 0 }

// Exec fails: Landlock is Linux's.
func Exec(writable []string, tmp string, argv []string) error { return ErrUnavailable }
