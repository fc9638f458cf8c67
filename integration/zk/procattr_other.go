//go:build !linux

package zk

import "syscall"

// sysProcAttr has no parent-death signal outside Linux; Close must run.
func sysProcAttr() *syscall.SysProcAttr { return nil }
