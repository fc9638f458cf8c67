//go:build unix && !linux

package harness

import "syscall"

// sysProcAttr puts the child in its own process group. Without Linux's
// parent-death signal a child outlives a test binary that is killed
// outright; cleanups still stop it on every normal exit.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
