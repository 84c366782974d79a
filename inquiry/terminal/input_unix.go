//go:build aix || darwin || dragonfly || freebsd || linux || netbsd || openbsd || solaris || zos

package terminal

import (
	"context"
	"errors"
	"io"
	"os"
	"syscall"

	"golang.org/x/sys/unix"
)

// newSource reads an *os.File with reads a context can stop before they
// take anything; any other reader through a goroutine.
func newSource(r io.Reader) source {
	if f, ok := r.(*os.File); ok {
		if rc, err := f.SyscallConn(); err == nil {
			return &fileSource{f: f, rc: rc, buf: make([]byte, 32<<10)}
		}
	}
	return newReaderSource(r)
}

// fileSource reads a file only once poll(2) says it has something, and
// stops waiting when its context ends, so a read that ends early has
// taken nothing. A terminal in line mode gives one line a read.
type fileSource struct {
	f   *os.File
	rc  syscall.RawConn
	buf []byte
}

func (s *fileSource) read(ctx context.Context) ([]byte, error) {
	if err := context.Cause(ctx); err != nil {
		return nil, ended{err}
	}
	// A pipe of its own wakes poll when ctx ends: one a read, so that no
	// wake-up outlives its read.
	wakeR, wakeW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	woke := make(chan struct{})
	stop := context.AfterFunc(ctx, func() {
		_, _ = wakeW.Write([]byte{0})
		close(woke)
	})
	defer func() {
		if !stop() {
			<-woke // the wake-up is written before the pipe closes
		}
		wakeR.Close()
		wakeW.Close()
	}()
	wakeFd := int32(wakeR.Fd())

	var n int
	var rerr error
	cerr := s.rc.Control(func(fd uintptr) {
		for {
			fds := []unix.PollFd{{Fd: int32(fd), Events: unix.POLLIN}, {Fd: wakeFd, Events: unix.POLLIN}}
			if _, err := unix.Poll(fds, -1); err != nil {
				if errors.Is(err, unix.EINTR) {
					continue
				}
				rerr = err
				return
			}
			if fds[1].Revents != 0 {
				rerr = ended{context.Cause(ctx)}
				return
			}
			if fds[0].Revents&unix.POLLNVAL != 0 {
				rerr = unix.EBADF
				return
			}
			if fds[0].Revents == 0 {
				continue
			}
			var err error
			n, err = unix.Read(int(fd), s.buf)
			switch {
			case errors.Is(err, unix.EINTR), errors.Is(err, unix.EAGAIN):
				continue
			case err != nil:
				n, rerr = 0, err
			case n == 0:
				rerr = io.EOF
			}
			return
		}
	})
	if cerr != nil {
		rerr = cerr
	}
	var e ended
	if rerr != nil && rerr != io.EOF && !errors.As(rerr, &e) {
		rerr = &os.PathError{Op: "read", Path: s.f.Name(), Err: rerr}
	}
	return s.buf[:n], rerr
}

// forget does nothing: no read outlives its caller.
func (s *fileSource) forget() {}
