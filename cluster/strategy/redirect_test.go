package strategy

import (
	"errors"
	"testing"
	"time"
)

// notSentErr marks a scripted failure whose request was never sent.
var notSentErr = errors.New("session Already Closed")

// rcall is a tcall whose Thrown attempts with notSentErr are not sent
// (the dubbo-go glue's shape), and whose providers listed in down fail
// that way whatever their script says.
type rcall struct {
	*tcall
	down map[int]bool
}

func (c *rcall) Invoke(p *prov) res {
	if c.down[p.id] {
		c.mu.Lock()
		defer c.mu.Unlock()
		p.calls++
		c.log = append(c.log, p.id)
		return res{from: p.id, kind: Thrown, err: notSentErr}
	}
	return c.tcall.Invoke(p)
}

func (c *rcall) NotSent(r res) bool { return r.kind == Thrown && errors.Is(r.err, notSentErr) }

func redirectFleet(n int, down ...int) *rcall {
	steps := make([][]Kind, n)
	for i := range steps {
		steps[i] = []Kind{OK}
	}
	c := &rcall{tcall: fleet(steps...), down: map[int]bool{}}
	for _, d := range down {
		c.down[d] = true
	}
	return c
}

// With one attempt (retries 0), every single-pick strategy sends a call
// that could not be sent to another routed provider: it succeeds on the
// first provider that takes it, each refusing provider tried once.
func TestRedirectNotSent(t *testing.T) {
	run := map[string]func(c *rcall) res{
		"failover": func(c *rcall) res { return Failover[*prov, res](c, NewSelector[*prov](), c.provs, 1, false) },
		"failfast": func(c *rcall) res { return Failfast[*prov, res](c, NewSelector[*prov](), c.provs, false) },
		"failsafe": func(c *rcall) res { return Failsafe[*prov, res](c, NewSelector[*prov](), c.provs, false) },
		"failback": func(c *rcall) res {
			r, retry := FailbackInvoke[*prov, res](&Failback{After: func(_ time.Duration, _ func()) {}}, c, NewSelector[*prov](), c.provs, false)
			if retry {
				t.Errorf("failback scheduled a retry after a redirected success")
			}
			return r
		},
		"available": func(c *rcall) res { return Available[*prov, res](c, NewSelector[*prov](), c.provs) },
	}
	for name, f := range run {
		// tcall's balancer picks the first listed: providers 0 and 1
		// refuse, 2 serves.
		c := redirectFleet(3, 0, 1)
		r := f(c)
		if r.kind != OK || r.from != 2 {
			t.Errorf("%s: result %+v, want OK from provider 2", name, r)
		}
		if len(c.log) != 3 || c.log[0] != 0 || c.log[2] != 2 || c.log[1] != 1 {
			t.Errorf("%s: attempts %v, want [0 1 2] (each refusing provider once)", name, c.log)
		}
		// Every provider refuses: the last refusal is the outcome, after
		// one attempt on each.
		c = redirectFleet(3, 0, 1, 2)
		r = f(c)
		if len(c.log) != 3 {
			t.Errorf("%s, all refusing: attempts %v, want one on each of 3", name, c.log)
		}
		if name != "failsafe" && name != "failback" && (r.kind != Thrown || !errors.Is(r.err, notSentErr)) {
			t.Errorf("%s, all refusing: result %+v, want the refusal thrown", name, r)
		}
	}
}

// A failure that was sent is not redirected: Java's strategies decide
// (failfast fails after one attempt, failover counts it as an attempt).
func TestRedirectOnlyNotSent(t *testing.T) {
	c := &rcall{tcall: fleet([]Kind{Thrown}, []Kind{OK}), down: map[int]bool{}}
	r := Failfast[*prov, res](c, NewSelector[*prov](), c.provs, false)
	if r.kind != Thrown || len(c.log) != 1 {
		t.Fatalf("failfast after a sent failure: %+v after %v, want thrown after one attempt", r, c.log)
	}
	c = &rcall{tcall: fleet([]Kind{Thrown}, []Kind{Thrown}, []Kind{OK}), down: map[int]bool{}}
	r = Failover[*prov, res](c, NewSelector[*prov](), c.provs, 2, false)
	if r.kind != Thrown || len(c.log) != 2 {
		t.Fatalf("failover, 2 attempts, both sent and failed: %+v after %v, want thrown after 2", r, c.log)
	}
	var se *Error
	if !errors.As(r.err, &se) || se.Tried != 2 {
		t.Fatalf("failover error %v, want Tried 2", r.err)
	}
}

// Without a Redirector (Java's behaviour, the oracle's Call), a call that
// was not sent fails like any other.
func TestNoRedirectorKeepsJava(t *testing.T) {
	c := redirectFleet(3, 0)
	plain := &plainCall{c}
	r := Failfast[*prov, res](plain, NewSelector[*prov](), c.provs, false)
	if r.kind != Thrown || len(c.log) != 1 {
		t.Fatalf("failfast without a Redirector: %+v after %v, want thrown after one attempt", r, c.log)
	}
}

// plainCall hides rcall's NotSent.
type plainCall struct{ c *rcall }

func (p *plainCall) List() ([]*prov, error) { return p.c.List() }
func (p *plainCall) Invoke(x *prov) res     { return p.c.Invoke(x) }
func (p *plainCall) Kind(r res) Kind        { return p.c.Kind(r) }
func (p *plainCall) Err(r res) error        { return p.c.Err(r) }
func (p *plainCall) Pick(l []*prov) *prov   { return p.c.Pick(l) }
func (p *plainCall) Fail(e *Error) res      { return p.c.Fail(e) }
func (p *plainCall) Empty() res             { return p.c.Empty() }

// Selector.Avail replaces IsAvailable in the selection: a provider it
// reports down is reselected away from while another is available, and
// picked when it is the only one (Java's doSelect).
func TestSelectorAvail(t *testing.T) {
	c := fleet([]Kind{OK}, []Kind{OK}, []Kind{OK})
	s := NewSelector[*prov]()
	s.Avail = func(p *prov) bool { return p.id != 0 }
	var invalidated []int
	s.Invalidate = func(p *prov) { invalidated = append(invalidated, p.id) }
	if got := s.Select(c.Pick, c.provs, nil, false); got.id == 0 {
		t.Fatalf("picked provider 0, which Avail reports down")
	}
	if len(invalidated) == 0 || invalidated[0] != 0 {
		t.Fatalf("invalidated %v, want provider 0 first", invalidated)
	}
	if got := s.Select(c.Pick, c.provs[:1], nil, false); got.id != 0 {
		t.Fatalf("the only provider: picked %d, want 0", got.id)
	}
	s.AvailableCheck = false
	if got := s.Select(c.Pick, c.provs, nil, false); got.id != 0 {
		t.Fatalf("availablecheck off: picked %d, want the balancer's 0", got.id)
	}
	// Available (the strategy) asks the selector too.
	s.AvailableCheck = true
	r := Available[*prov, res](c, s, c.provs)
	if r.from != 1 {
		t.Fatalf("available strategy served by %d, want 1 (0 is down)", r.from)
	}
}
