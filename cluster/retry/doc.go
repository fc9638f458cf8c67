// Package retry is dubboroute's retry policy for failover, beyond Java
// Dubbo (off by default; with it off Java's failover is unchanged): which
// failures are retried (connect failures always; timeouts and server
// errors only for methods marked idempotent), a retry budget (gRPC's retry
// throttling token bucket, A6), a fully jittered exponential backoff
// (Envoy's), the caller's deadline (no retry that cannot finish before it)
// and chain stop (a request that is itself a retry is not retried again by
// the hop that serves it: Kitex's RetryReq, carried in the attachment
// ChainKey).
//
// It is pure: time, sleep and randomness are injected. The gates run in the
// order Gate documents, and a gate that says no names itself (Denial), so
// that the caller's error and the metrics say why a retry was not made.
package retry
