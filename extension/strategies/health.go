package strategies

import (
	"context"
	"errors"
	"net"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	getty "github.com/apache/dubbo-getty"
	"github.com/dubbogo/gost/log/logger"

	"dubbo.apache.org/dubbo-go/v3/protocol/base"
	"dubbo.apache.org/dubbo-go/v3/protocol/result"

	"github.com/dubboroute/dubboroute/extension/internal/shared"
)

// Why this file exists: dubbo-go v3.3.2's dubbo invoker reports
// IsAvailable() == true for a provider whose connection is gone. Its getty
// client counts itself available while it holds a session list, and getty
// v1.4.10 runs the reconnect loop of a closed session before the session's
// OnClose (which would remove it from that list): while the provider
// refuses connections the loop never ends, the closed sessions stay listed,
// and every request written to one fails at once with "session Already
// Closed". Java's invoker.isAvailable() follows the channel's connected
// state, so Java's cluster.availablecheck steers away from such a provider;
// dubbo-go's cannot. The health table below is what the selection
// consults in addition: an address is down from the first call that could
// not be sent to it until a TCP connect to it succeeds again.

// Probe bounds.
const (
	// probeBackoffMin is the pause before the first probe of an address
	// that went down, and the first pause after a failed probe.
	probeBackoffMin = 100 * time.Millisecond
	// probeBackoffMax caps the pause between failed probes.
	probeBackoffMax = 2 * time.Second
	// probeTimeout bounds one TCP connect.
	probeTimeout = time.Second
)

// health is the connection state of provider addresses as calls found it.
// The zero value is ready; safe for concurrent use.
type health struct {
	// down counts the addresses that are down: the hot path reads only
	// this while every connection is up.
	down atomic.Int32

	mu    sync.Mutex
	addrs map[string]*addrHealth
	// closing are provider invokers that announced their graceful
	// shutdown (the "closing" result attachment dubbo-go's provider adds
	// once its shutdown began), until when. Per invoker, not per address:
	// the provider restarted on the same port registers a new URL, a new
	// invoker.
	closing map[base.Invoker]time.Time

	// now and dial are injected by tests (nil: time.Now, a TCP connect).
	now  func() time.Time
	dial func(ctx context.Context, addr string) error
}

// addrHealth is one address that is down.
type addrHealth struct {
	since   time.Time
	next    time.Time // no probe before
	pause   time.Duration
	probing bool
	probes  int
}

// connHealth is the process's table: connections are per address (dubbo-go
// shares one client per host:port among every service and reference), and
// the cluster invokers that read and write it are made through
// dubbo-go's process-wide extension registry, which passes no context.
var connHealth = &health{}

func (h *health) clock() time.Time {
	if h.now != nil {
		return h.now()
	}
	return time.Now()
}

func (h *health) connect(ctx context.Context, addr string) error {
	if h.dial != nil {
		return h.dial(ctx, addr)
	}
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	return c.Close()
}

// addrOf is the address a provider invoker connects to ("" when unknown).
func addrOf(ivk base.Invoker) string {
	if ivk == nil {
		return ""
	}
	u := ivk.GetURL()
	if u == nil {
		return ""
	}
	return u.Location
}

// observe records what one call to ivk says about its availability: a
// call that could not be sent marks its address down, a result announcing
// the provider's shutdown marks the invoker closing.
func (h *health) observe(ivk base.Invoker, r result.Result, notSent bool) {
	if notSent {
		if strings.Contains(r.Error().Error(), providerClosingText) {
			h.markClosing(ivk)
			return
		}
		h.markDown(ivk, r.Error())
		return
	}
	if v, ok := r.Attachment(closingKey, nil).(string); ok && v == "true" {
		h.markClosing(ivk)
	}
}

// providerClosingText is the error of dubbo-go's graceful-shutdown filter
// refusing a provider that announced it is closing (an unexported
// errors.New: matched by text).
const providerClosingText = "provider is closing"

// markDown records that a call to ivk could not be sent (cause: why).
func (h *health) markDown(ivk base.Invoker, cause error) {
	addr := addrOf(ivk)
	if addr == "" {
		return
	}
	now := h.clock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.addrs == nil {
		h.addrs = map[string]*addrHealth{}
	}
	if a, ok := h.addrs[addr]; ok {
		if !a.probing && a.next.Before(now.Add(probeBackoffMin)) {
			a.next = now.Add(probeBackoffMin)
		}
		return
	}
	h.addrs[addr] = &addrHealth{since: now, next: now.Add(probeBackoffMin), pause: probeBackoffMin}
	h.down.Add(1)
	met.connDown.Inc()
	logger.Warnf("[dubboroute] provider %s: connection down (%v); not picked while another routed provider is available", addr, cause)
}

// ClosingTTL is how long a provider that announced its shutdown stays
// unavailable (dubbo-go's closing-invoker-expire-time default): its
// registration goes long before.
const ClosingTTL = 30 * time.Second

// closingKey is the result attachment with which a dubbo-go provider
// announces that its graceful shutdown began (constant.GracefulShutdownClosingKey).
const closingKey = "closing"

// markClosing records that ivk announced its graceful shutdown: it is not
// picked while another routed provider is available, until ClosingTTL
// passes or the invoker goes away.
func (h *health) markClosing(ivk base.Invoker) {
	now := h.clock()
	h.mu.Lock()
	defer h.mu.Unlock()
	if h.closing == nil {
		h.closing = map[base.Invoker]time.Time{}
	}
	for k, until := range h.closing {
		if !now.Before(until) {
			delete(h.closing, k)
			h.down.Add(-1)
		}
	}
	if _, ok := h.closing[ivk]; ok {
		return
	}
	h.closing[ivk] = now.Add(ClosingTTL)
	h.down.Add(1)
	met.providersClosing.Inc()
	logger.Infof("[dubboroute] provider %s: announced its shutdown; not picked while another routed provider is available", addrOf(ivk))
}

// isDown reports whether ivk announced its shutdown or its address is
// down. When the address's next probe is due, it starts one in the
// background (one at a time per address): a probe that connects brings the
// address back.
func (h *health) isDown(ivk base.Invoker) bool {
	if h.down.Load() == 0 {
		return false
	}
	addr := addrOf(ivk)
	h.mu.Lock()
	if until, ok := h.closing[ivk]; ok {
		if h.clock().Before(until) {
			h.mu.Unlock()
			return true
		}
		delete(h.closing, ivk)
		h.down.Add(-1)
	}
	a, ok := h.addrs[addr]
	if !ok {
		h.mu.Unlock()
		return false
	}
	if !a.probing && !h.clock().Before(a.next) {
		a.probing = true
		a.probes++
		go h.probe(addr, a)
	}
	h.mu.Unlock()
	return true
}

func (h *health) probe(addr string, a *addrHealth) {
	ctx, cancel := context.WithTimeout(context.Background(), probeTimeout)
	err := h.connect(ctx, addr)
	cancel()
	h.mu.Lock()
	defer h.mu.Unlock()
	a.probing = false
	if err == nil {
		if h.addrs[addr] == a {
			delete(h.addrs, addr)
			h.down.Add(-1)
			met.connUp.Inc()
			logger.Infof("[dubboroute] provider %s: connection up again after %v (%d probe(s))", addr, h.clock().Sub(a.since).Round(time.Millisecond), a.probes)
		}
		return
	}
	a.pause = min(a.pause*2, probeBackoffMax)
	a.next = h.clock().Add(a.pause)
}

func (h *health) snapshot() map[string]time.Time {
	h.mu.Lock()
	defer h.mu.Unlock()
	out := make(map[string]time.Time, len(h.addrs))
	for k, a := range h.addrs {
		out[k] = a.since
	}
	return out
}

// available is the selection's availability of a provider invoker: Java's
// isAvailable (dubbo-go's IsAvailable) and, beyond it, a connection that
// calls found down or a registration that is gone while the delete grace
// keeps the invoker (shared.Leaving). A down address is answered first, so dubbo-go's
// IsAvailable (which may dial, blocking for its connect timeout, after its
// client dropped every session) is not asked for it.
func (h *health) available(ivk base.Invoker) bool {
	if h.isDown(ivk) || leaving(ivk) {
		return false
	}
	return ivk.IsAvailable()
}

// NotSent reports whether err is a call that failed before its request
// was written to the provider, so no provider ran it:
//
//   - getty (dubbo protocol): the session was closed ("session Already
//     Closed"), the client has no session ("session not exist") or was
//     closed ("client have been closed"), or connecting failed ("failed to
//     create client connection");
//   - dubbo-go: the invoker's client was closed or the invoker destroyed
//     (base.ErrClientClosed, base.ErrDestroyedInvoker), or its graceful
//     shutdown filter refused a provider that announced it is closing
//     ("provider is closing");
//   - any protocol: a refused connect (ECONNREFUSED), a failed dial, or a
//     failed write (*net.OpError "dial" or "write", e.g. "connection reset
//     by peer" from a provider that died: the request frame never reached
//     it whole), which never arrive from a provider.
//
// The dubbo-go errors without an exported value are matched by their
// text; the caller asks only about failures classified Thrown (a
// provider's exception is Business or ResultRPC).
func NotSent(err error) bool {
	if err == nil {
		return false
	}
	if errors.Is(err, getty.ErrSessionClosed) || errors.Is(err, base.ErrClientClosed) ||
		errors.Is(err, base.ErrDestroyedInvoker) || errors.Is(err, syscall.ECONNREFUSED) {
		return true
	}
	var op *net.OpError
	if errors.As(err, &op) && (op.Op == "dial" || op.Op == "write") {
		// A failed write never completed the request frame: the provider
		// cannot have decoded, let alone run, the call.
		return true
	}
	msg := err.Error()
	for _, s := range [...]string{ // dubbo-go's unexported not-sent errors, by their text
		"session not exist",
		"client have been closed",
		"failed to create client connection",
		providerClosingText,
	} {
		if strings.Contains(msg, s) {
			return true
		}
	}
	return false
}

// leaving reports whether ivk's registration is gone while the delete
// grace keeps its invoker: one atomic load while no provider is leaving.
func leaving(ivk base.Invoker) bool {
	if !shared.Leaving.Any() {
		return false
	}
	u := ivk.GetURL()
	return u != nil && shared.Leaving.Has(u.Location, u)
}
