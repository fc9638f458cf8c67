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

// Config-center key suffixes (Java Dubbo, Dubbo Admin, and ours for gray).
const (
	conditionSuffix = ".condition-router"
	tagSuffix       = ".tag-router"
	graySuffix      = ".gray-router"
)

type ruleKind string

const (
	kindCondition ruleKind = "condition"
	kindTag       ruleKind = "tag"
	kindGray      ruleKind = "gray"
)

// keyInfo is what a config-center key says about its rule.
type keyInfo struct {
	Key    string
	Kind   ruleKind
	Prefix string // application, or interface:version:group
	// Service is true for a condition key with a colon (interface:version:group).
	Service bool
}

// parseKey classifies a config-center key by its suffix.
func parseKey(key string) (keyInfo, error) {
	k := keyInfo{Key: key}
	switch {
	case strings.HasSuffix(key, conditionSuffix):
		k.Kind, k.Prefix = kindCondition, strings.TrimSuffix(key, conditionSuffix)
		k.Service = strings.Contains(k.Prefix, ":")
	case strings.HasSuffix(key, tagSuffix):
		k.Kind, k.Prefix = kindTag, strings.TrimSuffix(key, tagSuffix)
	case strings.HasSuffix(key, graySuffix):
		k.Kind, k.Prefix = kindGray, strings.TrimSuffix(key, graySuffix)
	default:
		return k, fmt.Errorf("key %q: not a rule key (want <app>%s, <interface>:<version>:<group>%s, <app>%s or <app>%s)",
			key, conditionSuffix, conditionSuffix, tagSuffix, graySuffix)
	}
	if k.Prefix == "" {
		return k, fmt.Errorf("key %q: nothing before the %s suffix", key, strings.TrimPrefix(key, k.Prefix))
	}
	if strings.ContainsAny(key, "/\x00") || strings.TrimSpace(key) != key {
		return k, fmt.Errorf("key %q: a config-center key cannot contain '/', NUL or surrounding blanks", key)
	}
	return k, nil
}

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
