//go:build !linux

package serverproc

import "syscall"

// sysProcAttr has no parent-death signal outside Linux; Close must run.
func sysProcAttr() *syscall.SysProcAttr { return nil }
