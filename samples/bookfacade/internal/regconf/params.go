package regconf

import (
	"fmt"
	"strings"
)

// Params is a repeatable -param key=value flag (flag.Value): the
// consumer's reference parameters, the provider's extra URL parameters.
type Params map[string]string

// String implements flag.Value.
func (p Params) String() string { return fmt.Sprint(map[string]string(p)) }

// Set implements flag.Value: it adds one key=value.
func (p Params) Set(v string) error {
	k, val, ok := strings.Cut(v, "=")
	if !ok || k == "" {
		return fmt.Errorf("want key=value, got %q", v)
	}
	p[k] = val
	return nil
}
