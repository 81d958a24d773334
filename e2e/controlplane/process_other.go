//go:build !linux

package controlplane

import "syscall"

// sysProcAttr puts the child in its own process group. Outside Linux there is
// no parent-death signal: a parent killed with SIGKILL leaves its children
// running.
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
