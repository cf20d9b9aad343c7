package pmcd

import (
	"net"
	"os"
	"syscall"
	"testing"
)

// TestDialErrorText checks libpcp's texts for failures to connect.
func TestDialErrorText(t *testing.T) {
	for _, c := range []struct {
		err  error
		want string
	}{
		{&net.DNSError{Err: "no such host", Name: "x.invalid", IsNotFound: true}, "No route to host"},
		{&net.OpError{Op: "dial", Err: os.NewSyscallError("connect", syscall.ECONNREFUSED)}, "Connection refused"},
		{&ConnError{Op: "dial", Err: syscall.ECONNRESET}, "Connection reset by peer"},
		{os.ErrInvalid, "Operation not supported"},
	} {
		if got := DialErrorText(c.err); got != c.want {
			t.Errorf("DialErrorText(%v) = %q, want %q", c.err, got, c.want)
		}
	}
}
