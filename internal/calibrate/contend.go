package calibrate

import (
	"fmt"
	"os/exec"
	"runtime"
	"sync"
	"syscall"
)

// SpinCommand is what each contending process runs: a shell loop that
// keeps one CPU busy without a system call, like an inference server's
// threads spinning at their barriers.
var SpinCommand = []string{"sh", "-c", "while :; do :; done"}

// Contention is a set of busy processes that compete with the clients for
// the CPU while the schedules run. They are children of this process in
// process groups of their own; Stop ends them, and on Linux the kernel
// kills them if this process dies first.
type Contention struct {
	n    int
	stop chan struct{}
	done chan struct{}

	mu   sync.Mutex
	cmds []*exec.Cmd
}

// StartContention starts n spinning processes (none for n <= 0).
func StartContention(n int) (*Contention, error) {
	c := &Contention{n: n, stop: make(chan struct{}), done: make(chan struct{})}
	if n <= 0 {
		close(c.done)
		return c, nil
	}
	started := make(chan error, 1)
	go c.parent(started)
	if err := <-started; err != nil {
		return nil, err
	}
	return c, nil
}

// parent starts the spinners and waits for Stop on one locked OS thread:
// Linux's parent-death signal fires when the thread that forked a child
// ends, and Go ends a thread when a goroutine locked to it exits (the
// stream package's poller does), so the forking thread must outlive the
// spinners.
func (c *Contention) parent(started chan<- error) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	defer close(c.done)
	for range c.n {
		cmd := exec.Command(SpinCommand[0], SpinCommand[1:]...)
		cmd.SysProcAttr = spinnerAttr()
		if err := cmd.Start(); err != nil {
			c.Kill()
			c.wait()
			started <- fmt.Errorf("cannot start a contending process (%v): %w", SpinCommand, err)
			return
		}
		c.mu.Lock()
		c.cmds = append(c.cmds, cmd)
		c.mu.Unlock()
	}
	started <- nil
	<-c.stop
	c.Kill()
	c.wait()
}

// N is how many processes contend.
func (c *Contention) N() int { return c.n }

// Stop ends the spinners and waits until they are gone.
func (c *Contention) Stop() {
	if c.n > 0 {
		select {
		case <-c.stop:
		default:
			close(c.stop)
		}
	}
	<-c.done
}

// Kill sends SIGKILL to every spinner's process group without waiting: for
// a process that is about to exit at once.
func (c *Contention) Kill() {
	c.mu.Lock()
	defer c.mu.Unlock()
	for _, cmd := range c.cmds {
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}

func (c *Contention) wait() {
	c.mu.Lock()
	cmds := c.cmds
	c.mu.Unlock()
	for _, cmd := range cmds {
		cmd.Wait()
	}
}

// Pids are the spinners' process ids.
func (c *Contention) Pids() []int {
	c.mu.Lock()
	defer c.mu.Unlock()
	var pids []int
	for _, cmd := range c.cmds {
		pids = append(pids, cmd.Process.Pid)
	}
	return pids
}
