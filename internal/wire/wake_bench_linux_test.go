package wire

import (
	"runtime"
	"testing"
	"time"
	"unsafe"

	"golang.org/x/sys/unix"
)

// BenchmarkWakeSleepingThread is what one eventfd write costs the writer's
// thread in CPU time when another thread sleeps on the eventfd (the
// kernel wakes it, on another CPU) and when nobody waits: the price of a
// hand-off between threads, which on a virtual machine that exits to its
// host for each cross-CPU interrupt is many times the system call's. The
// metric is the writer's thread CPU per write (CLOCK_THREAD_CPUTIME_ID
// around the write alone).
func BenchmarkWakeSleepingThread(b *testing.B) {
	for _, sleeper := range []bool{true, false} {
		name := "no-waiter"
		if sleeper {
			name = "sleeping-reader"
		}
		b.Run(name, func(b *testing.B) {
			fd, err := unix.Eventfd(0, unix.EFD_CLOEXEC)
			if err != nil {
				b.Fatal(err)
			}
			defer unix.Close(fd)
			if sleeper {
				stop := make(chan struct{})
				go func() {
					runtime.LockOSThread()
					var buf [8]byte
					for {
						unix.Read(fd, buf[:])
						select {
						case <-stop:
							return
						default:
						}
					}
				}()
				defer func() {
					close(stop)
					unix.Write(fd, eventOne)
				}()
			}
			runtime.LockOSThread()
			defer runtime.UnlockOSThread()
			var cpu int64
			for b.Loop() {
				if sleeper {
					b.StopTimer()
					time.Sleep(200 * time.Microsecond) // the reader is asleep again
					b.StartTimer()
				}
				c0 := threadCPUNow()
				unix.RawSyscall(unix.SYS_WRITE, uintptr(fd), uintptr(unsafe.Pointer(&eventOne[0])), uintptr(len(eventOne)))
				cpu += threadCPUNow() - c0
			}
			b.ReportMetric(float64(cpu)/float64(b.N), "writer-cpu-ns/op")
		})
	}
}

func threadCPUNow() int64 {
	var ts unix.Timespec
	unix.ClockGettime(unix.CLOCK_THREAD_CPUTIME_ID, &ts)
	return ts.Nano()
}
