//go:build !unix

package main

import "errors"

// mkfifo: there are no named pipes in the file system here.
func mkfifo(path string) error { return errors.New("no FIFOs on this system") }
