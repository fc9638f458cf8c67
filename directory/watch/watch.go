package watch

import "fmt"

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
