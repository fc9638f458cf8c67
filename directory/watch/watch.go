package watch

import (
	"context"
	"fmt"
)

// EventType says what happened to a watched key.
type EventType int

// The changes a watch reports.
const (
	// Added: the key exists and did not before (or the watch started and
	// found it).
	Added EventType = iota + 1
	// Updated: the key's content was rewritten.
	Updated
	// Deleted: the key is gone.
	Deleted
)

// String is "add", "update" or "delete" (what the CLI's watch prints).
func (t EventType) String() string {
	switch t {
	case Added:
		return "add"
	case Updated:
		return "update"
	case Deleted:
		return "delete"
	}
	return fmt.Sprintf("EventType(%d)", int(t))
}

// Relay passes a watch's events on, converted by conv, until ch closes or
// ctx ends; the returned channel is closed then. The rule sources of
// extension/ and the CLI's stores turn their client's events into their own
// with it.
func Relay[E, T any](ctx context.Context, ch <-chan E, conv func(E) T) <-chan T {
	out := make(chan T)
	go func() {
		defer close(out)
		for {
			select {
			case ev, ok := <-ch:
				if !ok {
					return
				}
				select {
				case out <- conv(ev):
				case <-ctx.Done():
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	return out
}
