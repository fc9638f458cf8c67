package strategy

// Invoker is what a strategy needs of a provider: identity (comparable)
// and Java's isAvailable. dubbo-go's base.Invoker satisfies it.
type Invoker interface {
	comparable
	IsAvailable() bool
}

// Call is one call through a strategy: the environment a strategy runs
// in. The dubbo-go glue implements it over a Directory (dubboroute's
// chain), a base.Invocation and a loadbalance.LoadBalance; the oracle test
// over scripted providers.
type Call[I Invoker, R any] interface {
	// List routes the call again (Java's list(invocation) and
	// checkInvokers): the routed providers, or an error (thrown, code 6)
	// when none is left.
	List() ([]I, error)
	// Invoke invokes one provider and returns its result, whatever its
	// kind.
	Invoke(I) R
	// Kind classifies a result.
	Kind(R) Kind
	// Err is the exception a result carries (nil for OK).
	Err(R) error
	// Pick is the load balancer's choice among invokers (never empty); the
	// zero I when it chose none. As Java's AbstractLoadBalance it should
	// return a single invoker without drawing.
	Pick([]I) I
	// Fail is the result of an exception the strategy raises (thrown:
	// Kind(Fail(e)) is e.Kind()).
	Fail(*Error) R
	// Empty is Java's empty Result (failsafe and failback after a failure):
	// a successful result with no value.
	Empty() R
}

// contains reports whether list holds x.
func contains[I Invoker](list []I, x I) bool {
	for _, v := range list {
		if v == x {
			return true
		}
	}
	return false
}

func indexOf[I Invoker](list []I, x I) int {
	for i, v := range list {
		if v == x {
			return i
		}
	}
	return -1
}
