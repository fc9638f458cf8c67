package harness

import "syscall"

// sysProcAttr puts the child in its own process group (so stopping it
// signals everything it started) and has the kernel kill it when the thread
// that started it exits, so a test binary that dies (timeout, crash,
// SIGKILL) leaves nothing behind.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
