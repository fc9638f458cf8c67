package mock

import (
	"reflect"

	"github.com/dubboroute/dubboroute/cluster/strategy"
)

// Outcome is what a mock produced.
type Outcome struct {
	// Kind is OK (Value holds the value), Business (Err is the business
	// exception: throw <class>, or the mock implementation's error) or
	// Thrown (Err is a *Error: the mock itself failed).
	Kind  strategy.Kind
	Value Value
	Err   error
}

// Call is what a mock needs of the call it stands in for.
type Call struct {
	// Interface is the reference's interface (the key Register uses).
	Interface string
	// Method is the invocation's method name (as MockInvoker reads it).
	Method string
	// Args are the call's arguments (for implementation mocks).
	Args []any
	// Type is the reply's type (nil: unknown, as Java's generic calls).
	Type reflect.Type
}

// Run is Java's MockClusterInvoker.doMockInvoke with a MockInvoker over
// the consumer URL: the mock value (the method's or the service's),
// cause the failure that triggered a fail-mock (nil for force).
func Run(value string, cause error, c Call) Outcome {
	a, err := Parse(value)
	if err != nil {
		return Outcome{Kind: strategy.Thrown, Err: &Error{Msg: err.Error(), Invoke: cause}}
	}
	switch a.Kind {
	case Return:
		v, err := ReturnValue(a.Text, c.Type)
		if err != nil {
			return Outcome{Kind: strategy.Thrown, Err: &Error{Msg: "mock return invoke error. method :" + c.Method + ", mock:" + a.Text, Invoke: cause, Cause: err}}
		}
		return Outcome{Kind: strategy.OK, Value: v}
	case Throw:
		if a.Text == "" {
			return Outcome{Kind: strategy.Thrown, Err: &Error{Msg: DegradeMessage, Invoke: cause}}
		}
		return Outcome{Kind: strategy.Business, Err: &ThrownError{Class: a.Text, Message: DegradeMessage}}
	}
	impl, err := Implementation(c.Interface, a)
	if err != nil {
		return Outcome{Kind: strategy.Thrown, Err: &Error{Msg: err.Error(), Invoke: cause}}
	}
	v, err := CallImpl(impl, c.Method, c.Args)
	if err != nil {
		return Outcome{Kind: strategy.Business, Err: err}
	}
	if v == nil {
		return Outcome{Kind: strategy.OK, Value: Value{Null: true}}
	}
	return Outcome{Kind: strategy.OK, Value: Value{V: v}}
}

// Invoke is Java's MockClusterInvoker.invoke around one call: value is the
// consumer URL's mock for the method (see Value); invoke runs the cluster
// strategy, degrade the mock (cause nil for force). It returns the result,
// the mode and whether the call was mocked.
func Invoke[R any](value string, kindOf func(R) strategy.Kind, errOf func(R) error, invoke func() R, degrade func(cause error) R) (R, Mode, bool) {
	mode := ModeOf(value)
	switch mode {
	case None:
		return invoke(), None, false
	case Force:
		return degrade(nil), Force, true
	}
	r := invoke()
	if ShouldMock(kindOf(r)) {
		return degrade(errOf(r)), Fail, true
	}
	return r, Fail, false
}

// Params reads URL parameters (the configured consumer URL).
type Params interface {
	// Param is the parameter k ("" when absent).
	Param(k string) string
}

// ValueOf is the mock value MockClusterInvoker reads for method: the
// consumer URL's <method>.mock (or dubbo-go's methods.<method>.mock), else
// mock, trimmed; "" when none.
func ValueOf(p Params, method string) string {
	for _, k := range [...]string{method + ".mock", "methods." + method + ".mock", "mock"} {
		if v := p.Param(k); v != "" {
			return trim(v)
		}
	}
	return ""
}

func trim(s string) string {
	i, j := 0, len(s)
	for i < j && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r') {
		i++
	}
	for j > i && (s[j-1] == ' ' || s[j-1] == '\t' || s[j-1] == '\n' || s[j-1] == '\r') {
		j--
	}
	return s[i:j]
}
