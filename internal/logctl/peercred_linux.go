package logctl

import (
	"fmt"
	"net"
	"os"
	"syscall"
)

// checkPeer allows a unix-socket client only when it runs as root or as
// this process's user, as the real pmlogger's check_local_creds does.
func checkPeer(c *net.UnixConn) error {
	raw, err := c.SyscallConn()
	if err != nil {
		return err
	}
	var cred *syscall.Ucred
	var cerr error
	if err := raw.Control(func(fd uintptr) {
		cred, cerr = syscall.GetsockoptUcred(int(fd), syscall.SOL_SOCKET, syscall.SO_PEERCRED)
	}); err != nil {
		return err
	}
	if cerr != nil {
		return fmt.Errorf("peer credentials: %w", cerr)
	}
	if cred.Uid == 0 || int(cred.Uid) == os.Getuid() || int(cred.Uid) == os.Geteuid() {
		return nil
	}
	return fmt.Errorf("refused a unix-socket client with uid %d", cred.Uid)
}
