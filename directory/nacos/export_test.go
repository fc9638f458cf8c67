package nacos

// Watched is the number of configs the client's listener polls (tests).
func (c *Client) Watched() int {
	c.watch.mu.Lock()
	defer c.watch.mu.Unlock()
	return len(c.watch.entries)
}

// ParseChanged exposes parseChanged to tests.
var ParseChanged = func(body, ns string) ([][2]string, error) {
	ks, err := parseChanged(body, ns)
	var out [][2]string
	for _, k := range ks {
		out = append(out, [2]string{k.dataID, k.group})
	}
	return out, err
}

// NormalizeAddrs exposes normalizeAddrs to tests.
var NormalizeAddrs = normalizeAddrs
