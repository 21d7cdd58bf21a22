//go:build !unix

package conformance

import "errors"

// mkfifo: there are no named pipes in the file system here; the tests that need one skip.
func mkfifo(path string) error { return errors.New("no FIFOs on this system") }
