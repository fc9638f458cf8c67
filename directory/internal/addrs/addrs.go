package addrs

import (
	"errors"
	"fmt"
	"net"
	"strconv"
	"strings"
)

// Normalize returns the host:port of every address in addrs (each may be a
// comma-separated list): blanks trimmed, a leading scheme of schemes
// dropped, anything from the first '/' or '?' on dropped, defaultPort added
// to an address without one (a bracketed IPv6 literal included). A port
// that is not a number from 1 to 65535 is an error, and so is a list
// without any address (naming server, e.g. "ZooKeeper").
func Normalize(addrs []string, server, defaultPort string, schemes ...string) ([]string, error) {
	var out []string
	for _, a := range addrs {
		for _, s := range strings.Split(a, ",") {
			s = strings.TrimSpace(s)
			for _, p := range schemes {
				s = strings.TrimPrefix(s, p)
			}
			if i := strings.IndexAny(s, "/?"); i >= 0 {
				s = s[:i]
			}
			if s == "" {
				continue
			}
			if _, port, err := net.SplitHostPort(s); err != nil {
				if strings.HasPrefix(s, "[") && strings.HasSuffix(s, "]") {
					s += ":" + defaultPort // bracketed IPv6 literal without a port
				} else {
					s = net.JoinHostPort(s, defaultPort)
				}
			} else if n, err := strconv.Atoi(port); err != nil || n <= 0 || n > 65535 {
				return nil, fmt.Errorf("address %q: bad port", s)
			}
			out = append(out, s)
		}
	}
	if len(out) == 0 {
		return nil, errors.New("no " + server + " address given")
	}
	return out, nil
}
