package retry

import (
	"errors"
	"testing"
	"time"
)

// failover runs one call as failover does with p: up to attempts
// attempts; outcome gives each attempt's failure category (None: the
// attempt succeeded). It returns the attempts made and the denial that
// stopped it ("" when it succeeded or ran out of attempts).
func failover(p *Policy, attempts int, retried bool, outcome func(n int) Category) (int, Denial) {
	for n := 0; n < attempts; n++ {
		c := outcome(n)
		if c == None {
			p.Done(true)
			return n + 1, Allowed
		}
		p.Failed(c)
		if n+1 == attempts {
			return n + 1, Allowed
		}
		if _, d := p.Gate(Attempt{Category: c, Retried: retried, N: n + 1, Remaining: -1}, nil); d != Allowed {
			return n + 1, d
		}
	}
	return attempts, Allowed
}

func onPolicy(t *testing.T, budget string) *Policy {
	t.Helper()
	b, err := ParseBudget(budget)
	if err != nil {
		t.Fatal(err)
	}
	return &Policy{On: AllOn, ChainStop: true, Budget: b}
}

// TestRetryBudget covers the spec's vectors R1–R5 over the pure policy.
func TestRetryBudget(t *testing.T) {
	t.Run("R1_business_not_retried", func(t *testing.T) {
		// A business exception is not a failure: Category None, one
		// attempt, and it feeds the budget as a success.
		p := onPolicy(t, "")
		n, d := failover(p, 3, false, func(int) Category { return None })
		if n != 1 || d != Allowed {
			t.Fatalf("%d attempts (%s), want 1", n, d)
		}
		if tok, _ := p.Budget.Tokens(); tok != 10 {
			t.Fatalf("tokens %v, want 10 (full, clamped)", tok)
		}
	})
	t.Run("R2_outage", func(t *testing.T) {
		p := onPolicy(t, "10,0.1")
		var per []int
		total := 0
		const calls = 100
		for i := 0; i < calls; i++ {
			n, _ := failover(p, 3, false, func(int) Category { return Connect })
			per = append(per, n)
			total += n
		}
		t.Logf("R2: outage, budget 10,0.1, retries 2: %d calls made %d attempts (%.2f per call; Java failover: 3 per call = %d); first calls %v", calls, total, float64(total)/calls, 3*calls, per[:5])
		if per[0] != 3 || per[1] != 2 || per[2] != 1 || total != calls+3 {
			t.Fatalf("attempts per call %v..., total %d; want 3, 2, then 1 each: N+3 = %d", per[:4], total, calls+3)
		}
		if tok, _ := p.Budget.Tokens(); tok != 0 {
			t.Fatalf("tokens %v after the outage, want 0", tok)
		}
		// Recovery: from 0 tokens, 51 successes before retries resume.
		k := 0
		for !p.Budget.Allow() {
			p.Done(true)
			k++
		}
		if k != 51 {
			t.Fatalf("retries resumed after %d successes, want 51", k)
		}
	})
	t.Run("R4_non_idempotent", func(t *testing.T) {
		p := onPolicy(t, "")
		n, d := failover(p, 3, false, func(int) Category { return Timeout })
		if n != 1 || d != NonIdempotent {
			t.Fatalf("book() timing out: %d attempts (%s), want 1 (non-idempotent)", n, d)
		}
		p.Idempotent = true
		if n, d := failover(p, 3, false, func(int) Category { return Timeout }); n != 3 || d != Allowed {
			t.Fatalf("idempotent: %d attempts (%s), want 3", n, d)
		}
		p.Idempotent = false
		if n, _ := failover(p, 3, false, func(i int) Category {
			if i == 0 {
				return Connect
			}
			return None
		}); n != 2 {
			t.Fatalf("session closed on book(): %d attempts, want 2 (retried elsewhere)", n)
		}
		p.On = 1 << Connect
		p.Idempotent = true
		if _, d := failover(p, 3, false, func(int) Category { return Server }); d != NotRetryable {
			t.Fatalf("retry.on=connect, server error: %s, want not-retryable", d)
		}
	})
	t.Run("R5_chain_stop", func(t *testing.T) {
		// A→B→C, each hop retries 2, C always times out, all idempotent.
		for _, stop := range []bool{false, true} {
			c := 0
			hopC := func() Category { c++; return Timeout }
			pa := &Policy{On: AllOn, Idempotent: true, ChainStop: stop}
			pb := &Policy{On: AllOn, Idempotent: true, ChainStop: stop}
			failover(pa, 3, false, func(n int) Category {
				// B serves A's attempt n; it is a retry when n > 0.
				failover(pb, 3, n > 0, func(int) Category { return hopC() })
				return Timeout
			})
			want := map[bool]int{false: 9, true: 5}[stop]
			t.Logf("R5: chain stop %v: C attempts %d", stop, c)
			if c != want {
				t.Fatalf("chain stop %v: %d attempts on C, want %d", stop, c, want)
			}
		}
	})
	t.Run("deadline_and_backoff", func(t *testing.T) {
		p := &Policy{On: AllOn, BackoffBase: 100 * time.Millisecond}
		top := func(n int64) int64 { return n - 1 }
		if w, d := p.Gate(Attempt{Category: Connect, N: 1, Remaining: time.Second, PerTry: 500 * time.Millisecond}, top); d != Allowed || w != 100*time.Millisecond-1 {
			t.Fatalf("retry 1: wait %v (%s), want just under 100ms", w, d)
		}
		if w, _ := p.Gate(Attempt{Category: Connect, N: 3, Remaining: -1}, top); w != 700*time.Millisecond-1 {
			t.Fatalf("retry 3: wait %v, want just under 700ms ((2³−1)×100ms)", w)
		}
		if w, _ := p.Gate(Attempt{Category: Connect, N: 8, Remaining: -1}, top); w != time.Second-1 {
			t.Fatalf("retry 8: wait %v, want the cap 1s (10× base)", w)
		}
		if _, d := p.Gate(Attempt{Category: Connect, N: 1, Remaining: 550 * time.Millisecond, PerTry: 500 * time.Millisecond}, top); d != Deadline {
			t.Fatalf("550ms left for 100ms backoff + 500ms attempt: %s, want deadline", d)
		}
	})
	t.Run("parse", func(t *testing.T) {
		if _, err := ParseBudget("2000,0.1"); err == nil {
			t.Fatal("maxTokens 2000 accepted")
		}
		if b, err := ParseBudget("off"); err != nil || b != nil {
			t.Fatal("off is not nil")
		}
		if on, err := ParseOn("connect, timeout"); err != nil || on != 1<<Connect|1<<Timeout {
			t.Fatalf("ParseOn = %b %v", on, err)
		}
		if _, err := ParseOn("connect,5xx"); err == nil {
			t.Fatal("unknown category accepted")
		}
		e := &Error{Reason: Budget, Cause: errors.New("session Already Closed")}
		if e.Error() != "retry not made (budget): session Already Closed" || !errors.Is(e, e.Cause) {
			t.Fatalf("error %q", e.Error())
		}
	})
}

func TestGateAllocs(t *testing.T) {
	p := onPolicy(t, "")
	p.Idempotent = true
	if n := testing.AllocsPerRun(1000, func() {
		p.Failed(Timeout)
		p.Gate(Attempt{Category: Timeout, N: 1, Remaining: -1}, nil)
		p.Done(true)
	}); n != 0 {
		t.Fatalf("%v allocations, want 0", n)
	}
}

func BenchmarkGate(b *testing.B) {
	p := &Policy{On: AllOn, Idempotent: true, Budget: NewBucket(10, 0.1)}
	b.ReportAllocs()
	for b.Loop() {
		p.Failed(Connect)
		p.Gate(Attempt{Category: Connect, N: 1, Remaining: -1}, nil)
		p.Done(true)
	}
}
