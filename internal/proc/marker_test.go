package proc

import (
	"encoding/binary"
	"testing"
)

// procArgs builds a KERN_PROCARGS2 buffer as macOS's kernel lays it out.
func procArgs(argc uint32, parts ...string) []byte {
	buf := binary.LittleEndian.AppendUint32(nil, argc)
	for _, p := range parts {
		buf = append(buf, p...)
	}
	return buf
}

func TestProcArgsEnviron(t *testing.T) {
	buf := procArgs(2, "/bin/sh\x00", "\x00\x00\x00", "sh\x00", MarkerVar+"=x.9\x00",
		"HOME=/Users/u\x00", MarkerVar+"=a.1:b.2\x00", "executable_path=/bin/sh\x00", "ptr_munge=\x00")
	env := procArgsEnviron(buf)
	if !carries(env, "b.2") || !carries(env, "a.1") {
		t.Errorf("the environment %q does not carry its markers", env)
	}
	if carries(env, "x.9") {
		t.Errorf("a marker in the arguments counted as carried: %q", env)
	}
	for name, bad := range map[string][]byte{
		"short":            {1, 0},
		"no path end":      procArgs(1, "/bin/sh"),
		"fewer args":       procArgs(3, "/bin/sh\x00", "\x00", "sh\x00", "-c\x00"),
		"marker in arg[0]": procArgs(1, "/bin/sh\x00", "\x00", MarkerVar+"=x.9"),
	} {
		if env := procArgsEnviron(bad); carries(env, "x.9") || len(env) > 0 {
			t.Errorf("%s: environment %q, want none", name, env)
		}
	}
}
