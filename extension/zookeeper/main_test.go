package zookeeper

import (
	"os"
	"testing"
)

// TestMain registers the package as package extension's init does in an
// application.
func TestMain(m *testing.M) {
	Register()
	os.Exit(m.Run())
}
