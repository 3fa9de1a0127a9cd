package main

import (
	"fmt"
	"iter"
	"sync/atomic"
	"unsafe"

	"golang.org/x/sys/unix"
)

// The least of io_uring the kstamp-uring client needs, by system call
// (linux/io_uring.h): a ring set up for one thread, submissions, the
// completions one io_uring_enter brings, and a ring of provided buffers.

const (
	setupCQSize       = 1 << 3
	setupSingleIssuer = 1 << 12
	setupDeferTaskrun = 1 << 13 // completions' work runs when the thread enters, not on an interrupt

	offSQEs            = 0x10000000
	enterGetEvents     = 1
	registerPbufRing   = 22
	opRecvMsg          = 10
	sqeBufferSelect    = 1 << 5
	recvMultishot      = 1 << 1
	cqeBuffer          = 1 << 0
	cqeMore            = 1 << 1
	sizeofSQE, sizeCQE = 64, 16
)

// uringParams is struct io_uring_params.
type uringParams struct {
	sqEntries, cqEntries, flags, sqThreadCPU, sqThreadIdle, features, wqFd uint32
	resv                                                                   [3]uint32
	sqOff                                                                  struct {
		head, tail, ringMask, ringEntries, flags, dropped, array, resv1 uint32
		userAddr                                                        uint64
	}
	cqOff struct {
		head, tail, ringMask, ringEntries, overflow, cqes, flags, resv1 uint32
		userAddr                                                        uint64
	}
}

// uringSQE is struct io_uring_sqe.
type uringSQE struct {
	opcode, flags uint8
	ioprio        uint16
	fd            int32
	off           uint64
	addr          uint64
	len           uint32
	msgFlags      uint32
	userData      uint64
	bufGroup      uint16
	personality   uint16
	spliceFdIn    int32
	addr3, pad    uint64
}

// uringCQE is struct io_uring_cqe.
type uringCQE struct {
	userData uint64
	res      int32
	flags    uint32
}

type uring struct {
	fd             int
	rings, sqeMem  []byte
	sqHead, sqTail *uint32
	sqMask         uint32
	sqArray        unsafe.Pointer
	sqes           []uringSQE
	cqHead, cqTail *uint32
	cqMask         uint32
	cqes           unsafe.Pointer
	toSubmit       uint32
}

func newURing(entries uint32) (*uring, error) {
	p := uringParams{flags: setupCQSize | setupSingleIssuer | setupDeferTaskrun, cqEntries: 4 * entries}
	fd, _, e := unix.Syscall(unix.SYS_IO_URING_SETUP, uintptr(entries), uintptr(unsafe.Pointer(&p)), 0)
	if e != 0 {
		return nil, fmt.Errorf("io_uring_setup: %w", e)
	}
	r := &uring{fd: int(fd)}
	// one mapping holds both rings (IORING_FEAT_SINGLE_MMAP, Linux 5.4)
	size := max(p.sqOff.array+4*p.sqEntries, p.cqOff.cqes+sizeCQE*p.cqEntries)
	var err error
	if r.rings, err = unix.Mmap(r.fd, 0, int(size), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		unix.Close(r.fd)
		return nil, fmt.Errorf("io_uring rings: %w", err)
	}
	if r.sqeMem, err = unix.Mmap(r.fd, offSQEs, sizeofSQE*int(p.sqEntries), unix.PROT_READ|unix.PROT_WRITE, unix.MAP_SHARED|unix.MAP_POPULATE); err != nil {
		r.close()
		return nil, fmt.Errorf("io_uring submission entries: %w", err)
	}
	base := unsafe.Pointer(&r.rings[0])
	r.sqHead = (*uint32)(unsafe.Add(base, p.sqOff.head))
	r.sqTail = (*uint32)(unsafe.Add(base, p.sqOff.tail))
	r.sqMask = *(*uint32)(unsafe.Add(base, p.sqOff.ringMask))
	r.sqArray = unsafe.Add(base, p.sqOff.array)
	r.cqHead = (*uint32)(unsafe.Add(base, p.cqOff.head))
	r.cqTail = (*uint32)(unsafe.Add(base, p.cqOff.tail))
	r.cqMask = *(*uint32)(unsafe.Add(base, p.cqOff.ringMask))
	r.cqes = unsafe.Add(base, p.cqOff.cqes)
	r.sqes = unsafe.Slice((*uringSQE)(unsafe.Pointer(&r.sqeMem[0])), p.sqEntries)
	return r, nil
}

func (r *uring) close() {
	if r.sqeMem != nil {
		unix.Munmap(r.sqeMem)
	}
	unix.Munmap(r.rings)
	unix.Close(r.fd)
}

// sqe is the next submission entry, submitted at the next enter; a full
// queue is submitted first.
func (r *uring) sqe() (*uringSQE, error) {
	tail := *r.sqTail
	if tail-atomic.LoadUint32(r.sqHead) > r.sqMask {
		if err := r.enter(0); err != nil {
			return nil, err
		}
	}
	i := tail & r.sqMask
	*(*uint32)(unsafe.Add(r.sqArray, 4*i)) = i
	atomic.StoreUint32(r.sqTail, tail+1)
	r.toSubmit++
	return &r.sqes[i], nil
}

// enter submits what is queued and waits for at least wait completions.
func (r *uring) enter(wait uint32) error {
	flags := uintptr(0)
	if wait > 0 {
		flags = enterGetEvents
	}
	for {
		n, _, e := unix.Syscall6(unix.SYS_IO_URING_ENTER, uintptr(r.fd), uintptr(r.toSubmit), uintptr(wait), flags, 0, 0)
		switch e {
		case 0:
			r.toSubmit -= min(uint32(n), r.toSubmit)
			return nil
		case unix.EINTR:
		default:
			return fmt.Errorf("io_uring_enter: %w", e)
		}
	}
}

// completions yields the completions posted so far and frees their slots
// when the loop ends.
func (r *uring) completions() iter.Seq[uringCQE] {
	return func(yield func(uringCQE) bool) {
		head, tail := *r.cqHead, atomic.LoadUint32(r.cqTail)
		defer func() { atomic.StoreUint32(r.cqHead, head) }()
		for ; head != tail; head++ {
			if !yield(*(*uringCQE)(unsafe.Add(r.cqes, sizeCQE*(head&r.cqMask)))) {
				head++
				return
			}
		}
	}
}

// bufRing is a ring of provided buffers (IORING_REGISTER_PBUF_RING, Linux
// 5.19) that receives with IOSQE_BUFFER_SELECT pick from.
type bufRing struct {
	ring []byte // struct io_uring_buf entries; the tail shares the first
	mem  []byte
	size int
	tail uint16
	mask uint16
}

func (r *uring) provideBuffers(count, size int, group uint16) (*bufRing, error) {
	ring, err := unix.Mmap(-1, 0, 16*count, unix.PROT_READ|unix.PROT_WRITE, unix.MAP_ANONYMOUS|unix.MAP_PRIVATE)
	if err != nil {
		return nil, err
	}
	reg := struct {
		ringAddr    uint64
		ringEntries uint32
		bgid, flags uint16
		resv        [3]uint64
	}{ringAddr: uint64(uintptr(unsafe.Pointer(&ring[0]))), ringEntries: uint32(count), bgid: group}
	if _, _, e := unix.Syscall6(unix.SYS_IO_URING_REGISTER, uintptr(r.fd), registerPbufRing, uintptr(unsafe.Pointer(&reg)), 1, 0, 0); e != 0 {
		unix.Munmap(ring)
		return nil, fmt.Errorf("io_uring provided buffers: %w", e)
	}
	b := &bufRing{ring: ring, mem: make([]byte, count*size), size: size, mask: uint16(count - 1)}
	for i := range count {
		b.give(uint16(i))
	}
	b.publish()
	return b, nil
}

func (b *bufRing) buf(id uint16) []byte { return b.mem[int(id)*b.size : int(id+1)*b.size] }

// give queues buffer id for the kernel, which sees it at publish.
func (b *bufRing) give(id uint16) {
	e := unsafe.Pointer(&b.ring[16*int(b.tail&b.mask)])
	*(*uint64)(e) = uint64(uintptr(unsafe.Pointer(&b.mem[int(id)*b.size])))
	*(*uint32)(unsafe.Add(e, 8)) = uint32(b.size)
	*(*uint16)(unsafe.Add(e, 12)) = id
	b.tail++
}

// publish stores the tail (the last 16 bits of the first entry) with the
// first entry's buffer id beside it, in one ordered store.
func (b *bufRing) publish() {
	id := *(*uint16)(unsafe.Pointer(&b.ring[12]))
	atomic.StoreUint32((*uint32)(unsafe.Pointer(&b.ring[12])), uint32(id)|uint32(b.tail)<<16)
}
