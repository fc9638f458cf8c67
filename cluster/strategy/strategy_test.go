package strategy

import (
	"errors"
	"sync"
	"testing"
	"time"
)

type prov struct {
	id    int
	avail bool
	steps []Kind
	calls int
}

func (p *prov) IsAvailable() bool { return p.avail }

type res struct {
	from int
	kind Kind
	err  error
}

type tcall struct {
	mu    sync.Mutex
	provs []*prov
	log   []int
}

func (c *tcall) List() ([]*prov, error) { return c.provs, nil }
func (c *tcall) Invoke(p *prov) res {
	c.mu.Lock()
	defer c.mu.Unlock()
	k := p.steps[min(p.calls, len(p.steps)-1)]
	p.calls++
	c.log = append(c.log, p.id)
	var err error
	if k != OK {
		err = errors.New("failure")
	}
	return res{from: p.id, kind: k, err: err}
}
func (c *tcall) Kind(r res) Kind      { return r.kind }
func (c *tcall) Err(r res) error      { return r.err }
func (c *tcall) Pick(l []*prov) *prov { return l[0] }
func (c *tcall) Fail(e *Error) res    { return res{from: -1, kind: e.Kind(), err: e} }
func (c *tcall) Empty() res           { return res{from: -1} }

func fleet(steps ...[]Kind) *tcall {
	c := &tcall{}
	for i, s := range steps {
		c.provs = append(c.provs, &prov{id: i, avail: true, steps: s})
	}
	return c
}

// Spec vectors F: attempts by retries and the attachment.
func TestAttempts(t *testing.T) {
	for _, v := range []struct {
		retries, att int
		attached     bool
		want         int
	}{
		{2, 0, false, 3}, {0, 0, false, 1}, {-1, 0, false, 1}, {5, 0, false, 6}, {2, 4, true, 5}, {2, -3, true, 1},
	} {
		if got := Attempts(v.retries, v.att, v.attached); got != v.want {
			t.Errorf("Attempts(%d, %d, %v) = %d, want %d", v.retries, v.att, v.attached, got, v.want)
		}
	}
}

func TestFailoverBusinessOnce(t *testing.T) {
	c := fleet([]Kind{Business}, []Kind{OK}, []Kind{OK})
	r := Failover[*prov, res](c, NewSelector[*prov](), c.provs, 3, false)
	if r.kind != Business || len(c.log) != 1 {
		t.Fatalf("business exception: %+v after %v, want it after one call", r, c.log)
	}
	c = fleet([]Kind{Thrown}, []Kind{Thrown}, []Kind{Thrown})
	r = Failover[*prov, res](c, NewSelector[*prov](), c.provs, 3, false)
	if r.kind != Thrown || len(c.log) != 3 || c.log[0] == c.log[1] || c.log[1] == c.log[2] {
		t.Fatalf("failed calls: %+v after %v, want a failure after three distinct providers", r, c.log)
	}
}

// Spec vectors B.
func TestBroadcastPercent(t *testing.T) {
	F, O := []Kind{Thrown}, []Kind{OK}
	for _, v := range []struct {
		steps   [][]Kind
		percent int
		calls   int
	}{
		{[][]Kind{F, F, O, O}, 50, 2}, {[][]Kind{F, O, F, O}, 0, 4}, {[][]Kind{F, F, F}, 30, 3}, {[][]Kind{F, F, F}, 100, 3},
	} {
		c := fleet(v.steps...)
		r := Broadcast[*prov, res](c, c.provs, v.percent)
		if len(c.log) != v.calls || r.kind != Thrown {
			t.Errorf("broadcast percent %d: %d calls (%v), want %d and a thrown failure", v.percent, len(c.log), r, v.calls)
		}
	}
}

// Spec vectors FK: forks=0 calls everyone; all failing is thrown.
func TestForking(t *testing.T) {
	c := fleet([]Kind{Thrown}, []Kind{Thrown}, []Kind{Thrown})
	var sel []*prov
	r := Forking[*prov, res](c, NewSelector[*prov](), c.provs, 0, time.Second, false, &sel)
	if len(sel) != 3 || r.kind != Thrown {
		t.Fatalf("forks=0: selected %d, result %+v", len(sel), r)
	}
	c = fleet([]Kind{Thrown}, []Kind{OK})
	r = Forking[*prov, res](c, NewSelector[*prov](), c.provs, 2, time.Second, false, nil)
	if r.kind != OK {
		t.Fatalf("a success among failures: %+v", r)
	}
}

// Spec vectors FB: one call, an empty result at once, up to retries
// background calls 5 s apart; a business exception is not retried.
func TestFailback(t *testing.T) {
	var delays []time.Duration
	var queue []func()
	fb := &Failback{Retries: 3, After: func(d time.Duration, f func()) { delays = append(delays, d); queue = append(queue, f) }}
	c := fleet([]Kind{Thrown}, []Kind{Thrown})
	r, scheduled := FailbackInvoke[*prov, res](fb, c, NewSelector[*prov](), c.provs, false)
	if r.kind != OK || r.from != -1 || !scheduled {
		t.Fatalf("failback first call: %+v scheduled %v", r, scheduled)
	}
	for len(queue) > 0 {
		f := queue[0]
		queue = queue[1:]
		f()
	}
	if len(c.log) != 4 || len(delays) != 3 {
		t.Fatalf("failback: %d calls (%v), %d delays, want 1 + 3 retries", len(c.log), c.log, len(delays))
	}
	for _, d := range delays {
		if d != FailbackDelay {
			t.Fatalf("delay %v, want %v", d, FailbackDelay)
		}
	}
	c = fleet([]Kind{Business})
	queue = nil
	r, scheduled = FailbackInvoke[*prov, res](fb, c, NewSelector[*prov](), c.provs, false)
	if r.kind != Business || scheduled {
		t.Fatalf("failback business exception: %+v scheduled %v", r, scheduled)
	}
}

// Sticky: the remembered provider is reused while available, and not with
// cluster.availablecheck=false.
func TestSticky(t *testing.T) {
	c := fleet([]Kind{OK}, []Kind{OK})
	s := NewSelector[*prov]()
	i := 0
	pick := func(l []*prov) *prov { i++; return l[i%len(l)] }
	a := s.Select(pick, c.provs, nil, true)
	b := s.Select(pick, c.provs, nil, true)
	if a != b {
		t.Fatalf("sticky: %d then %d", a.id, b.id)
	}
	s.AvailableCheck = false
	if x := s.Select(pick, c.provs, nil, true); x == a && s.Select(pick, c.provs, nil, true) == a {
		t.Fatalf("sticky without availablecheck kept %d", a.id)
	}
}
