package script

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/dubboroute/dubboroute/router"
)

// DefaultBudget is the time one call's script may run before it is
// interrupted (Java has no limit: an endless loop hangs the calling
// thread).
const DefaultBudget = 100 * time.Millisecond

// Branches of the script router (router.Step.Branch).
const (
	// BranchRouted: the script returned a list (Java) or array (dubbo-go)
	// of invokers; the step's output is what it kept.
	BranchRouted router.Branch = "script-routed"
	// BranchError: the script threw a JavaScript error (or did not compile
	// for this call's bindings); every provider passes through, as in Java
	// (ScriptException) and dubbo-go.
	BranchError router.Branch = "script-error"
	// BranchFailed: Java's router threw on the script's result (a JS array,
	// null, undefined or another non-list value: ClassCastException or
	// NullPointerException) or on a Java exception inside the script; the
	// Java directory then returns no provider.
	BranchFailed router.Branch = "script-failed"
	// BranchInvalidResult: a dubbo-go-dialect script returned something other
	// than an array of the invokers binding's elements; dubbo-go passes
	// every provider through (or panics, for a string, number, boolean,
	// null or undefined: here those pass through too).
	BranchInvalidResult router.Branch = "script-invalid-result"
	// BranchTimeout: the script ran past the budget and was interrupted;
	// every provider passes through.
	BranchTimeout router.Branch = "script-timeout"
)

// CompileOptions configure Rule.Compile.
type CompileOptions struct {
	// Budget is the per-call time budget (0: DefaultBudget).
	Budget time.Duration
	// Overrides are the providers' configurator override URLs (index as
	// the providers; nil or a nil entry: none): Java's getParameter reads
	// them first.
	Overrides []*router.URL
}

// Compiled is a script rule bound to one provider snapshot. It is safe for
// concurrent use: each call borrows a runtime from a pool.
type Compiled struct {
	rule     *Rule
	u        *router.Universe
	urls     []*router.URL
	consumer *router.URL
	override []*router.URL
	budget   time.Duration
	pool     sync.Pool
}

// Compile binds r to the providers urls (member i of u is urls[i]) and the
// consumer URL (Java's provider URLs fall back to it in getParameter). A
// nil rule compiles to nil, which routes as "no rule".
func (r *Rule) Compile(u *router.Universe, consumer *router.URL, urls []*router.URL, opts CompileOptions) *Compiled {
	if r == nil {
		return nil
	}
	c := &Compiled{rule: r, u: u, urls: urls, consumer: consumer, override: opts.Overrides, budget: opts.Budget}
	if c.budget <= 0 {
		c.budget = DefaultBudget
	}
	return c
}

// Rule is the rule c was compiled from.
func (c *Compiled) Rule() *Rule { return c.rule }

// Route runs the script for one call over the providers in (a set of c's
// universe) and returns the providers it keeps. step may be nil (no
// recording); with a step, its Branch and Detail say what happened.
func (c *Compiled) Route(in *router.Set, call *router.Call, step *router.Step) *router.Set {
	if c == nil {
		if step != nil {
			step.Branch = router.BranchNoRule
		}
		return in
	}
	if !c.rule.Routes() {
		if step != nil {
			step.Branch, step.Detail = router.BranchDisabled, c.rule.Why
		}
		return in
	}
	if in.Empty() {
		if step != nil {
			step.Branch = router.BranchEmptyInput
		}
		return in
	}
	inst, _ := c.pool.Get().(*instance)
	if inst == nil {
		inst = newInstance(c)
	}
	out, branch, detail, broken := inst.route(in, call, step != nil)
	if !broken {
		c.pool.Put(inst)
	}
	if step != nil {
		step.Branch, step.Detail = branch, detail
	}
	return out
}

var errTimeout = errors.New("script ran past its time budget")

// route runs the script once on this instance.
func (in *instance) route(set *router.Set, call *router.Call, explain bool) (out *router.Set, branch router.Branch, detail string, broken bool) {
	c := in.c
	defer func() {
		if r := recover(); r != nil {
			// A Go panic inside the engine: the runtime may be in any state;
			// drop it and pass the call through.
			in.timer.Stop()
			out, branch, detail, broken = set, BranchError, fmt.Sprintf("script engine panicked: %v", r), true
		}
	}()
	// A copy: the call stays on the caller's stack (the chain's hot path
	// does not allocate for routers that do not run a script).
	in.callv = *call
	in.call = &in.callv
	in.members = set.AppendMembers(in.members[:0])
	if err := in.bind(); err != nil {
		return set, BranchError, err.Error(), true
	}
	in.thrown = nil
	in.rt.ClearInterrupt()
	in.mu.Lock()
	in.deadline = time.Now().Add(c.budget)
	in.running = true
	in.mu.Unlock()
	in.timer.Reset(c.budget)
	v, err := in.rt.RunProgram(c.rule.prog)
	in.timer.Stop()
	in.mu.Lock()
	in.running = false
	in.mu.Unlock()
	in.cleanGlobals()
	in.callv = router.Call{}
	if err != nil {
		var ie *goja.InterruptedError
		if errors.As(err, &ie) {
			in.rt.ClearInterrupt()
			return set, BranchTimeout, describe(explain, "interrupted after %v", c.budget), false
		}
		var ex *goja.Exception
		if c.rule.Dialect == DialectJava && errors.As(err, &ex) && in.thrown != nil && ex.Value() == in.thrown {
			return c.u.None(), BranchFailed, describe(explain, "a Java exception escaped the script (Java's directory returns no provider): %v", err), false
		}
		return set, BranchError, describe(explain, "%v", err), false
	}
	if c.rule.Dialect == DialectJava {
		return in.javaResult(set, v, explain)
	}
	return in.goResult(set, v, explain)
}

func describe(explain bool, format string, args ...any) string {
	if !explain {
		return ""
	}
	return fmt.Sprintf(format, args...)
}

// javaResult is ScriptStateRouter's conversion: a java.util.List or a Java
// array is retained against the input (input order, duplicates and foreign
// elements ignored); anything else throws.
func (in *instance) javaResult(set *router.Set, v goja.Value, explain bool) (*router.Set, router.Branch, string, bool) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return in.c.u.None(), BranchFailed, describe(explain, "the script's value is null (Java: NullPointerException in retainAll; no provider)"), false
	}
	obj, ok := v.(*goja.Object)
	l, _ := exported[*jList](obj)
	if l == nil {
		what := "a " + v.ExportType().String()
		if ok && obj.ClassName() == "Array" {
			what = "a JavaScript array"
		} else if ok {
			what = "a JavaScript " + obj.ClassName()
		}
		return in.c.u.None(), BranchFailed, describe(explain, "the script's value is %s, not a java.util.List or Java array (Java: ClassCastException; no provider)", what), false
	}
	in.hits = in.hits[:0]
	for _, e := range l.elems {
		if o, ok := e.(*goja.Object); ok {
			if m, ok := in.member[o]; ok {
				in.hits = append(in.hits, m)
			}
		}
	}
	out := in.c.u.And(set, in.c.u.Of(in.hits...))
	return out, BranchRouted, describe(explain, "the script's list kept %d of %d", out.Len(), set.Len()), false
}

// goResult is dubbo-go's conversion: an array whose every element is an
// element of the invokers binding; anything else passes through.
func (in *instance) goResult(set *router.Set, v goja.Value, explain bool) (*router.Set, router.Branch, string, bool) {
	obj, ok := v.(*goja.Object)
	if !ok {
		return set, BranchInvalidResult, describe(explain, "the script's value is %v, not an array (dubbo-go v3.3.2 panics here)", v), false
	}
	arr, ok := obj.Export().([]any)
	if !ok {
		return set, BranchInvalidResult, describe(explain, "the script's value is not an array (dubbo-go: every provider passes through)"), false
	}
	in.hits = in.hits[:0]
	for _, e := range arr {
		iv, ok := as[*gInvoker](e)
		if !ok || iv.in != in {
			if w, ok := e.(object); ok {
				e = w.getter
			}
			return set, BranchInvalidResult, describe(explain, "the script's array holds %T, not an invoker (dubbo-go: every provider passes through)", e), false
		}
		in.hits = append(in.hits, iv.idx)
	}
	out := in.c.u.And(set, in.c.u.Of(in.hits...))
	return out, BranchRouted, describe(explain, "the script's array kept %d of %d", out.Len(), set.Len()), false
}
