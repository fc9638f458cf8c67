package cli

import (
	"fmt"
	"strings"

	"github.com/dubboroute/dubboroute/cluster/outlier"
	"github.com/dubboroute/dubboroute/cluster/retry"
)

// resilienceParam checks one URL parameter that names dubboroute's outlier
// ejection or retry policy (dubboroute.outlier.*, dubboroute.retry.*,
// dubboroute.idempotent, also in a method's <m>.key / methods.<m>.key
// form): "" when it is not one of them or is known and readable, else
// what is wrong.
func resilienceParam(key, value string) string {
	base := key
	for _, p := range []string{outlier.ParamPrefix, "dubboroute.retry.", retry.ParamIdempotent} {
		if i := strings.Index(key, p); i >= 0 {
			base = key[i:]
			break
		}
	}
	switch {
	case strings.HasPrefix(base, outlier.ParamPrefix):
		if !contains(outlier.Params, base) {
			return fmt.Sprintf("%s: not an outlier parameter dubboroute reads (known: %s)", key, strings.Join(outlier.Params, ", "))
		}
		if _, _, err := outlier.FromParams(func(k string) string {
			if k == base {
				return value
			}
			return ""
		}); err != nil {
			return err.Error()
		}
	case strings.HasPrefix(base, "dubboroute.retry.") || base == retry.ParamIdempotent:
		if !contains(retry.Params, base) {
			return fmt.Sprintf("%s: not a retry parameter dubboroute reads (known: %s)", key, strings.Join(retry.Params, ", "))
		}
		if _, err := retry.ParseParam(base, value); err != nil {
			return err.Error()
		}
	}
	return ""
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}
