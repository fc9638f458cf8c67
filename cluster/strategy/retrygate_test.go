package strategy

import (
	"errors"
	"testing"
)

// gcall is a tcall with a RetryGate that allows allow retries, then
// denies with errDenied.
type gcall struct {
	*tcall
	allow int
	asked []int
}

var errDenied = errors.New("retry not made (budget)")

func (c *gcall) RetryGate(n int, _ res) error {
	c.asked = append(c.asked, n)
	if len(c.asked) > c.allow {
		return errDenied
	}
	return nil
}

// Failover asks a RetryGate before every retry and stops at its first
// no, with its reason as the cause; without a gate it is Java's.
func TestFailoverRetryGate(t *testing.T) {
	for _, allow := range []int{0, 1, 2} {
		c := &gcall{tcall: fleet([]Kind{Thrown}, []Kind{Thrown}, []Kind{Thrown}, []Kind{Thrown}), allow: allow}
		r := Failover[*prov, res](c, NewSelector[*prov](), c.provs, 3, false)
		want := min(allow+1, 3)
		if len(c.log) != want {
			t.Fatalf("allow %d: %d attempts %v, want %d", allow, len(c.log), c.log, want)
		}
		var e *Error
		if !errors.As(r.err, &e) || e.Tried != want {
			t.Fatalf("allow %d: result %+v, want a failover Error with Tried %d", allow, r, want)
		}
		if allow < 2 && !errors.Is(r.err, errDenied) {
			t.Fatalf("allow %d: %v does not carry the denial", allow, r.err)
		}
		if allow == 2 && (errors.Is(r.err, errDenied) || len(c.asked) != 2) {
			t.Fatalf("allow 2: asked %v, err %v; want asked before retries 1 and 2 only", c.asked, r.err)
		}
	}
}
