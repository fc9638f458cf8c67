package script

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"

	"github.com/dubboroute/dubboroute/router"
)

// instance is one runtime of a Compiled, used by one call at a time. It
// keeps the objects it shows scripts (one invoker and URL object per
// provider, made when first needed; the invocation and context objects;
// the shared methods), so a call allocates little beyond what the script
// itself does.
type instance struct {
	c  *Compiled
	rt *goja.Runtime

	call    *router.Call // &callv while a call runs
	callv   router.Call
	members []int
	hits    []int
	thrown  *goja.Object // the last Java exception thrown into the script

	invokers     []*goja.Object       // per member, lazily
	member       map[*goja.Object]int // invokers[m] -> m
	urlMember    map[*goja.Object]int // urls[m] -> m (Java dialect)
	hostV, portV []goja.Value         // per member, lazily (Java dialect)
	urls         []*goja.Object
	list         *jList // the Java invokers binding (a copy per call, as Java's)
	listObj      *goja.Object
	vals         []goja.Value

	invocation, context *goja.Object
	fn                  map[string]map[string]goja.Value // shared methods by type, then name
	fnList, fnInvoker   map[string]goja.Value            // fn["list"], fn["invoker"]
	fnURL, fnIterator   map[string]goja.Value            // fn["url"], fn["iterator"]
	globals             []string                         // names the script may have made global
	restore             []global                         // runtime globals the script may have changed

	timer    *time.Timer
	mu       sync.Mutex
	deadline time.Time
	running  bool
}

func newInstance(c *Compiled) *instance {
	in := &instance{c: c, rt: goja.New(), fn: map[string]map[string]goja.Value{}, member: map[*goja.Object]int{}, urlMember: map[*goja.Object]int{}}
	n := c.u.Size()
	in.invokers = make([]*goja.Object, n)
	in.urls = make([]*goja.Object, n)
	in.timer = time.AfterFunc(time.Hour, func() {
		in.mu.Lock()
		if in.running && !time.Now().Before(in.deadline) {
			in.rt.Interrupt(errTimeout)
		}
		in.mu.Unlock()
	})
	in.timer.Stop()
	if c.rule.Dialect == DialectJava {
		in.setupJava()
	} else {
		in.setupGo()
	}
	in.fnList, in.fnInvoker, in.fnURL, in.fnIterator = in.fn["list"], in.fn["invoker"], in.fn["url"], in.fn["iterator"]
	// The globals a script may assign: those the runtime has (builtins and
	// bindings) are restored after every run, the others removed.
	g := in.rt.GlobalObject()
	for _, n := range assignedNames(c.rule) {
		if v := g.Get(n); v != nil {
			in.restore = append(in.restore, global{n, v})
		} else {
			in.globals = append(in.globals, n)
		}
	}
	return in
}

// global is a global binding and its value before any run.
type global struct {
	name string
	v    goja.Value
}

// bind sets the per-call bindings.
func (in *instance) bind() error {
	if in.c.rule.Dialect == DialectJava {
		in.list.elems = in.list.elems[:0]
		for _, m := range in.members {
			in.list.elems = append(in.list.elems, in.javaInvoker(m))
		}
		return in.rt.Set("invokers", in.listObj)
	}
	in.vals = in.vals[:0]
	for _, m := range in.members {
		in.vals = append(in.vals, in.goInvoker(m))
	}
	if err := in.rt.Set("invokers", in.rt.NewArray(anySlice(in.vals)...)); err != nil {
		return err
	}
	return in.rt.Set(goResultVar, goja.Null())
}

func anySlice(v []goja.Value) []any {
	out := make([]any, len(v))
	for i := range v {
		out[i] = v[i]
	}
	return out
}

// cleanGlobals removes the globals a run may have made, so that every call
// starts as Java's (a new Global per call) and dubbo-go's (a new runtime per
// call) do.
func (in *instance) cleanGlobals() {
	g := in.rt.GlobalObject()
	for _, n := range in.globals {
		if g.Get(n) == nil {
			continue
		}
		if err := g.Delete(n); err != nil || g.Get(n) != nil {
			_ = g.Set(n, goja.Undefined())
		}
	}
	for _, r := range in.restore {
		if v := g.Get(r.name); v != r.v {
			_ = g.Set(r.name, r.v)
		}
	}
}

// method registers a shared method under "type.name".
func (in *instance) method(key string, f func(this *goja.Object, args []goja.Value) goja.Value) {
	typ, name, _ := strings.Cut(key, ".")
	if in.fn[typ] == nil {
		in.fn[typ] = map[string]goja.Value{}
	}
	in.fn[typ][name] = in.rt.ToValue(func(call goja.FunctionCall) goja.Value {
		this, _ := call.This.(*goja.Object)
		return f(this, call.Arguments)
	})
}

func (in *instance) typeError(format string, args ...any) {
	panic(in.rt.NewTypeError(fmt.Sprintf(format, args...)))
}

// javaThrow throws a Java exception into the script: catchable there, but
// if it escapes, Java's router fails the call.
func (in *instance) javaThrow(class, msg string) {
	e := in.rt.NewGoError(&JavaException{Class: class, Message: msg})
	in.thrown = e
	panic(e)
}

// JavaException is a Java exception the Java dialect's emulated classes
// throw (e.g. IndexOutOfBoundsException from List.get).
type JavaException struct {
	Class, Message string
}

func (e *JavaException) Error() string { return e.Class + ": " + e.Message }

func arg(args []goja.Value, i int) goja.Value {
	if i < len(args) {
		return args[i]
	}
	return goja.Undefined()
}

func argString(args []goja.Value, i int) (string, bool) {
	v := arg(args, i)
	if goja.IsUndefined(v) || goja.IsNull(v) {
		return "", false
	}
	return v.String(), true
}

// strOrNull is a Java String return value.
func (in *instance) strOrNull(s string, ok bool) goja.Value {
	if !ok {
		return goja.Null()
	}
	return in.rt.ToValue(s)
}

// ---- dynamic object plumbing ----

// getter is an emulated Java or dubbo-go object: its property key, or nil
// when it has none. One that also has Set(key, value) bool takes writes,
// and one with Keys() []string lists its keys; otherwise writes are
// refused and no key is enumerable.
type getter interface {
	Get(key string) goja.Value
}

// object adapts a getter to goja.DynamicObject.
type object struct{ getter }

func (o object) Has(key string) bool { return o.Get(key) != nil }
func (object) Delete(string) bool    { return false }

func (o object) Set(key string, v goja.Value) bool {
	if s, ok := o.getter.(interface{ Set(string, goja.Value) bool }); ok {
		return s.Set(key, v)
	}
	return false
}

func (o object) Keys() []string {
	if k, ok := o.getter.(interface{ Keys() []string }); ok {
		return k.Keys()
	}
	return nil
}

// newObject makes g a JavaScript object of the runtime.
func (in *instance) newObject(g getter) *goja.Object { return in.rt.NewDynamicObject(object{g}) }

// exported is the T behind a JavaScript object newObject made (false for
// nil, another object or another type).
func exported[T getter](o *goja.Object) (T, bool) {
	if o == nil {
		var t T
		return t, false
	}
	return as[T](o.Export())
}

// as is the T behind x, a value goja exported (an element of an exported
// array, say), false when x is not one of newObject's objects or holds
// another type.
func as[T getter](x any) (T, bool) {
	w, _ := x.(object)
	t, ok := w.getter.(T)
	return t, ok
}

// memberObject is cache[m], made from mk at the first call; index, when
// not nil, maps the object back to m.
func (in *instance) memberObject(cache []*goja.Object, index map[*goja.Object]int, m int, mk func() getter) *goja.Object {
	if o := cache[m]; o != nil {
		return o
	}
	o := in.newObject(mk())
	cache[m] = o
	if index != nil {
		index[o] = m
	}
	return o
}

// ---- Java dialect ----

func (in *instance) setupJava() {
	rt := in.rt
	// java.lang.String's methods scripts call on JS strings (Nashorn's JS
	// strings are java.lang.String).
	strProto := rt.Get("String").ToObject(rt).Get("prototype").ToObject(rt)
	def := func(name string, f func(s string, args []goja.Value) goja.Value) {
		_ = strProto.DefineDataProperty(name, rt.ToValue(func(call goja.FunctionCall) goja.Value {
			return f(call.This.String(), call.Arguments)
		}), goja.FLAG_TRUE, goja.FLAG_TRUE, goja.FLAG_FALSE)
	}
	isStr := func(v goja.Value) bool {
		_, ok := v.Export().(string)
		return ok
	}
	def("equals", func(s string, a []goja.Value) goja.Value {
		o := arg(a, 0)
		return rt.ToValue(isStr(o) && o.String() == s)
	})
	def("equalsIgnoreCase", func(s string, a []goja.Value) goja.Value {
		o := arg(a, 0)
		return rt.ToValue(isStr(o) && strings.EqualFold(o.String(), s))
	})
	def("contains", func(s string, a []goja.Value) goja.Value {
		o, ok := argString(a, 0)
		if !ok {
			in.javaThrow("java.lang.NullPointerException", "contains(null)")
		}
		return rt.ToValue(strings.Contains(s, o))
	})
	def("isEmpty", func(s string, a []goja.Value) goja.Value { return rt.ToValue(s == "") })
	_ = rt.GlobalObject().DefineDataProperty(looseEqName, rt.ToValue(func(call goja.FunctionCall) goja.Value {
		return rt.ToValue(looseEq(call.Argument(0), call.Argument(1)))
	}), goja.FLAG_FALSE, goja.FLAG_FALSE, goja.FLAG_FALSE)

	newList := func(call goja.ConstructorCall) *goja.Object {
		l := &jList{in: in}
		if len(call.Arguments) > 0 {
			a := call.Arguments[0]
			if o, ok := a.(*goja.Object); ok {
				if src, ok := exported[*jList](o); ok {
					l.elems = append([]goja.Value(nil), src.elems...)
				} else {
					in.typeError("ArrayList(%s): not a Java collection", a.String())
				}
			} else if n := a.ToInteger(); n < 0 {
				in.javaThrow("java.lang.IllegalArgumentException", "Illegal Capacity: "+strconv.FormatInt(n, 10))
			}
		}
		return in.newObject(l)
	}
	ctor := rt.ToValue(newList)
	util := rt.NewObject()
	_ = util.Set("ArrayList", ctor)
	_ = util.Set("LinkedList", ctor)
	pkg := rt.NewObject()
	_ = pkg.Set("util", util)
	_ = rt.Set("java", pkg)
	jv := rt.NewObject()
	_ = jv.Set("type", func(name string) goja.Value {
		switch name {
		case "java.util.ArrayList", "java.util.LinkedList":
			return ctor
		}
		in.typeError("Java.type(%q): dubboroute's script sandbox has java.util.ArrayList and java.util.LinkedList only", name)
		return nil
	})
	_ = jv.Set("to", func(call goja.FunctionCall) goja.Value {
		src, ok := call.Argument(0).(*goja.Object)
		if !ok {
			in.typeError("Java.to: not an object")
		}
		l := &jList{in: in}
		if sl, ok := exported[*jList](src); ok {
			l.elems = append(l.elems, sl.elems...)
		} else {
			n := src.Get("length").ToInteger()
			for i := int64(0); i < n; i++ {
				l.elems = append(l.elems, src.Get(strconv.FormatInt(i, 10)))
			}
		}
		t := "java.lang.Object[]"
		if !goja.IsUndefined(call.Argument(1)) {
			t = call.Argument(1).String()
		}
		switch {
		case t == "java.util.List" || t == "java.util.ArrayList" || t == "java.util.Collection":
		case strings.HasSuffix(t, "[]"):
			l.array = true
		default:
			in.typeError("Java.to: type %q is not a list or array type dubboroute's sandbox has", t)
		}
		return in.newObject(l)
	})
	_ = jv.Set("from", func(call goja.FunctionCall) goja.Value {
		if o, ok := call.Argument(0).(*goja.Object); ok {
			if l, ok := exported[*jList](o); ok {
				return rt.NewArray(anySliceCopy(l.elems)...)
			}
		}
		in.typeError("Java.from: not a Java list or array")
		return nil
	})
	_ = rt.Set("Java", jv)

	// java.util.List methods.
	list := func(this *goja.Object) *jList {
		if this != nil && this == in.listObj { // the invokers binding: no Export
			return in.list
		}
		if l, ok := exported[*jList](this); ok {
			return l
		}
		in.typeError("not a java.util.List")
		return nil
	}
	index := func(l *jList, a []goja.Value, max int) int {
		i := int(arg(a, 0).ToInteger())
		if i < 0 || i >= max {
			in.javaThrow("java.lang.IndexOutOfBoundsException", "Index "+strconv.Itoa(i)+" out of bounds for length "+strconv.Itoa(len(l.elems)))
		}
		return i
	}
	in.method("list.size", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(len(list(t).elems)) })
	in.method("list.isEmpty", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(len(list(t).elems) == 0) })
	in.method("list.get", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		return l.elems[index(l, a, len(l.elems))]
	})
	in.method("list.set", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		i := index(l, a, len(l.elems))
		old := l.elems[i]
		l.elems[i] = arg(a, 1)
		return old
	})
	in.method("list.add", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		if len(a) >= 2 {
			i := index(l, a, len(l.elems)+1)
			l.elems = append(l.elems, nil)
			copy(l.elems[i+1:], l.elems[i:])
			l.elems[i] = a[1]
			return goja.Undefined()
		}
		l.elems = append(l.elems, arg(a, 0))
		return rt.ToValue(true)
	})
	in.method("list.addAll", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		o, _ := arg(a, 0).(*goja.Object)
		src, _ := exported[*jList](o)
		if src == nil {
			in.typeError("addAll: not a Java collection")
		}
		l.elems = append(l.elems, src.elems...)
		return rt.ToValue(len(src.elems) > 0)
	})
	in.method("list.contains", func(t *goja.Object, a []goja.Value) goja.Value {
		return rt.ToValue(list(t).indexOf(arg(a, 0)) >= 0)
	})
	in.method("list.indexOf", func(t *goja.Object, a []goja.Value) goja.Value {
		return rt.ToValue(list(t).indexOf(arg(a, 0)))
	})
	in.method("list.remove", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		v := arg(a, 0)
		if _, isNum := v.Export().(int64); isNum {
			i := index(l, a, len(l.elems))
			old := l.elems[i]
			l.elems = append(l.elems[:i], l.elems[i+1:]...)
			return old
		}
		if i := l.indexOf(v); i >= 0 {
			l.elems = append(l.elems[:i], l.elems[i+1:]...)
			return rt.ToValue(true)
		}
		return rt.ToValue(false)
	})
	in.method("list.subList", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		from, to := int(arg(a, 0).ToInteger()), int(arg(a, 1).ToInteger())
		if from < 0 || to > len(l.elems) || from > to {
			in.javaThrow("java.lang.IndexOutOfBoundsException", "fromIndex "+strconv.Itoa(from)+", toIndex "+strconv.Itoa(to)+", size "+strconv.Itoa(len(l.elems)))
		}
		return in.newObject(&jList{in: in, elems: append([]goja.Value(nil), l.elems[from:to]...)})
	})
	in.method("list.iterator", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		it := &jIterator{in: in, elems: append([]goja.Value(nil), l.elems...)}
		return in.newObject(it)
	})
	in.method("iterator.hasNext", func(t *goja.Object, a []goja.Value) goja.Value {
		it, _ := exported[*jIterator](t)
		if it == nil {
			in.typeError("not an Iterator")
		}
		return rt.ToValue(it.pos < len(it.elems))
	})
	in.method("iterator.next", func(t *goja.Object, a []goja.Value) goja.Value {
		it, _ := exported[*jIterator](t)
		if it == nil {
			in.typeError("not an Iterator")
		}
		if it.pos >= len(it.elems) {
			in.javaThrow("java.util.NoSuchElementException", "")
		}
		it.pos++
		return it.elems[it.pos-1]
	})
	in.method("list.clear", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		l.elems = l.elems[:0]
		return goja.Undefined()
	})
	in.method("list.forEach", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		f, ok := goja.AssertFunction(arg(a, 0))
		if !ok {
			in.typeError("forEach: not a function")
		}
		for _, e := range append([]goja.Value(nil), l.elems...) {
			if _, err := f(goja.Undefined(), e); err != nil {
				panic(err)
			}
		}
		return goja.Undefined()
	})
	in.method("list.toString", func(t *goja.Object, a []goja.Value) goja.Value {
		l := list(t)
		parts := make([]string, len(l.elems))
		for i, e := range l.elems {
			parts[i] = e.String()
		}
		return rt.ToValue("[" + strings.Join(parts, ", ") + "]")
	})

	// Invoker and URL methods.
	// Invokers and URLs are found by map (Export allocates).
	invIdx := func(this *goja.Object) int {
		if m, ok := in.member[this]; ok && this != nil {
			return m
		}
		in.typeError("not an Invoker")
		return 0
	}
	urlIdx := func(this *goja.Object) int {
		if m, ok := in.urlMember[this]; ok && this != nil {
			return m
		}
		in.typeError("not a URL")
		return 0
	}
	url := func(this *goja.Object) *router.URL { return in.c.urls[urlIdx(this)] }
	in.method("invoker.getUrl", func(t *goja.Object, a []goja.Value) goja.Value { return in.javaURL(invIdx(t)) })
	in.method("invoker.isAvailable", func(t *goja.Object, a []goja.Value) goja.Value { invIdx(t); return rt.ToValue(true) })
	in.method("invoker.toString", func(t *goja.Object, a []goja.Value) goja.Value {
		return rt.ToValue(in.c.urls[invIdx(t)].String())
	})
	in.method("url.getHost", func(t *goja.Object, a []goja.Value) goja.Value { return in.hostValue(urlIdx(t)) })
	in.method("url.getIp", func(t *goja.Object, a []goja.Value) goja.Value { return in.hostValue(urlIdx(t)) })
	in.method("url.getPort", func(t *goja.Object, a []goja.Value) goja.Value { return in.portValue(urlIdx(t)) })
	in.method("url.getAddress", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(url(t).Address()) })
	in.method("url.getProtocol", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(url(t).Protocol) })
	in.method("url.getPath", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(url(t).Path) })
	in.method("url.getServiceInterface", func(t *goja.Object, a []goja.Value) goja.Value {
		// The consumer's interface (ServiceAddressURL), else the provider's.
		if c := in.c.consumer; c != nil && c.Interface() != "" {
			return rt.ToValue(c.Interface())
		}
		return rt.ToValue(url(t).Interface())
	})
	in.method("url.getParameter", func(t *goja.Object, a []goja.Value) goja.Value {
		m := urlIdx(t)
		k, ok := argString(a, 0)
		if !ok {
			return goja.Null()
		}
		v, ok := in.javaParam(m, k)
		if !ok && len(a) >= 2 {
			return a[1]
		}
		return in.strOrNull(v, ok)
	})
	in.method("url.getRemoteApplication", func(t *goja.Object, a []goja.Value) goja.Value {
		v, ok := url(t).Params.Get("application")
		return in.strOrNull(v, ok && v != "")
	})
	in.method("url.getApplication", func(t *goja.Object, a []goja.Value) goja.Value {
		v, ok := in.javaParam(urlIdx(t), "application")
		return in.strOrNull(v, ok)
	})
	in.method("url.toString", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(url(t).String()) })

	// Invocation and context.
	in.method("invocation.getMethodName", func(t *goja.Object, a []goja.Value) goja.Value { return rt.ToValue(in.call.Method) })
	in.method("invocation.getArguments", func(t *goja.Object, a []goja.Value) goja.Value {
		return rt.NewArray(append([]any(nil), in.call.Args...)...)
	})
	attachment := func(t *goja.Object, a []goja.Value) goja.Value {
		k, ok := argString(a, 0)
		if !ok {
			return goja.Null()
		}
		v, ok := in.call.Attachment(k)
		if !ok && len(a) >= 2 {
			return a[1]
		}
		return in.strOrNull(v, ok)
	}
	in.method("invocation.getAttachment", attachment)
	in.method("context.getAttachment", attachment)

	in.list = &jList{in: in}
	in.listObj = in.newObject(in.list)
	in.invocation = in.newObject(&jObject{in: in, kind: "invocation", methods: []string{"getMethodName", "getArguments", "getAttachment", "getObjectAttachment"}})
	in.context = in.newObject(&jObject{in: in, kind: "context", methods: []string{"getAttachment", "getObjectAttachment"}})
	in.fn["invocation"]["getObjectAttachment"] = in.fn["invocation"]["getAttachment"]
	in.fn["context"]["getObjectAttachment"] = in.fn["context"]["getAttachment"]
	_ = rt.Set("invocation", in.invocation)
	_ = rt.Set("context", in.context)
}

// javaParam is DubboServiceAddressURL.getParameter, as Dubbo 3.3.6's
// ServiceAddressURL answers it (probed with the oracle's URLs, and by
// TestScriptOracleDifferential): application, version and group are the
// provider's; category is "providers"; every other key the consumer URL's value first
// (the consumer URL it wraps has the provider-first keys release, dubbo,
// methods, timestamp and dubbo.tag removed), then the provider's own; for
// those keys a configurator's override URL (provider m's) comes first.
func (in *instance) javaParam(m int, k string) (string, bool) {
	u := in.c.urls[m]
	own := func() (string, bool) {
		v, ok := u.Params.Get(k)
		return v, ok && v != ""
	}
	cons := func() (string, bool) {
		if in.c.consumer == nil {
			return "", false
		}
		v, ok := in.c.consumer.Params.Get(k)
		return v, ok && v != ""
	}
	switch k {
	case "application":
		return own()
	case "category":
		return "providers", true
	case "version", "group", "release", "dubbo", "methods", "timestamp", "dubbo.tag":
		return own()
	}
	if m < len(in.c.override) && in.c.override[m] != nil {
		if v, ok := in.c.override[m].Params.Get(k); ok && v != "" {
			return v, true
		}
	}
	if v, ok := cons(); ok {
		return v, true
	}
	return own()
}

func anySliceCopy(v []goja.Value) []any { return anySlice(v) }

func (in *instance) javaInvoker(m int) *goja.Object {
	return in.memberObject(in.invokers, in.member, m, func() getter { return &jInvoker{provider{in, m}} })
}

// hostValue and portValue are member m's host and port as JavaScript
// values, made once per runtime (a boxed value per call otherwise).
func (in *instance) hostValue(m int) goja.Value {
	return memberValue(in, &in.hostV, m, in.c.urls[m].Host)
}

func (in *instance) portValue(m int) goja.Value {
	return memberValue(in, &in.portV, m, in.c.urls[m].Port)
}

// memberValue is (*cache)[m], made from x (member m's) at the first call.
func memberValue[T any](in *instance, cache *[]goja.Value, m int, x T) goja.Value {
	if *cache == nil {
		*cache = make([]goja.Value, len(in.c.urls))
	}
	if v := (*cache)[m]; v != nil {
		return v
	}
	v := in.rt.ToValue(x)
	(*cache)[m] = v
	return v
}

func (in *instance) javaURL(m int) *goja.Object {
	return in.memberObject(in.urls, in.urlMember, m, func() getter { return &jURL{provider{in, m}} })
}

// jList is a java.util.List (ArrayList) or, with array, a Java array.
type jList struct {
	in    *instance
	elems []goja.Value
	array bool
}

func (l *jList) indexOf(v goja.Value) int {
	for i, e := range l.elems {
		if e == nil {
			if goja.IsNull(v) {
				return i
			}
			continue
		}
		if e.StrictEquals(v) {
			return i
		}
	}
	return -1
}

func (l *jList) index(key string) (int, bool) {
	if key == "" || key[0] < '0' || key[0] > '9' {
		return 0, false
	}
	i, err := strconv.Atoi(key)
	return i, err == nil
}

func (l *jList) Get(key string) goja.Value {
	if i, ok := l.index(key); ok {
		if i < len(l.elems) {
			return l.elems[i]
		}
		return nil
	}
	if key == "length" {
		return l.in.rt.ToValue(len(l.elems))
	}
	if l.array {
		return nil
	}
	return l.in.fnList[key]
}

func (l *jList) Set(key string, v goja.Value) bool {
	if i, ok := l.index(key); ok && i < len(l.elems) {
		l.elems[i] = v
		return true
	}
	return false
}

func (l *jList) Keys() []string {
	out := make([]string, len(l.elems))
	for i := range out {
		out[i] = strconv.Itoa(i)
	}
	return out
}

// jIterator is a java.util.Iterator over a copy of a list.
type jIterator struct {
	in    *instance
	elems []goja.Value
	pos   int
}

func (it *jIterator) Get(key string) goja.Value { return it.in.fnIterator[key] }

// provider is what an emulated invoker or URL stands for: provider idx of
// the call's list.
type provider struct {
	in  *instance
	idx int
}

// url is the provider's URL.
func (p provider) url() *router.URL { return p.in.c.urls[p.idx] }

// jInvoker is an org.apache.dubbo.rpc.Invoker (getUrl(), the bean property
// url, isAvailable()).
type jInvoker struct{ provider }

func (v *jInvoker) Get(key string) goja.Value {
	switch key {
	case "url":
		return v.in.javaURL(v.idx)
	case "available":
		return v.in.rt.ToValue(true)
	}
	return v.in.fnInvoker[key]
}

// jURL is a provider's org.apache.dubbo.common.URL: the getters scripts
// use and their bean properties (url.host, url.port, ...).
type jURL struct{ provider }

func (u *jURL) Get(key string) goja.Value {
	url := u.url()
	rt := u.in.rt
	switch key {
	case "host", "ip":
		return u.in.hostValue(u.idx)
	case "port":
		return u.in.portValue(u.idx)
	case "address":
		return rt.ToValue(url.Address())
	case "protocol":
		return rt.ToValue(url.Protocol)
	case "path":
		return rt.ToValue(url.Path)
	}
	return u.in.fnURL[key]
}

// jObject is an object with methods only (invocation, context).
type jObject struct {
	in      *instance
	kind    string
	methods []string
}

func (o *jObject) Get(key string) goja.Value {
	for _, m := range o.methods {
		if m == key {
			return o.in.fn[o.kind][key]
		}
	}
	return nil
}
