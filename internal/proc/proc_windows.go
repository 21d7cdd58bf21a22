package proc

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"unsafe"

	"golang.org/x/sys/windows"
)

// Windows has no process groups to signal and no marker to look for: a process tree is
// held together by a Job Object. What this relies on, as Microsoft documents it:
//
//   - A batch file (.cmd, .bat) is run by starting cmd.exe with /c and the file (as
//     CreateProcess's documentation says), and cmd.exe reads that command line by its own
//     rules; prepare builds one for those rules (batch.go).
//
//   - A process created with CREATE_SUSPENDED runs no code until its primary thread is
//     resumed, and a process in a job puts every process it creates in the same job
//     (unless the job allows breaking away, which this one does not). Assigning the child
//     to its job before resuming it therefore leaves no window in which it can start
//     something outside the job.
//   - TerminateJobObject ends every process in the job at once, whatever became of their
//     parents; JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE ends them when the last handle to the job
//     closes, which is parley's own exit or crash too (the handle is not inheritable).
//   - A process created with CREATE_NEW_PROCESS_GROUP leads a console process group whose
//     id is its pid. GenerateConsoleCtrlEvent(CTRL_BREAK_EVENT, pid) delivers Ctrl-Break to
//     that group only (Ctrl-C cannot be sent to a group, and the group ignores the user's
//     Ctrl-C: parley's own handling decides when its children stop). Go programs see it as
//     os.Interrupt and Node as SIGBREAK; both end by default. It only reaches processes
//     that share parley's console; without one the call fails and Stop goes straight to
//     terminating the job.

// exitTerminated is the exit code of the processes a job's termination ends.
const exitTerminated = 1

// tree is the job that holds the process and everything it starts.
type tree struct {
	mu  sync.Mutex     // guards job against KillAll racing Stop's release
	job windows.Handle // 0 once released
}

// prepare has cmd start suspended, in a console process group of its own, and a batch
// file (npx.cmd) start through cmd.exe with a command line it reads as intended (see
// batch.go).
func prepare(cmd *exec.Cmd) error {
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.CreationFlags |= windows.CREATE_NEW_PROCESS_GROUP | windows.CREATE_SUSPENDED
	if cmd.Err != nil || !isBatchFile(cmd.Path) || cmd.SysProcAttr.CmdLine != "" {
		return nil // cmd.Start reports a command that was not found
	}
	comspec := os.Getenv("ComSpec")
	if comspec == "" {
		comspec = filepath.Join(os.Getenv("SystemRoot"), "System32", "cmd.exe")
	}
	line, err := batchCommandLine(comspec, cmd.Path, cmd.Args[1:])
	if err != nil {
		return err
	}
	cmd.Path, cmd.SysProcAttr.CmdLine = comspec, line
	return nil
}

// closeInheritedTerminalsOnExec has nothing to do: Windows hands a child only the handles
// marked inheritable, and Go marks none but the ones it passes on purpose.
func closeInheritedTerminalsOnExec() {}

// adopt puts the suspended process in a new job, then lets it run.
func (p *Process) adopt() error {
	job, err := windows.CreateJobObject(nil, nil)
	if err != nil {
		return fmt.Errorf("creating a job object for process %d: %w", p.pgid, err)
	}
	limits := windows.JOBOBJECT_EXTENDED_LIMIT_INFORMATION{
		BasicLimitInformation: windows.JOBOBJECT_BASIC_LIMIT_INFORMATION{LimitFlags: windows.JOB_OBJECT_LIMIT_KILL_ON_JOB_CLOSE},
	}
	if _, err := windows.SetInformationJobObject(job, windows.JobObjectExtendedLimitInformation, uintptr(unsafe.Pointer(&limits)), uint32(unsafe.Sizeof(limits))); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("setting up the job object of process %d: %w", p.pgid, err)
	}
	if err := assign(job, uint32(p.pgid)); err != nil {
		windows.CloseHandle(job)
		return fmt.Errorf("putting process %d in its job object: %w", p.pgid, err)
	}
	p.tree.job = job
	if err := resumeProcess(uint32(p.pgid)); err != nil {
		return fmt.Errorf("starting process %d: %w", p.pgid, err) // Start kills it
	}
	return nil
}

func assign(job windows.Handle, pid uint32) error {
	// The pid cannot be reused meanwhile: exec.Cmd holds a handle to the process.
	process, err := windows.OpenProcess(windows.PROCESS_SET_QUOTA|windows.PROCESS_TERMINATE, false, pid)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(process)
	return windows.AssignProcessToJobObject(job, process)
}

// resumeProcess resumes the threads of the suspended process pid (a new process has one,
// its primary thread), found in a snapshot of the system's threads: exec.Cmd closes the
// thread handle CreateProcess returned.
func resumeProcess(pid uint32) error {
	snap, err := windows.CreateToolhelp32Snapshot(windows.TH32CS_SNAPTHREAD, 0)
	if err != nil {
		return err
	}
	defer windows.CloseHandle(snap)
	entry := windows.ThreadEntry32{Size: uint32(unsafe.Sizeof(windows.ThreadEntry32{}))}
	resumed := 0
	for err = windows.Thread32First(snap, &entry); err == nil; err = windows.Thread32Next(snap, &entry) {
		if entry.OwnerProcessID != pid {
			continue
		}
		thread, err := windows.OpenThread(windows.THREAD_SUSPEND_RESUME, false, entry.ThreadID)
		if err != nil {
			return err
		}
		_, err = windows.ResumeThread(thread)
		windows.CloseHandle(thread)
		if err != nil {
			return err
		}
		resumed++
	}
	if !errors.Is(err, windows.ERROR_NO_MORE_FILES) {
		return err
	}
	if resumed == 0 {
		return errors.New("its thread was not found")
	}
	return nil
}

// interrupt sends Ctrl-Break to the process's group, and reports whether it could.
func (p *Process) interrupt() bool {
	return windows.GenerateConsoleCtrlEvent(windows.CTRL_BREAK_EVENT, uint32(p.pgid)) == nil
}

// kill terminates every process in the job.
func (p *Process) kill() { p.terminate() }

// killLeftovers terminates what is left in the job: after the process exited, what it
// started; before, the process too.
func (p *Process) killLeftovers() { p.terminate() }

func (p *Process) terminate() {
	p.tree.mu.Lock()
	defer p.tree.mu.Unlock()
	if p.tree.job != 0 {
		windows.TerminateJobObject(p.tree.job, exitTerminated)
	}
}

// release closes the job (whose processes Stop has already ended).
func (p *Process) release() {
	p.tree.mu.Lock()
	defer p.tree.mu.Unlock()
	if p.tree.job != 0 {
		windows.CloseHandle(p.tree.job)
		p.tree.job = 0
	}
}
