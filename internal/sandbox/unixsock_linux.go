package sandbox

import (
	"fmt"
	"runtime"
	"unsafe"

	"golang.org/x/sys/unix"
)

// Landlock before ABI 9 does not cover connecting to a Unix socket by its path, so a
// confined command could ask a server the user runs unconfined (tmux, screen, the
// session bus, ssh-agent, docker) to write anywhere for it. On those kernels a seccomp
// filter refuses to create Unix sockets at all: socket(AF_UNIX, …) fails with EACCES.
// socketpair(2) is left alone (connected pairs reach no one else: Node and Python use
// them for their children's stdio), and so are the other families (the network is not
// confined). seccomp cannot see where connect(2) goes (the address is in memory it
// cannot read), so a command cannot run a Unix socket server of its own either.
//
// io_uring can create and connect sockets without the system calls the filter sees, so
// it is refused too (ENOSYS: programs that use it fall back to ordinary calls).
//
// The filter sees each system call with the architecture it was made in: a 32-bit x86
// program on amd64 makes its own (socket is 359, or socketcall(SYS_SOCKET) whose domain
// is in memory: refused whatever it is), and an x32 program sets a bit in the number.
// Any other architecture's calls end the process: its numbers are not known here.

// seccompData's offsets (struct seccomp_data: nr, arch, instruction_pointer, args[6]);
// an argument's low 32 bits come first on the little-endian machines below.
const (
	offNr   = 0
	offArch = 4
	offArg0 = 16
)

// Numbers the filter needs that golang.org/x/sys names only for the native architecture.
const (
	x32Bit           = 0x40000000 // set in the numbers of x32 calls on amd64
	i386Socket       = 359
	i386Socketcall   = 102
	socketcallSocket = 1 // socketcall's first argument for socket(2)
	ioUringSetup     = 425
	ioUringEnter     = 426
	ioUringRegister  = 427
	seccompRetEACCES = unix.SECCOMP_RET_ERRNO | uint32(unix.EACCES)
	seccompRetENOSYS = unix.SECCOMP_RET_ERRNO | uint32(unix.ENOSYS)
	seccompRetAllow  = unix.SECCOMP_RET_ALLOW
	seccompRetKill   = unix.SECCOMP_RET_KILL_PROCESS
	bpfLoadWord      = unix.BPF_LD | unix.BPF_W | unix.BPF_ABS
	bpfJumpIfEqual   = unix.BPF_JMP | unix.BPF_JEQ | unix.BPF_K
	bpfAnd           = unix.BPF_ALU | unix.BPF_AND | unix.BPF_K
	bpfReturn        = unix.BPF_RET | unix.BPF_K
)

// nativeArch is the AUDIT_ARCH value of this build's architecture, 0 where the filter
// is not written (on those, only Landlock ABI 9 keeps Unix sockets out of reach).
func nativeArch() uint32 {
	switch runtime.GOARCH {
	case "amd64":
		return unix.AUDIT_ARCH_X86_64
	case "arm64":
		return unix.AUDIT_ARCH_AARCH64
	case "riscv64":
		return unix.AUDIT_ARCH_RISCV64
	}
	return 0
}

// socketFilterWritten reports whether this architecture has the filter.
func socketFilterWritten() bool { return nativeArch() != 0 }

// refuseUnixSockets installs the filter on every thread of this process; what it
// executes keeps it. Landlock's restriction must come first: it sets no_new_privs on
// every thread, which an unprivileged filter needs.
func refuseUnixSockets() error {
	prog, err := unixSocketFilter(nativeArch(), runtime.GOARCH == "amd64")
	if err != nil {
		return err
	}
	fprog := unix.SockFprog{Len: uint16(len(prog)), Filter: &prog[0]}
	_, _, errno := unix.Syscall(unix.SYS_SECCOMP, unix.SECCOMP_SET_MODE_FILTER, unix.SECCOMP_FILTER_FLAG_TSYNC, uintptr(unsafe.Pointer(&fprog)))
	runtime.KeepAlive(prog)
	if errno != 0 {
		return fmt.Errorf("installing the seccomp filter that refuses Unix sockets: %w", errno)
	}
	return nil
}

// unixSocketFilter is the filter's program for the architecture arch; compat32 says
// whether 32-bit x86 calls are possible (amd64).
func unixSocketFilter(arch uint32, compat32 bool) ([]unix.SockFilter, error) {
	if arch == 0 {
		return nil, fmt.Errorf("no seccomp filter is written for %s", runtime.GOARCH)
	}
	var a assembler
	a.load(offArch)
	a.jumpIf(arch, "native", "foreign")

	a.label("native")
	a.load(offNr)
	if compat32 {
		a.emit(bpfAnd, ^uint32(x32Bit), "", "") // an x32 call is the x86-64 call with that bit
	}
	a.jumpIf(uint32(unix.SYS_SOCKET), "domain", "")
	a.jumpIf(ioUringSetup, "nosys", "")
	a.jumpIf(ioUringEnter, "nosys", "")
	a.jumpIf(ioUringRegister, "nosys", "")
	a.ret(seccompRetAllow)

	a.label("domain") // socket(domain, type, protocol)
	a.load(offArg0)
	a.jumpIf(unix.AF_UNIX, "eacces", "")
	a.ret(seccompRetAllow)

	a.label("foreign")
	if compat32 {
		a.jumpIf(unix.AUDIT_ARCH_I386, "", "kill")
		a.load(offNr)
		a.jumpIf(i386Socket, "", "i386-socketcall")
		a.load(offArg0)
		a.jumpIf(unix.AF_UNIX, "eacces", "")
		a.ret(seccompRetAllow)
		a.label("i386-socketcall") // socketcall(call, args): the domain is behind a pointer
		a.jumpIf(i386Socketcall, "", "i386-other")
		a.load(offArg0)
		a.jumpIf(socketcallSocket, "eacces", "")
		a.ret(seccompRetAllow)
		a.label("i386-other")
		a.jumpIf(ioUringSetup, "nosys", "")
		a.jumpIf(ioUringEnter, "nosys", "")
		a.jumpIf(ioUringRegister, "nosys", "")
		a.ret(seccompRetAllow)
	}
	a.label("kill")
	a.ret(seccompRetKill)

	a.label("eacces")
	a.ret(seccompRetEACCES)
	a.label("nosys")
	a.ret(seccompRetENOSYS)
	return a.assemble()
}

// assembler writes a classic BPF program with named jump targets ("" is the next
// instruction); BPF only jumps forward.
type assembler struct {
	insns  []insn
	labels map[string]int
}

type insn struct {
	code   uint16
	k      uint32
	jt, jf string
}

func (a *assembler) emit(code uint16, k uint32, jt, jf string) {
	a.insns = append(a.insns, insn{code, k, jt, jf})
}

func (a *assembler) load(offset uint32)             { a.emit(bpfLoadWord, offset, "", "") }
func (a *assembler) jumpIf(k uint32, jt, jf string) { a.emit(bpfJumpIfEqual, k, jt, jf) }
func (a *assembler) ret(k uint32)                   { a.emit(bpfReturn, k, "", "") }
func (a *assembler) label(name string) {
	if a.labels == nil {
		a.labels = map[string]int{}
	}
	a.labels[name] = len(a.insns)
}

func (a *assembler) assemble() ([]unix.SockFilter, error) {
	prog := make([]unix.SockFilter, len(a.insns))
	for i, in := range a.insns {
		jt, err := a.offset(i, in.jt)
		if err != nil {
			return nil, err
		}
		jf, err := a.offset(i, in.jf)
		if err != nil {
			return nil, err
		}
		prog[i] = unix.SockFilter{Code: in.code, Jt: jt, Jf: jf, K: in.k}
	}
	return prog, nil
}

// offset is how far instruction i jumps to reach label.
func (a *assembler) offset(i int, label string) (uint8, error) {
	if label == "" {
		return 0, nil
	}
	target, ok := a.labels[label]
	if !ok || target <= i || target-i-1 > 255 {
		return 0, fmt.Errorf("seccomp filter: bad jump from %d to %q", i, label)
	}
	return uint8(target - i - 1), nil
}
