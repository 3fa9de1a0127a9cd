package pocketsphinx

import "golang.org/x/sys/unix"

// exited says whether the decoder's process has ended (killed, or died
// on its own) without reaping it: wait does that and reads its status.
func (d *decoder) exited() bool {
	var info unix.Siginfo
	err := unix.Waitid(unix.P_PID, d.cmd.Process.Pid, &info, unix.WEXITED|unix.WNOHANG|unix.WNOWAIT, nil)
	return err != nil || info.Signo != 0
}
