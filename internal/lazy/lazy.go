// Package lazy holds what a package would otherwise build when the program starts (Go
// runs every linked package's initialisation, whatever the command): it is built on
// first use instead, once, safe for concurrent use.
package lazy

import (
	"regexp"
	"sync"
)

// Regexp returns a function that compiles expr on its first call and returns the same
// *regexp.Regexp on every call. An expression that does not compile panics at that first
// call, as regexp.MustCompile would at start.
func Regexp(expr string) func() *regexp.Regexp {
	return sync.OnceValue(func() *regexp.Regexp { return regexp.MustCompile(expr) })
}
