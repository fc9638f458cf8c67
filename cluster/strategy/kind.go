package strategy

import (
	"errors"
	"fmt"

	"github.com/dubboroute/dubboroute/internal/enum"
)

// Kind classifies the outcome of one call as Java's cluster invokers see
// it (spec §1.5).
type Kind uint8

const (
	// OK is a Result without exception.
	OK Kind = iota
	// Business is a Result that carries a provider's business exception
	// (Java: Result.hasException(), not an RpcException). Strategies return
	// it; failover never retries it, failsafe never swallows it, mock never
	// mocks it.
	Business
	// ResultRPC is a Result that carries a non-business RpcException (Java:
	// a triple status error, or an RpcException a provider sent). Returned
	// like Business (not retried), but fail-mock mocks it.
	ResultRPC
	// Thrown is a failed call (Java: a thrown non-business RpcException:
	// network, timeout, serialisation, no provider). Failover retries it,
	// failsafe swallows it, fail-mock mocks it.
	Thrown
	// ThrownBiz is a thrown business RpcException (code 3: mock=throw
	// <class>). Rethrown unchanged, never retried, never mocked.
	ThrownBiz
	// ThrownOther is a thrown exception that is not an RpcException (Java's
	// zone-aware IllegalStateException): failover wraps it, mock lets it
	// through.
	ThrownOther
)

var kindNames = [...]string{"ok", "business", "result-rpc", "thrown", "thrown-biz", "thrown-other"}

// String names the kind (the oracle's spelling).
func (k Kind) String() string { return enum.Name(kindNames[:], k, "kind") }

// IsThrown reports whether the outcome is a thrown exception (any of
// Thrown, ThrownBiz, ThrownOther).
func (k Kind) IsThrown() bool { return k >= Thrown }

// HasException reports whether the outcome is anything but OK (Java's
// Result.hasException() or a throw).
func (k Kind) HasException() bool { return k != OK }

// Java's RpcException codes (org.apache.dubbo.rpc.RpcException).
const (
	CodeUnknown       = 0
	CodeNetwork       = 1
	CodeTimeout       = 2
	CodeBiz           = 3
	CodeForbidden     = 4
	CodeSerialization = 5
	CodeNoInvoker     = 6
	CodeLimitExceeded = 7
)

// Coder is an error that knows its Java RpcException code.
type Coder interface{ RPCCode() int }

// CodeOf is the RpcException code of err (through wrapping), CodeUnknown
// when err names none.
func CodeOf(err error) int {
	var c Coder
	if errors.As(err, &c) {
		return c.RPCCode()
	}
	return CodeUnknown
}

// Error is an exception a strategy raises itself (Java's RpcException
// "Failed to invoke ...", "Failfast invoke providers ...", "No provider
// available in ...").
type Error struct {
	// Strategy is the cluster strategy's name.
	Strategy string
	// Code is the RpcException code (the last cause's for failover,
	// failfast and forking).
	Code int
	// Tried is the number of attempts made (0 when not counted).
	Tried int
	// Providers is the number of distinct providers tried (failover), Of
	// the number routed at the last attempt.
	Providers, Of int
	// Msg says what failed.
	Msg string
	// Cause is the last failure (nil: none).
	Cause error
	// NotRPC marks Java exceptions that are not RpcExceptions (zone-aware's
	// IllegalStateException).
	NotRPC bool
}

// Error implements error.
func (e *Error) Error() string {
	s := "dubboroute cluster " + e.Strategy + ": " + e.Msg
	if e.Tried > 0 {
		s += fmt.Sprintf(" (Tried %d times)", e.Tried)
	}
	if e.Cause != nil {
		s += ": " + e.Cause.Error()
	}
	return s
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Cause }

// RPCCode implements Coder.
func (e *Error) RPCCode() int { return e.Code }

// Kind is the kind of the thrown exception e stands for.
func (e *Error) Kind() Kind {
	switch {
	case e.NotRPC:
		return ThrownOther
	case e.Code == CodeBiz:
		return ThrownBiz
	}
	return Thrown
}
