package main

import (
	"errors"
	"testing"

	"golang.org/x/sys/unix"
)

// uringAvailable reports whether this kernel lets the process set up an
// io_uring (a kernel built without it, or a sandbox that forbids it, does
// not): the kstamp-uring client is tried only then.
func uringAvailable(t *testing.T) bool {
	r, err := newURing(8)
	if errors.Is(err, unix.ENOSYS) || errors.Is(err, unix.EPERM) {
		t.Logf("no io_uring here (%v): the kstamp-uring client is not tried", err)
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	r.close()
	return true
}
