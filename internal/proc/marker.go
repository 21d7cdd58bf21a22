package proc

import (
	"bytes"
	"encoding/binary"
)

// carries reports whether the NUL-separated environment has marker in MarkerVar's list.
func carries(environ []byte, marker string) bool {
	for kv := range bytes.SplitSeq(environ, []byte{0}) {
		value, ok := bytes.CutPrefix(kv, []byte(MarkerVar+"="))
		if !ok {
			continue
		}
		for m := range bytes.SplitSeq(value, []byte{':'}) {
			if string(m) == marker {
				return true
			}
		}
	}
	return false
}

// procArgsEnviron returns the environment in a macOS KERN_PROCARGS2 buffer, NUL-separated
// as carries wants it, or nil when the buffer is not one. The layout, as the kernel writes
// it: argc (a 32-bit integer in the machine's byte order, little-endian on every Mac
// parley builds for), the executable's path and its terminating NUL, NUL padding, argc
// NUL-terminated arguments, then the environment (followed by the loader's own "apple"
// strings, which carry no marker). The arguments are skipped, so that a command line
// that merely mentions a marker does not count as carrying it.
func procArgsEnviron(buf []byte) []byte {
	if len(buf) < 4 {
		return nil
	}
	argc := int(binary.LittleEndian.Uint32(buf))
	rest := buf[4:]
	path := bytes.IndexByte(rest, 0)
	if path < 0 {
		return nil
	}
	rest = bytes.TrimLeft(rest[path:], "\x00")
	for range argc {
		end := bytes.IndexByte(rest, 0)
		if end < 0 {
			return nil
		}
		rest = rest[end+1:]
	}
	return rest
}
