//go:build !linux

package calibrate

import "syscall"

// spinnerAttr puts a spinner in a process group of its own; without
// Linux's parent-death signal, only Stop and Kill end it.
func spinnerAttr() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Setpgid: true}
}
