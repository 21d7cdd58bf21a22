package sandbox

import (
	"encoding/binary"
	"runtime"
	"testing"

	"golang.org/x/sys/unix"
)

// runFilter runs a classic BPF program over a seccomp_data, for the instructions the
// filter uses (load word, and, jump if equal, return).
func runFilter(t *testing.T, prog []unix.SockFilter, arch, nr uint32, arg0 uint64) uint32 {
	t.Helper()
	var data [64]byte
	binary.LittleEndian.PutUint32(data[offNr:], nr)
	binary.LittleEndian.PutUint32(data[offArch:], arch)
	binary.LittleEndian.PutUint64(data[offArg0:], arg0)
	var acc uint32
	for pc := 0; pc < len(prog); pc++ {
		in := prog[pc]
		switch in.Code {
		case bpfLoadWord:
			acc = binary.LittleEndian.Uint32(data[in.K:])
		case bpfAnd:
			acc &= in.K
		case bpfJumpIfEqual:
			if acc == in.K {
				pc += int(in.Jt)
			} else {
				pc += int(in.Jf)
			}
		case bpfReturn:
			return in.K
		default:
			t.Fatalf("instruction %d: code %#x not understood", pc, in.Code)
		}
	}
	t.Fatal("the program ran off its end")
	return 0
}

func TestUnixSocketFilter(t *testing.T) {
	if runtime.GOARCH != "amd64" {
		t.Skip("the table below holds amd64's numbers")
	}
	const amd64Socket, amd64Socketpair = 41, 53
	prog, err := unixSocketFilter(unix.AUDIT_ARCH_X86_64, true)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name     string
		arch, nr uint32
		arg0     uint64
		want     uint32
	}{
		{"socket(AF_UNIX)", unix.AUDIT_ARCH_X86_64, amd64Socket, unix.AF_UNIX, seccompRetEACCES},
		{"socket(AF_INET)", unix.AUDIT_ARCH_X86_64, amd64Socket, unix.AF_INET, seccompRetAllow},
		{"socket(AF_INET6)", unix.AUDIT_ARCH_X86_64, amd64Socket, unix.AF_INET6, seccompRetAllow},
		{"socketpair(AF_UNIX)", unix.AUDIT_ARCH_X86_64, amd64Socketpair, unix.AF_UNIX, seccompRetAllow},
		{"write", unix.AUDIT_ARCH_X86_64, 1, unix.AF_UNIX, seccompRetAllow},
		{"io_uring_setup", unix.AUDIT_ARCH_X86_64, ioUringSetup, 0, seccompRetENOSYS},
		{"io_uring_enter", unix.AUDIT_ARCH_X86_64, ioUringEnter, 0, seccompRetENOSYS},
		{"io_uring_register", unix.AUDIT_ARCH_X86_64, ioUringRegister, 0, seccompRetENOSYS},
		{"x32 socket(AF_UNIX)", unix.AUDIT_ARCH_X86_64, x32Bit | amd64Socket, unix.AF_UNIX, seccompRetEACCES},
		{"x32 socket(AF_INET)", unix.AUDIT_ARCH_X86_64, x32Bit | amd64Socket, unix.AF_INET, seccompRetAllow},
		{"i386 socket(AF_UNIX)", unix.AUDIT_ARCH_I386, i386Socket, unix.AF_UNIX, seccompRetEACCES},
		{"i386 socket(AF_INET)", unix.AUDIT_ARCH_I386, i386Socket, unix.AF_INET, seccompRetAllow},
		{"i386 socketcall(SYS_SOCKET)", unix.AUDIT_ARCH_I386, i386Socketcall, socketcallSocket, seccompRetEACCES},
		{"i386 socketcall(SYS_SOCKETPAIR)", unix.AUDIT_ARCH_I386, i386Socketcall, 8, seccompRetAllow},
		{"i386 io_uring_setup", unix.AUDIT_ARCH_I386, ioUringSetup, 0, seccompRetENOSYS},
		{"i386 write", unix.AUDIT_ARCH_I386, 4, 0, seccompRetAllow},
		{"another architecture", unix.AUDIT_ARCH_AARCH64, 198, unix.AF_UNIX, seccompRetKill},
	} {
		if got := runFilter(t, prog, tc.arch, tc.nr, tc.arg0); got != tc.want {
			t.Errorf("%s: %#x, want %#x", tc.name, got, tc.want)
		}
	}

	const arm64Socket = 198
	prog, err = unixSocketFilter(unix.AUDIT_ARCH_AARCH64, false)
	if err != nil {
		t.Fatal(err)
	}
	// The native numbers are this build's: only check what does not depend on them.
	if got := runFilter(t, prog, unix.AUDIT_ARCH_ARM, arm64Socket, unix.AF_UNIX); got != seccompRetKill {
		t.Errorf("a 32-bit ARM call on arm64: %#x, want the process killed", got)
	}
	if got := runFilter(t, prog, unix.AUDIT_ARCH_AARCH64, ioUringSetup, 0); got != seccompRetENOSYS {
		t.Errorf("io_uring_setup on arm64: %#x", got)
	}
	if _, err := unixSocketFilter(0, false); err == nil {
		t.Error("a filter for an unknown architecture")
	}
}
