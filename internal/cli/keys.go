package cli

import (
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/dubboroute/dubboroute/router"
)

// keyFromFileName infers a key from a rule file name: the base name, without
// a trailing .yaml or .yml, percent-decoded, so that a service key can be
// written com.foo.Bar%3A%3A.condition-router where ':' is not welcome in file
// names (Windows, Go module zips).
func keyFromFileName(path string) string {
	base := filepath.Base(path)
	for _, ext := range []string{".yaml", ".yml"} {
		base = strings.TrimSuffix(base, ext)
	}
	if strings.Contains(base, "%") {
		if d, err := url.PathUnescape(base); err == nil {
			return d
		}
	}
	return base
}

// provider is one provider of a case, with the id results are reported by.
type provider struct {
	ID  string `json:"id"`
	URL string `json:"url"`
	u   *router.URL
}

// readProviders reads a provider list file: a JSON array of {"id","url"}
// objects or of URL strings, or plain text with one URL per line (blank
// lines and lines starting with # are skipped). Providers without an id are
// named host:port.
func readProviders(path string) ([]provider, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("read providers: %w", err)
	}
	return parseProviders(path, data)
}

func parseProviders(name string, data []byte) ([]provider, error) {
	var ps []provider
	text := strings.TrimSpace(string(data))
	if strings.HasPrefix(text, "[") {
		var raw []json.RawMessage
		if err := json.Unmarshal([]byte(text), &raw); err != nil {
			return nil, fmt.Errorf("providers %s: invalid JSON: %w", name, err)
		}
		for i, r := range raw {
			var p provider
			var s string
			if err := json.Unmarshal(r, &s); err == nil {
				p.URL = s
			} else {
				dec := json.NewDecoder(strings.NewReader(string(r)))
				dec.DisallowUnknownFields()
				if err := dec.Decode(&p); err != nil {
					return nil, fmt.Errorf("providers %s: element %d: want a URL string or {\"id\",\"url\"}: %w", name, i, err)
				}
			}
			ps = append(ps, p)
		}
	} else {
		for n, line := range strings.Split(text, "\n") {
			line = strings.TrimSpace(line)
			if line == "" || strings.HasPrefix(line, "#") {
				continue
			}
			ps = append(ps, provider{URL: line})
			_ = n
		}
	}
	if err := resolveProviders(ps); err != nil {
		return nil, fmt.Errorf("providers %s: %w", name, err)
	}
	return ps, nil
}

// resolveProviders parses every URL and names providers without an id.
func resolveProviders(ps []provider) error {
	seen := map[string]bool{}
	for i := range ps {
		u, err := router.ParseURL(ps[i].URL)
		if err != nil {
			return fmt.Errorf("provider %d: %w", i, err)
		}
		ps[i].u = u
		if ps[i].ID == "" {
			ps[i].ID = u.Address()
		}
		if seen[ps[i].ID] {
			return fmt.Errorf("provider %d: duplicate id %q", i, ps[i].ID)
		}
		seen[ps[i].ID] = true
	}
	return nil
}
