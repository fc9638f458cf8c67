package zk

import (
	"fmt"
	"io"
	"net"
	"strings"
	"time"
)

// FourLetterWord sends one of ZooKeeper's four-letter commands (srvr, mntr,
// dump, cons, ...; all are whitelisted) and returns the answer.
func (s *Server) FourLetterWord(cmd string) (string, error) {
	c, err := net.DialTimeout("tcp", s.Addr(), 5*time.Second)
	if err != nil {
		return "", fmt.Errorf("zookeeper %s: %s: %w", s.Addr(), cmd, err)
	}
	defer c.Close()
	_ = c.SetDeadline(time.Now().Add(10 * time.Second))
	if _, err := c.Write([]byte(cmd)); err != nil {
		return "", fmt.Errorf("zookeeper %s: send %s: %w", s.Addr(), cmd, err)
	}
	b, err := io.ReadAll(c)
	if err != nil {
		return "", fmt.Errorf("zookeeper %s: read %s answer: %w", s.Addr(), cmd, err)
	}
	return string(b), nil
}

// SessionAlive reports whether the server still tracks session id, from the
// session tracker section of the dump command. Once it reports false, the
// session has expired on the server, and its client will be told so on its
// next connection.
func (s *Server) SessionAlive(id int64) (bool, error) {
	out, err := s.FourLetterWord("dump")
	if err != nil {
		return false, err
	}
	tracker, _, ok := strings.Cut(out, "ephemeral nodes dump:")
	if !ok || !strings.Contains(tracker, "Session Sets") {
		return false, fmt.Errorf("zookeeper %s: unexpected dump answer: %q", s.Addr(), out)
	}
	want := fmt.Sprintf("0x%x", uint64(id))
	for _, line := range strings.Split(tracker, "\n") {
		if strings.TrimSpace(line) == want {
			return true, nil
		}
	}
	return false, nil
}
