package watch

import "testing"

func TestEventTypeString(t *testing.T) {
	for typ, want := range map[EventType]string{Added: "add", Updated: "update", Deleted: "delete", 0: "EventType(0)", 7: "EventType(7)"} {
		if got := typ.String(); got != want {
			t.Errorf("EventType(%d).String() = %q, want %q", int(typ), got, want)
		}
	}
}
