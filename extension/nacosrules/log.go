package nacosrules

import (
	"context"
	"fmt"
	"log/slog"
	"strings"

	"github.com/dubbogo/gost/log/logger"
)

// gostHandler sends the Nacos client's slog records to dubbo-go's logger
// (info and above: connection losses and recoveries, publishes; debug is
// dropped), so they land where the process's other dubbo-go logs go.
type gostHandler struct{ attrs []slog.Attr }

func (gostHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelInfo }

func (h gostHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString("[dubboroute] ")
	b.WriteString(r.Message)
	write := func(a slog.Attr) bool {
		fmt.Fprintf(&b, " %s=%v", a.Key, a.Value)
		return true
	}
	for _, a := range h.attrs {
		write(a)
	}
	r.Attrs(write)
	switch {
	case r.Level >= slog.LevelError:
		logger.Error(b.String())
	case r.Level >= slog.LevelWarn:
		logger.Warn(b.String())
	default:
		logger.Info(b.String())
	}
	return nil
}

func (h gostHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return gostHandler{attrs: append(append([]slog.Attr(nil), h.attrs...), as...)}
}

func (h gostHandler) WithGroup(string) slog.Handler { return h }
