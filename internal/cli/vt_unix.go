//go:build unix

package cli

import "io"

// enableEscapes has nothing to do: Unix terminals interpret escape sequences.
func enableEscapes(...io.Writer) (restore func()) { return func() {} }
