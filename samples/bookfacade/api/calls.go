package api

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
)

// CallsDirEnv names a directory where providers count calls of the
// "count:<token>:..." form: one line per call in the file <token>, shared
// by every provider (Go and Java) of a test on this machine.
const CallsDirEnv = "DUBBOROUTE_CALLS_DIR"

var callsMu sync.Mutex

// CountCall appends a line to $DUBBOROUTE_CALLS_DIR/<token> (nothing
// without the variable or with a token that is not a plain file name).
func CountCall(token string) {
	dir := os.Getenv(CallsDirEnv)
	if dir == "" || token == "" || strings.ContainsAny(token, `/\`) || token == "." || token == ".." {
		return
	}
	callsMu.Lock()
	defer callsMu.Unlock()
	f, err := os.OpenFile(filepath.Join(dir, token), os.O_APPEND|os.O_CREATE|os.O_WRONLY, 0o600)
	if err != nil {
		return
	}
	_, _ = f.WriteString("go\n")
	_ = f.Close()
}

// CountedCalls is the number of calls counted for token in dir.
func CountedCalls(dir, token string) int {
	b, err := os.ReadFile(filepath.Join(dir, token))
	if err != nil {
		return 0
	}
	return strings.Count(string(b), "\n")
}
