//go:build !linux

package pmcd

import (
	"net"
	"time"
)

// rawConn is the Linux client's own socket I/O (rawconn_linux.go);
// elsewhere the Client keeps Go's net.Conn.
type rawConn struct{}

func newRawConn(net.Conn) *rawConn { return nil }

func (*rawConn) Read([]byte) (int, error)    { panic("unreachable") }
func (*rawConn) Write([]byte) (int, error)   { panic("unreachable") }
func (*rawConn) Close() error                { return nil }
func (*rawConn) SetDeadline(time.Time) error { return nil }
func (*rawConn) replySent()                  {}
