package outlier

import (
	"math"
	"math/rand/v2"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/dubboroute/dubboroute/internal/enum"
)

// Result is what one attempt on a provider tells the detector.
type Result uint8

const (
	// Success is an answer (a business exception included): it resets the
	// consecutive counters.
	Success Result = iota
	// ConnectFailed is a local-origin failure that never reached the
	// provider's application: a closed or refused connection (Envoy's
	// LocalOriginConnectFailed, HTTP 503 when not split).
	ConnectFailed
	// Timeout is a local-origin timeout (Envoy's LocalOriginTimeout, 504
	// when not split).
	Timeout
	// ServerError is a failure the provider answered (a non-OK status;
	// Envoy's ExtOriginRequestFailed, 500 when not split, 503 when split).
	ServerError
	// Ignored is a result that says nothing about the provider (no
	// provider, a mock, the caller's cancellation).
	Ignored
)

var resultNames = [...]string{"success", "connect-failed", "timeout", "server-error", "ignored"}

// String names the result.
func (r Result) String() string { return enum.Name(resultNames[:], r, "result") }

// Reason is why a provider was ejected.
type Reason uint8

// Reasons, Envoy's ejection types.
const (
	ReasonNone Reason = iota
	ReasonConsecutive5xx
	ReasonConsecutiveGateway
	ReasonConsecutiveLocalOrigin
	ReasonSuccessRate
	ReasonFailurePercentage
)

var reasonNames = [...]string{"", "consecutive-5xx", "consecutive-gateway", "consecutive-local-origin", "success-rate", "failure-percentage"}

// String names the reason (metrics' type label).
func (r Reason) String() string { return enum.Name(reasonNames[:], r, "reason") }

// Host is one provider's state. Its counters are atomics (the call path);
// ejection bookkeeping is guarded by the Detector's mutex.
type Host struct {
	addr                  string
	c5xx, cgw, clocal     atomic.Uint32
	succ, fail            atomic.Uint64 // the current interval's bucket
	ejectedAt, until      atomic.Int64  // unix ns; ejectedAt 0: in service
	reason                atomic.Uint32
	ejections             atomic.Uint64
	backoff               uint32 // mu
	lastUneject           int64  // mu, unix ns
	lastSucc, lastFailure uint64 // mu: the previous interval's bucket
}

// Addr is the provider address the host stands for.
func (h *Host) Addr() string { return h.addr }

// Ejected reports whether the host is ejected now.
func (h *Host) Ejected() bool { return h.ejectedAt.Load() != 0 }

// Event is an ejection or an uneject, for logs and metrics.
type Event struct {
	Addr string
	// Ejected is true for an ejection, false for an uneject; Overflow marks
	// a detection the cap did not let eject.
	Ejected, Overflow bool
	Reason            Reason
	At, Until         time.Time
	Backoff           int
}

// Detector is one reference's outlier detection. Safe for concurrent use.
type Detector struct {
	cfg Config
	// Now is the clock (nil: time.Now); Rand draws the jitter in [0, n)
	// (nil: math/rand/v2). Set them before use.
	Now  func() time.Time
	Rand func(n int64) int64
	// OnEvent, if set, hears every ejection, uneject and overflow. It is
	// called with the detector's lock held: it must not call back.
	OnEvent func(Event)

	mu       sync.Mutex
	hosts    atomic.Pointer[map[string]*Host]
	ejected  atomic.Int32
	epoch    atomic.Uint64 // bumped by every change of who is ejected or who is there
	next     atomic.Int64  // the next sweep, unix ns
	overflow atomic.Uint64
	panics   atomic.Uint64
	total    atomic.Uint64
}

// New returns a detector with c (its zero fields filled with Envoy's
// defaults). A Config that enables nothing gives a detector that does
// nothing.
func New(c Config) *Detector {
	d := &Detector{cfg: c.withDefaults()}
	empty := map[string]*Host{}
	d.hosts.Store(&empty)
	return d
}

// Config is the detector's configuration, defaults filled.
func (d *Detector) Config() Config { return d.cfg }

// Enabled reports whether d detects anything (false for nil).
func (d *Detector) Enabled() bool { return d != nil && d.cfg.Enabled() }

func (d *Detector) now() int64 {
	if d.Now != nil {
		return d.Now().UnixNano()
	}
	return time.Now().UnixNano()
}

func (d *Detector) randn(n int64) int64 {
	if n <= 0 {
		return 0
	}
	if d.Rand != nil {
		return d.Rand(n)
	}
	return rand.Int64N(n)
}

// Sync sets the providers the reference has (after configurators): hosts
// already known keep their state, new ones start in service, and those
// not listed are dropped (an ejected one frees its slot).
func (d *Detector) Sync(addrs []string) {
	d.mu.Lock()
	defer d.mu.Unlock()
	old := *d.hosts.Load()
	m := make(map[string]*Host, len(addrs))
	for _, a := range addrs {
		if h, ok := old[a]; ok {
			m[a] = h
		} else if _, dup := m[a]; !dup {
			m[a] = &Host{addr: a}
		}
	}
	var ej int32
	for _, h := range m {
		if h.Ejected() {
			ej++
		}
	}
	d.hosts.Store(&m)
	d.ejected.Store(ej)
	d.epoch.Add(1)
	if d.next.Load() == 0 {
		d.next.Store(d.now() + int64(d.cfg.Interval))
	}
}

// Lookup is the state of addr (nil when it is not a provider of the
// reference). O(1), no allocation.
func (d *Detector) Lookup(addr string) *Host { return (*d.hosts.Load())[addr] }

// Ejected reports whether addr is ejected now.
func (d *Detector) Ejected(addr string) bool {
	h := d.Lookup(addr)
	return h != nil && h.Ejected()
}

// Epoch changes whenever who is ejected, or who is there, changes.
func (d *Detector) Epoch() uint64 { return d.epoch.Load() }

// ActiveEjections is the number of providers ejected now.
func (d *Detector) ActiveEjections() int { return int(d.ejected.Load()) }

// Overflows counts detections the cap did not let eject; Panics counts
// calls routed to every routed provider because too few were left;
// Ejections counts every ejection.
func (d *Detector) Overflows() uint64 { return d.overflow.Load() }

// Panics is the number of calls the panic floor let through to the routed
// providers as they were.
func (d *Detector) Panics() uint64 { return d.panics.Load() }

// Ejections is the number of ejections since the detector was made.
func (d *Detector) Ejections() uint64 { return d.total.Load() }

// Record counts one attempt's result on addr. O(1), no allocation; an
// ejection (rare) takes the lock.
func (d *Detector) Record(addr string, r Result) {
	if !d.Enabled() || r == Ignored {
		return
	}
	h := d.Lookup(addr)
	if h == nil {
		return
	}
	c := &d.cfg
	switch r {
	case Success:
		h.c5xx.Store(0)
		h.cgw.Store(0)
		h.clocal.Store(0)
		h.succ.Add(1)
		return
	case ConnectFailed, Timeout:
		if c.SplitExternalLocalOrigin {
			if n := h.clocal.Add(1); c.ConsecutiveLocalOrigin > 0 && n == uint32(c.ConsecutiveLocalOrigin) {
				d.eject(h, ReasonConsecutiveLocalOrigin, d.now())
			}
			return
		}
		h.fail.Add(1)
		d.consecutive(h, true)
	case ServerError:
		h.fail.Add(1)
		// Split, an external failure is Envoy's 503: a gateway error too.
		d.consecutive(h, c.SplitExternalLocalOrigin)
	}
}

func (d *Detector) consecutive(h *Host, gateway bool) {
	c := &d.cfg
	n5 := h.c5xx.Add(1)
	var ngw uint32
	if gateway {
		ngw = h.cgw.Add(1)
	} else {
		h.cgw.Store(0)
	}
	if c.Consecutive5xx > 0 && n5 == uint32(c.Consecutive5xx) {
		d.eject(h, ReasonConsecutive5xx, d.now())
	}
	if c.ConsecutiveGateway > 0 && gateway && ngw == uint32(c.ConsecutiveGateway) {
		d.eject(h, ReasonConsecutiveGateway, d.now())
	}
}

func (h *Host) resetCounter(r Reason) {
	switch r {
	case ReasonConsecutive5xx:
		h.c5xx.Store(0)
	case ReasonConsecutiveGateway:
		h.cgw.Store(0)
	case ReasonConsecutiveLocalOrigin:
		h.clocal.Store(0)
	}
}

// eject is Envoy's ejectHost with the cap after the ejection
// (100 × (ejected+1) / providers ≤ max percent).
func (d *Detector) eject(h *Host, r Reason, now int64) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.ejectLocked(h, r, now)
}

func (d *Detector) ejectLocked(h *Host, r Reason, now int64) {
	if h.Ejected() {
		return // Envoy returns early for a host already ejected
	}
	if (*d.hosts.Load())[h.addr] != h {
		return // dropped meanwhile
	}
	c := &d.cfg
	n := int64(len(*d.hosts.Load()))
	ej := int64(d.ejected.Load())
	if 100*(ej+1) > int64(c.MaxEjectionPercent)*n && !(c.AlwaysEjectOne && ej == 0) {
		d.overflow.Add(1)
		h.resetCounter(r)
		if d.OnEvent != nil {
			d.OnEvent(Event{Addr: h.addr, Overflow: true, Reason: r, At: time.Unix(0, now)})
		}
		return
	}
	base, maxT := int64(c.BaseEjectionTime), int64(c.MaxEjectionTime)
	if int64(h.backoff)*base < maxT+base {
		h.backoff++
	}
	jitter := d.randn(int64(c.MaxJitter) + 1)
	until := now + min(base*int64(h.backoff), maxT) + jitter
	h.until.Store(until)
	h.reason.Store(uint32(r))
	h.ejectedAt.Store(now)
	h.ejections.Add(1)
	h.resetCounter(r)
	d.ejected.Add(1)
	d.total.Add(1)
	d.epoch.Add(1)
	if d.OnEvent != nil {
		d.OnEvent(Event{Addr: h.addr, Ejected: true, Reason: r, At: time.Unix(0, now), Until: time.Unix(0, until), Backoff: int(h.backoff)})
	}
}

// Tick runs the interval sweep when one is due (every sweep missed since,
// up to 64). Filter calls it; a caller without traffic may call it on its
// own timer. O(1) when none is due.
func (d *Detector) Tick() {
	if !d.Enabled() {
		return
	}
	now := d.now()
	next := d.next.Load()
	if next == 0 || now < next {
		return
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	iv := int64(d.cfg.Interval)
	for i := 0; i < 64 && d.next.Load() <= now; i++ {
		at := d.next.Load()
		d.sweepLocked(at)
		d.next.Store(at + iv)
	}
	if d.next.Load() <= now {
		d.next.Store(now + iv)
	}
}

// Sweep runs one interval sweep at now, whether due or not (tests and a
// caller's own timer).
func (d *Detector) Sweep(now time.Time) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.sweepLocked(now.UnixNano())
	d.next.Store(now.UnixNano() + int64(d.cfg.Interval))
}

// sweepLocked is Envoy's onIntervalTimer: uneject due hosts and swap the
// buckets, run the statistical detectors, decay the backoff of hosts in
// service for at least an interval.
func (d *Detector) sweepLocked(now int64) {
	hosts := *d.hosts.Load()
	c := &d.cfg
	for _, h := range hosts {
		if at := h.ejectedAt.Load(); at != 0 {
			// until = at + min(base × backoff, max) + jitter (Envoy's
			// checkHostForUneject).
			if now >= h.until.Load() {
				h.ejectedAt.Store(0)
				h.until.Store(0)
				h.lastUneject = now
				h.c5xx.Store(0)
				h.cgw.Store(0)
				h.clocal.Store(0)
				d.ejected.Add(-1)
				d.epoch.Add(1)
				if d.OnEvent != nil {
					d.OnEvent(Event{Addr: h.addr, Reason: Reason(h.reason.Load()), At: time.Unix(0, now), Backoff: int(h.backoff)})
				}
			}
		}
		h.lastSucc, h.lastFailure = h.succ.Swap(0), h.fail.Swap(0)
	}
	if c.SuccessRate {
		d.successRateLocked(hosts, now)
	}
	if c.FailurePercentage > 0 {
		d.failurePercentageLocked(hosts, now)
	}
	for _, h := range hosts {
		if !h.Ejected() && h.lastUneject != 0 && now-h.lastUneject >= int64(c.Interval) && h.backoff > 0 {
			h.backoff--
		}
	}
}

// sorted returns hosts in address order, so that the cap applies in a
// stable order.
func sorted(hosts map[string]*Host) []*Host {
	out := make([]*Host, 0, len(hosts))
	for _, h := range hosts {
		out = append(out, h)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].addr < out[j].addr })
	return out
}

func (d *Detector) successRateLocked(hosts map[string]*Host, now int64) {
	c := &d.cfg
	var valid []*Host
	var rates []float64
	for _, h := range sorted(hosts) {
		total := h.lastSucc + h.lastFailure
		if h.Ejected() || total < uint64(c.SuccessRateRequestVolume) {
			continue
		}
		valid = append(valid, h)
		rates = append(rates, float64(h.lastSucc)*100/float64(total))
	}
	if len(valid) < c.SuccessRateMinHosts {
		return
	}
	var sum float64
	for _, r := range rates {
		sum += r
	}
	mean := sum / float64(len(rates))
	var v float64
	for _, r := range rates {
		v += (r - mean) * (r - mean)
	}
	stdev := math.Sqrt(v / float64(len(rates)))
	threshold := mean - stdev*float64(c.SuccessRateStdevFactor)/1000
	for i, h := range valid {
		if rates[i] < threshold {
			d.ejectLocked(h, ReasonSuccessRate, now)
		}
	}
}

func (d *Detector) failurePercentageLocked(hosts map[string]*Host, now int64) {
	c := &d.cfg
	var valid []*Host
	for _, h := range sorted(hosts) {
		if !h.Ejected() && h.lastSucc+h.lastFailure >= uint64(c.FailurePercentageRequestVolume) {
			valid = append(valid, h)
		}
	}
	if len(valid) < c.FailurePercentageMinHosts {
		return
	}
	for _, h := range valid {
		if 100*h.lastFailure >= uint64(c.FailurePercentage)*(h.lastSucc+h.lastFailure) {
			d.ejectLocked(h, ReasonFailurePercentage, now)
		}
	}
}

// HostState is one provider's state as explain and the console show it.
type HostState struct {
	Addr        string    `json:"address"`
	Ejected     bool      `json:"ejected"`
	Reason      string    `json:"reason,omitempty"`
	Since       time.Time `json:"since,omitzero"`
	Until       time.Time `json:"until,omitzero"`
	Backoff     int       `json:"backoff"`
	Consecutive int       `json:"consecutive"`
	Ejections   uint64    `json:"ejections"`
}

// State lists every provider's state in address order (off the call path).
func (d *Detector) State() []HostState {
	d.mu.Lock()
	defer d.mu.Unlock()
	var out []HostState
	for _, h := range sorted(*d.hosts.Load()) {
		s := HostState{Addr: h.addr, Backoff: int(h.backoff), Ejections: h.ejections.Load(),
			Consecutive: int(max(h.c5xx.Load(), h.cgw.Load(), h.clocal.Load()))}
		if at := h.ejectedAt.Load(); at != 0 {
			s.Ejected = true
			s.Reason = Reason(h.reason.Load()).String()
			s.Since = time.Unix(0, at).UTC()
			s.Until = time.Unix(0, h.until.Load()).UTC()
		}
		out = append(out, s)
	}
	return out
}
