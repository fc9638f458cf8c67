package discovery

import (
	"testing"
	"time"

	"dubbo.apache.org/dubbo-go/v3/remoting"
)

// TestHoldsReportsPendingAndHeld: the console's view of held-back removals
// follows the listener: pending during the grace, held when it was the
// last provider, gone once another provider registers.
func TestHoldsReportsPendingAndHeld(t *testing.T) {
	const p1, p2 = "127.0.0.7:20880", "127.0.0.7:20881"
	l := newProtectingListener(&recorder{}, time.Hour)
	find := func(addr string) string {
		for _, h := range Holds() {
			if h.Address == addr && h.Interface == "com.muke.dubbocourse.common.api.BookFacade" {
				return h.State
			}
		}
		return ""
	}
	l.Notify(event(t, remoting.EventTypeAdd, p1))
	l.Notify(event(t, remoting.EventTypeDel, p1))
	if s := find(p1); s != "pending" {
		t.Fatalf("during the grace: %q, want pending", s)
	}
	l.expire(event(t, remoting.EventTypeDel, p1).Key(), event(t, remoting.EventTypeDel, p1))
	if s := find(p1); s != "held" {
		t.Fatalf("last provider after the grace: %q, want held", s)
	}
	l.Notify(event(t, remoting.EventTypeAdd, p2))
	if s := find(p1); s != "" {
		t.Errorf("after another provider registered: %q, want no hold", s)
	}
}
