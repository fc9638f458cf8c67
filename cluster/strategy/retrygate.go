package strategy

// RetryGate is implemented by a Call that carries a retry policy
// (dubboroute's, beyond Java: cluster/retry). Before each failover retry,
// Failover asks it whether the retry is made: nil to go on (it may have
// waited a backoff first), or an error saying why not, which becomes the
// call's error (with the last attempt's as its cause). A Call without it
// (the Java oracle's, or a reference without a policy) keeps Java's
// failover exactly.
type RetryGate[R any] interface {
	// RetryGate is asked before retry n (1 for the first retry) after the
	// failed result last.
	RetryGate(n int, last R) error
}

// gateRetry asks c's RetryGate before retry n of attempts (nil when there
// is no gate, or no retry left to ask about).
func gateRetry[I Invoker, R any](c Call[I, R], n, attempts int, last R) error {
	if n >= attempts {
		return nil
	}
	g, ok := any(c).(RetryGate[R])
	if !ok {
		return nil
	}
	return g.RetryGate(n, last)
}
