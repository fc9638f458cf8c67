package zkconn

import (
	"bufio"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
)

// sameUser reports whether the peer of c, a loopback TCP connection
// accepted by this process, is a socket of this process's user: it looks
// the peer socket up in /proc/net/tcp (local port = c's remote port,
// remote port = c's local port) and compares its uid.
func sameUser(c net.Conn) (bool, string) {
	la, ok1 := c.LocalAddr().(*net.TCPAddr)
	ra, ok2 := c.RemoteAddr().(*net.TCPAddr)
	if !ok1 || !ok2 {
		return false, "not a TCP connection"
	}
	f, err := os.Open("/proc/net/tcp")
	if err != nil {
		return false, err.Error()
	}
	defer f.Close()
	want := fmt.Sprintf(":%04X", ra.Port)
	peer := fmt.Sprintf(":%04X", la.Port)
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) < 8 || !strings.HasSuffix(fields[1], want) || !strings.HasSuffix(fields[2], peer) {
			continue
		}
		uid, err := strconv.Atoi(fields[7])
		if err != nil {
			return false, "unreadable /proc/net/tcp line"
		}
		if uid != os.Getuid() {
			return false, fmt.Sprintf("socket of uid %d", uid)
		}
		return true, ""
	}
	return false, "peer socket not found in /proc/net/tcp"
}
