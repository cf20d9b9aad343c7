package pmcd

import (
	"io"
	"net"
	"os"
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// rawConn is a connection to pmcd that the Client drives with its own
// system calls on the socket, outside Go's network poller: a request is
// one sendto, and waiting for its reply one ppoll and then (usually) one
// read of the whole PDU. The netpoller costs a read that fails with
// EAGAIN, an epoll round and a goroutine park and wake-up per reply,
// and each SetDeadline is a runtime timer operation; on a logger
// fetching every few milliseconds those wake-ups cost more CPU than the
// fetch itself (docs/benchmarks.md, section "pmlogger").
//
// The system calls are made with syscall.RawSyscall, so the goroutine
// keeps its P while it waits for pmcd: the runtime does not hand the P
// over (and wake the sysmon thread) around each request. The wait is
// bounded by the request deadline (ppoll's timeout), and it is never
// long enough to starve the program: when the runtime wants the P (a
// goroutine preempted for 10 ms, a garbage collection, a signal to
// deliver) it interrupts the thread with a signal, ppoll returns EINTR
// and the client yields (runtime.Gosched) before waiting again.
//
// The socket stays in non-blocking mode, as Go's net package left it.
type rawConn struct {
	fd       int
	deadline time.Time // zero: none
	replyDue bool      // a request was sent: wait before reading
}

// newRawConn takes over c's socket: it duplicates the descriptor and
// closes c (which removes it from the network poller). It returns nil,
// leaving c as it was, when c has no descriptor (net.Pipe in tests) or
// the descriptor cannot be duplicated.
func newRawConn(c net.Conn) *rawConn {
	sc, ok := c.(syscall.Conn)
	if !ok {
		return nil
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return nil
	}
	fd := -1
	if cerr := rc.Control(func(s uintptr) {
		r, _, e := syscall.Syscall(syscall.SYS_FCNTL, s, syscall.F_DUPFD_CLOEXEC, 0)
		if e == 0 {
			fd = int(r)
		}
	}); cerr != nil || fd < 0 {
		if fd >= 0 {
			syscall.Close(fd)
		}
		return nil
	}
	if err := syscall.SetNonblock(fd, true); err != nil {
		syscall.Close(fd)
		return nil
	}
	c.Close()
	return &rawConn{fd: fd}
}

// SetDeadline sets the time by which each later Read and Write must
// complete (zero: none). It is no system call and no timer: the waits
// take their timeout from it.
func (c *rawConn) SetDeadline(t time.Time) error {
	c.deadline = t
	return nil
}

func (c *rawConn) Close() error {
	if c.fd < 0 {
		return nil
	}
	err := syscall.Close(c.fd)
	c.fd = -1
	if err != nil {
		return os.NewSyscallError("close", err)
	}
	return nil
}

// Read reads what is there, up to len(p), waiting (until the deadline)
// when nothing is. Zero bytes at the end of the stream is io.EOF.
func (c *rawConn) Read(p []byte) (int, error) {
	if len(p) == 0 {
		return 0, nil
	}
	if c.fd < 0 {
		return 0, os.ErrClosed
	}
	if c.replyDue {
		// The reply to a request just sent is hardly ever there
		// yet: wait for it first rather than fail a read.
		if err := c.wait(pollIn); err != nil {
			return 0, err
		}
	}
	for {
		n, _, e := syscall.RawSyscall(syscall.SYS_READ, uintptr(c.fd), uintptr(unsafe.Pointer(&p[0])), uintptr(len(p)))
		switch e {
		case 0:
			c.replyDue = false
			if n == 0 {
				return 0, io.EOF
			}
			return int(n), nil
		case syscall.EAGAIN:
			if err := c.wait(pollIn); err != nil {
				return 0, err
			}
		case syscall.EINTR:
			runtime.Gosched()
		default:
			return 0, os.NewSyscallError("read", e)
		}
	}
}

// Write writes all of p (MSG_NOSIGNAL: a closed peer is EPIPE, not
// SIGPIPE), waiting (until the deadline) while the socket buffer is
// full.
func (c *rawConn) Write(p []byte) (int, error) {
	if c.fd < 0 {
		return 0, os.ErrClosed
	}
	done := 0
	for done < len(p) {
		n, _, e := syscall.RawSyscall6(syscall.SYS_SENDTO, uintptr(c.fd), uintptr(unsafe.Pointer(&p[done])), uintptr(len(p)-done), syscall.MSG_NOSIGNAL, 0, 0)
		switch e {
		case 0:
			done += int(n)
		case syscall.EAGAIN:
			if err := c.wait(pollOut); err != nil {
				return done, err
			}
		case syscall.EINTR:
			runtime.Gosched()
		default:
			return done, os.NewSyscallError("write", e)
		}
	}
	c.replyDue = true
	return done, nil
}

// replySent tells the connection that the reply to the last request has
// had time to come: the next Read tries the socket before it waits.
func (c *rawConn) replySent() { c.replyDue = false }

const (
	pollIn  = 0x1 // POLLIN
	pollOut = 0x4 // POLLOUT
)

type pollFd struct {
	fd      int32
	events  int16
	revents int16
}

// wait waits until the socket is ready for events (or has an error or
// a hang-up, which the read or write that follows reports), or the
// deadline has passed (os.ErrDeadlineExceeded, a timeout net.Error).
func (c *rawConn) wait(events int16) error {
	for {
		pfd := pollFd{fd: int32(c.fd), events: events}
		var n uintptr
		var e syscall.Errno
		if c.deadline.IsZero() {
			n, _, e = syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, 0, 0, 0, 0)
		} else {
			d := time.Until(c.deadline)
			if d <= 0 {
				return os.ErrDeadlineExceeded
			}
			ts := syscall.NsecToTimespec(int64(d))
			n, _, e = syscall.RawSyscall6(syscall.SYS_PPOLL, uintptr(unsafe.Pointer(&pfd)), 1, uintptr(unsafe.Pointer(&ts)), 0, 0, 0)
		}
		switch {
		case e == syscall.EINTR:
			// The runtime wants this thread's P (preemption, a
			// collection, a signal for os/signal): let it run.
			runtime.Gosched()
		case e != 0:
			return os.NewSyscallError("ppoll", e)
		case n > 0:
			return nil
		}
		// A timeout: the loop checks the deadline.
	}
}
