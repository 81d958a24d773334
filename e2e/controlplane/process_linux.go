package controlplane

import "syscall"

// sysProcAttr puts the child in its own process group and has the kernel kill
// it if the parent dies first (a test binary killed by its timeout, say).
func sysProcAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
