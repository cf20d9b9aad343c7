package pmcd

import (
	"errors"
	"net"
	"syscall"

	"github.com/pcpkit/pcpkit/archive"
	"github.com/pcpkit/pcpkit/pmapi"
)

// DialErrorText is libpcp's text (pmErrStr) for a failure of Dial, as the
// tools print it after "Cannot connect to PMCD on host": a host
// name that does not resolve is "No route to host" (libpcp's
// -EHOSTUNREACH), a connection that timed out PM_ERR_TIMEOUT, a refused
// or failed one the system error. A host specification the client does
// not support (a proxy, connection attributes) is "Operation not
// supported".
func DialErrorText(err error) string {
	var dns *net.DNSError
	if errors.As(err, &dns) {
		return pmapi.ErrStr(-int32(syscall.EHOSTUNREACH))
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return pmapi.ErrTimeout.Error()
	}
	var ce *ConnError
	var he *HandshakeError
	var errno syscall.Errno
	var code pmapi.Error
	if !errors.As(err, &ce) && !errors.As(err, &he) && !errors.As(err, &errno) && !errors.As(err, &code) {
		return archive.ErrText(syscall.ENOTSUP)
	}
	return archive.ErrText(err)
}
