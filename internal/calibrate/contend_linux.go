package calibrate

import "syscall"

// spinnerAttr puts a spinner in a process group of its own and has the
// kernel kill it should this process die without stopping it.
func spinnerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
}
